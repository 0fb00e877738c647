package dev.deja.report;

import dev.deja.engine.CaseInfo;
import dev.deja.engine.Coverage;
import dev.deja.engine.Finding;
import dev.deja.engine.RuleMetadata;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import dev.deja.engine.Suppressions;
import dev.deja.engine.Target;
import java.io.IOException;
import java.io.Writer;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@code --format html}: one self-contained page (inline CSS, no script, nothing loaded from
 * elsewhere: a Content-Security-Policy forbids it), readable on a phone. A summary by severity and
 * by incident case, filters by minimum severity and by source (radio buttons and CSS {@code
 * :checked} selectors, no JavaScript), then each finding with its case story, its numbers (the
 * message), the fix and the object; what could not be checked. Every text is HTML-escaped.
 */
public final class HtmlReporter implements Reporter {
    private static final List<String> SOURCES = List.of("haproxy", "kubernetes", "aws");

    @Override
    public void write(Report report, Writer w) throws IOException {
        ScanResult r = report.result();
        StringBuilder h = new StringBuilder(16_384);
        h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append(
                        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .append(
                        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n")
                .append("<meta name=\"generator\" content=\"deja ")
                .append(esc(report.toolVersion()))
                .append("\">\n")
                .append("<title>deja report: ")
                .append(esc(headline(report)))
                .append("</title>\n<style>\n")
                .append(CSS)
                .append(filterCss())
                .append("</style>\n</head>\n<body>\n");
        // filter state: inputs first, so every later element can be styled from :checked with "~"
        for (String s : severityFilterIds()) {
            h.append("<input type=\"radio\" name=\"min-severity\" class=\"filter\" id=\"sev-")
                    .append(s)
                    .append('"')
                    .append(s.equals("all") ? " checked" : "")
                    .append(">\n");
        }
        List<String> sources = sourcesIn(report);
        if (sources.size() > 1) { // a source filter only when there is something to choose between
            h.append(
                    "<input type=\"radio\" name=\"source\" class=\"filter\" id=\"src-all\" checked>\n");
            for (String s : sources) {
                h.append("<input type=\"radio\" name=\"source\" class=\"filter\" id=\"src-")
                        .append(s)
                        .append("\">\n");
            }
        }
        h.append("<header>\n<h1>deja report</h1>\n<p class=\"headline\" id=\"headline\">")
                .append(esc(headline(report)))
                .append("</p>\n");
        // when, what and by which deja: a report kept after its pod is gone must say it itself
        if (report.run() != null) {
            h.append("<dl class=\"scan\" id=\"scan\"><dt>scanned</dt><dd>")
                    .append(
                            esc(
                                    DateTimeFormatter.ofPattern(
                                                    "yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT)
                                            .format(
                                                    report.run()
                                                            .startedAt()
                                                            .atZone(ZoneOffset.UTC))))
                    .append("</dd>");
            report.run()
                    .scope()
                    .forEach(
                            (k, v) ->
                                    h.append("<dt>")
                                            .append(esc(k))
                                            .append("</dt><dd>")
                                            .append(esc(v))
                                            .append("</dd>"));
            h.append("<dt>deja</dt><dd>").append(esc(report.toolVersion())).append("</dd></dl>\n");
        }
        if (!r.coverage().complete()) {
            h.append("<p class=\"warn\" id=\"incomplete\">Scan incomplete: ")
                    .append(r.coverage().notChecked().size())
                    .append(
                            " source scope(s) could not be read. See <a href=\"#coverage\">Not checked</a>.</p>\n");
        }
        h.append("</header>\n<main>\n");
        summary(h, report);
        filters(h, sources);
        findings(h, report, w);
        coverage(h, report);
        h.append("</main>\n<footer><p>Generated by deja ")
                .append(esc(report.toolVersion()))
                .append(
                        ". Each rule encodes the risk pattern of a real, publicly documented incident.</p></footer>\n")
                .append("</body>\n</html>\n");
        w.write(h.toString());
        w.flush();
    }

    static String headline(Report report) {
        ScanResult r = report.result();
        int n = r.findings().size();
        StringBuilder sb = new StringBuilder();
        sb.append(n).append(n == 1 ? " finding" : " findings");
        if (report.baseline() != null) {
            sb.append(", ").append(report.baseline().newFindings().size()).append(" new");
        }
        List<String> parts = new ArrayList<>();
        for (int i = Severity.values().length - 1; i >= 0; i--) {
            long k = r.count(Severity.values()[i]);
            if (k > 0) {
                parts.add(k + " " + Severity.values()[i].id());
            }
        }
        if (!parts.isEmpty()) {
            sb.append(" (").append(String.join(", ", parts)).append(')');
        }
        if (!r.suppressed().isEmpty()) {
            sb.append(", ").append(r.suppressed().size()).append(" suppressed");
        }
        return sb.toString();
    }

    private static void summary(StringBuilder h, Report report) {
        ScanResult r = report.result();
        h.append("<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"cards\">\n");
        for (int i = Severity.values().length - 1; i >= 0; i--) {
            Severity s = Severity.values()[i];
            h.append("<div class=\"card sev-")
                    .append(s.id())
                    .append("\"><span class=\"count\" id=\"count-")
                    .append(s.id())
                    .append("\">")
                    .append(r.count(s))
                    .append("</span><span class=\"label\">")
                    .append(s.id())
                    .append("</span></div>\n");
        }
        h.append("</div>\n");
        if (report.baseline() != null) {
            BaselineDiff b = report.baseline();
            h.append("<p id=\"baseline\">Against the baseline <code>")
                    .append(esc(b.source()))
                    .append("</code>: ");
            if (b.found()) {
                h.append("<strong>")
                        .append(b.newFindings().size())
                        .append(" new</strong>, ")
                        .append(b.unchanged())
                        .append(" unchanged, ")
                        .append(b.fixed())
                        .append(" fixed.");
            } else {
                h.append("no baseline yet, so every finding is new.");
            }
            h.append("</p>\n");
        }
        if (report.fleet() != null) {
            fleet(h, report.fleet());
        }
        Map<String, List<Finding>> byCase = byCase(r.findings());
        if (!byCase.isEmpty()) {
            h.append(
                            "<table class=\"by-case\">\n<caption>By incident case</caption>\n<thead><tr><th scope=\"col\">Case</th>")
                    .append(
                            "<th scope=\"col\">What happened</th><th scope=\"col\">Findings</th><th scope=\"col\">Worst</th></tr></thead>\n<tbody>\n");
            for (Map.Entry<String, List<Finding>> e : byCase.entrySet()) {
                CaseInfo ci = report.catalog().caseInfo(e.getKey()).orElse(null);
                // one rule for counting, the sections' own: a finding counts under the case it
                // is listed under (its first); the ones that link this case second are said apart
                List<Finding> listed = listedUnder(e.getKey(), e.getValue());
                int also = e.getValue().size() - listed.size();
                Severity worst =
                        (listed.isEmpty() ? e.getValue() : listed)
                                .stream()
                                        .map(Finding::severity)
                                        .max(Enum::compareTo)
                                        .orElse(Severity.INFO);
                h.append("<tr><td><a href=\"#case-")
                        .append(esc(e.getKey()))
                        .append("\">")
                        .append(esc(e.getKey()))
                        .append("</a></td><td>")
                        .append(
                                ci == null
                                        ? ""
                                        : esc(ci.title())
                                                + " <span class=\"muted\">("
                                                + esc(ci.organisation())
                                                + ", "
                                                + esc(ci.date())
                                                + ")</span>")
                        .append("</td><td class=\"num\">")
                        .append(listed.size())
                        .append(
                                also == 0
                                        ? ""
                                        : " <span class=\"muted also-count\">(+"
                                                + also
                                                + " listed under another case)</span>")
                        .append("</td><td><span class=\"badge sev-")
                        .append(worst.id())
                        .append("\">")
                        .append(worst.id())
                        .append("</span></td></tr>\n");
            }
            h.append("</tbody>\n</table>\n");
        }
        h.append("</section>\n");
    }

    private static void filters(StringBuilder h, List<String> sources) {
        h.append(
                "<nav class=\"filters\" aria-label=\"Filters\">\n<div class=\"group\"><span class=\"group-label\">Severity</span>");
        for (String s : severityFilterIds()) {
            h.append("<label for=\"sev-")
                    .append(s)
                    .append("\">")
                    .append(s.equals("all") ? "all" : s + "+")
                    .append("</label>");
        }
        h.append("</div>\n");
        if (sources.size() > 1) {
            h.append("<div class=\"group\"><span class=\"group-label\">Source</span>");
            h.append("<label for=\"src-all\">all</label>");
            for (String s : sources) {
                h.append("<label for=\"src-").append(s).append("\">").append(s).append("</label>");
            }
            h.append("</div>\n");
        }
        h.append("</nav>\n");
    }

    /**
     * The sources this report is about, in the usual order: those the scan read or tried to read,
     * and those of its findings (no "aws" chip on a scan that never looked at AWS).
     */
    static List<String> sourcesIn(Report report) {
        ScanResult r = report.result();
        Set<String> seen = new HashSet<>();
        for (Finding f : r.findings()) {
            report.catalog().rule(f.ruleId()).ifPresent(m -> seen.add(m.source().id()));
        }
        for (Coverage.Entry e : r.coverage().entries()) {
            if (e.status() != Coverage.Status.SKIPPED) {
                seen.add(e.source());
            }
        }
        List<String> out = new ArrayList<>();
        for (String s : SOURCES) {
            if (seen.contains(s)) {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * The findings under their incident case: each case once (title, one line, the full story
     * folded, a link), then the findings it explains, most severe case first. A finding from
     * several cases is listed under its first and names the others; a case that is only ever second
     * gets its story at the end.
     */
    private static void findings(StringBuilder h, Report report, Writer w) throws IOException {
        ScanResult r = report.result();
        List<Target> targets = r.targets();
        if (targets.size() <= 1
                || report.fleet() != null) { // a merged fleet report has its own per-target table
            h.append("<section id=\"findings\">\n<h2>Findings by incident</h2>\n");
            findings(
                    h,
                    report,
                    w,
                    r.findings(),
                    r.coverage().complete(),
                    new int[1],
                    new TreeSet<>(),
                    "");
            h.append("</section>\n");
            return;
        }
        // several clusters/accounts: a section each (files first), the findings under their cases
        // inside it
        h.append("<section id=\"findings\">\n<h2>Findings by cluster</h2>\n");
        h.append(
                "<table class=\"by-target\">\n<caption>By cluster and account</caption>\n<thead><tr>"
                        + "<th scope=\"col\">Target</th><th scope=\"col\">Read in full</th>");
        for (int i = Severity.values().length - 1; i >= 0; i--) {
            h.append("<th scope=\"col\" class=\"num\">")
                    .append(Severity.values()[i].id())
                    .append("</th>");
        }
        h.append("</tr></thead>\n<tbody>\n");
        List<Target> groups = PrometheusReporter.groups(report);
        for (int k = 0; k < groups.size(); k++) {
            Target t = groups.get(k);
            h.append("<tr><td><a href=\"#target-")
                    .append(k)
                    .append("\">")
                    .append(esc(t == null ? "files" : t.label()))
                    .append("</a></td><td>")
                    .append(r.coverage().complete(t) ? "yes" : "<strong>no</strong>")
                    .append("</td>");
            for (int i = Severity.values().length - 1; i >= 0; i--) {
                h.append("<td class=\"num\">")
                        .append(r.count(t, Severity.values()[i]))
                        .append("</td>");
            }
            h.append("</tr>\n");
        }
        h.append("</tbody>\n</table>\n");
        int[] counter = new int[1];
        Set<String> ids = new TreeSet<>();
        for (int k = 0; k < groups.size(); k++) {
            Target t = groups.get(k);
            List<Finding> mine =
                    r.findings().stream().filter(f -> Objects.equals(f.target(), t)).toList();
            h.append("<section class=\"target\" id=\"target-")
                    .append(k)
                    .append("\">\n<h3 class=\"target-title\">")
                    .append(esc(t == null ? "Files" : t.label()))
                    .append("</h3>\n");
            if (!r.coverage().complete(t)) {
                h.append(
                        "<p class=\"warn\">Not read in full: see <a href=\"#coverage\">Not checked</a>.</p>\n");
            }
            findings(h, report, w, mine, r.coverage().complete(t), counter, ids, "-t" + k);
            h.append("</section>\n");
        }
        h.append("</section>\n");
    }

    /**
     * Findings under their cases. {@code ids} holds the case-group ids already used (the first
     * group of a case keeps "case-ID", the summary's links land there; later ones get {@code
     * suffix}).
     */
    private static void findings(
            StringBuilder h,
            Report report,
            Writer w,
            List<Finding> list,
            boolean complete,
            int[] counter,
            Set<String> ids,
            String suffix)
            throws IOException {
        ScanResult r = report.result();
        if (list.isEmpty()) {
            boolean nothingRead =
                    r.coverage().sources().isEmpty() && !r.coverage().notChecked().isEmpty();
            h.append("<p class=\"none\">")
                    .append(
                            complete
                                    ? "No findings."
                                    : nothingRead
                                            ? "Nothing could be read, so nothing was checked (see <a href=\"#coverage\">Not checked</a>)."
                                            : "No findings in what could be read; some of the scan was not checked (see"
                                                    + " <a href=\"#coverage\">Not checked</a>).")
                    .append("</p>\n");
        }
        Map<String, List<Finding>> groups = new LinkedHashMap<>();
        Map<String, List<Finding>> byFirst = new TreeMap<>();
        for (Finding f : list) {
            byFirst.computeIfAbsent(
                            f.caseIds().isEmpty() ? "" : f.caseIds().get(0), k -> new ArrayList<>())
                    .add(f);
        }
        byFirst.entrySet().stream()
                .sorted(
                        (a, b) -> {
                            int c = worst(b.getValue()).compareTo(worst(a.getValue()));
                            return c != 0
                                    ? c
                                    : a.getKey().isEmpty()
                                            ? 1
                                            : b.getKey().isEmpty()
                                                    ? -1
                                                    : a.getKey().compareTo(b.getKey());
                        })
                .forEach(e -> groups.put(e.getKey(), e.getValue()));
        for (Map.Entry<String, List<Finding>> g : groups.entrySet()) {
            CaseInfo ci =
                    g.getKey().isEmpty()
                            ? null
                            : report.catalog().caseInfo(g.getKey()).orElse(null);
            h.append("<section class=\"case-group\"");
            if (!g.getKey().isEmpty()) {
                h.append(" id=\"case-")
                        .append(esc(g.getKey()))
                        .append(ids.add(g.getKey()) ? "" : esc(suffix))
                        .append('"');
            }
            h.append(">\n");
            if (ci != null) {
                story(h, ci, g.getValue().size());
            } else {
                h.append("<h3 class=\"case-title\">")
                        .append(
                                g.getKey().isEmpty()
                                        ? "Other findings"
                                        : "<span class=\"case-id\">" + esc(g.getKey()) + "</span>")
                        .append("</h3>\n");
            }
            for (Finding f : g.getValue()) {
                finding(h, report, f, ++counter[0]);
                if (h.length()
                        > FLUSH_AT) { // a fleet report's 100,000s of findings are written as they
                    // are made
                    w.append(h);
                    h.setLength(0);
                }
            }
            h.append("</section>\n");
        }
        // cases that only ever come second: their story, so that every "also" link lands somewhere
        TreeSet<String> secondOnly = new TreeSet<>();
        list.forEach(
                f ->
                        f.caseIds().stream()
                                .skip(1)
                                .filter(c -> !groups.containsKey(c))
                                .forEach(secondOnly::add));
        for (String c : secondOnly) {
            CaseInfo ci = report.catalog().caseInfo(c).orElse(null);
            h.append("<section class=\"case-group also\" id=\"case-")
                    .append(esc(c))
                    .append(ids.add(c) ? "" : esc(suffix))
                    .append("\">\n");
            if (ci != null) {
                story(h, ci, 0);
            } else {
                h.append("<h3 class=\"case-title\"><span class=\"case-id\">")
                        .append(esc(c))
                        .append("</span></h3>\n");
            }
            h.append(
                    "<p class=\"muted\">Its findings are listed above, under the case they come from first:");
            list.stream()
                    .filter(f -> f.caseIds().indexOf(c) > 0)
                    .map(Finding::ruleId)
                    .distinct()
                    .forEach(id -> h.append(" <code>").append(esc(id)).append("</code>"));
            h.append(".</p>\n</section>\n");
        }
    }

    /** Characters of page kept before they are written out. */
    private static final int FLUSH_AT = 1 << 20;

    private static Severity worst(List<Finding> fs) {
        return fs.stream().map(Finding::severity).max(Enum::compareTo).orElse(Severity.INFO);
    }

    /**
     * A case, once: id, title, organisation and date, one line, the full story folded, the link.
     */
    private static void story(StringBuilder h, CaseInfo ci, int findings) {
        h.append("<div class=\"story\">\n<h3 class=\"case-title\"><span class=\"case-id\">")
                .append(esc(ci.id()))
                .append("</span> ")
                .append(md(ci.title()))
                .append(" <span class=\"muted\">(")
                .append(esc(ci.organisation()))
                .append(", ")
                .append(esc(ci.date()))
                .append(")</span>");
        if (findings > 0) {
            h.append(" <span class=\"muted count\">")
                    .append(findings)
                    .append(findings == 1 ? " finding" : " findings")
                    .append("</span>");
        }
        h.append("</h3>\n<p>")
                .append(md(ci.oneLine()))
                .append("</p>\n<details><summary>What happened</summary>\n<p>")
                .append(md(ci.summary()))
                .append("</p>\n");
        if (!ci.numbers().isEmpty()) {
            h.append("<ul class=\"numbers\">");
            for (String n : ci.numbers()) {
                h.append("<li>").append(md(n)).append("</li>");
            }
            h.append("</ul>\n");
        }
        h.append("</details>\n<p><a href=\"")
                .append(esc(ci.libraryUrl()))
                .append("\" rel=\"noopener noreferrer\">Read the")
                .append(" case</a></p>\n</div>\n");
    }

    private static void finding(StringBuilder h, Report report, Finding f, int i) {
        RuleMetadata meta = report.catalog().rule(f.ruleId()).orElse(null);
        String source = meta == null ? "unknown" : meta.source().id();
        boolean isNew = report.baseline() != null && report.isNew(f);
        h.append("<article class=\"finding sev-")
                .append(f.severity().id())
                .append(" src-")
                .append(esc(source))
                .append(isNew ? " new" : "")
                .append("\" id=\"finding-")
                .append(i)
                .append("\" data-rule=\"")
                .append(esc(f.ruleId()))
                .append("\">\n<h4><span class=\"badge sev-")
                .append(f.severity().id())
                .append("\">")
                .append(f.severity().id())
                .append("</span>");
        if (isNew) {
            h.append(" <span class=\"badge new\">new</span>");
        }
        h.append(" <span class=\"rule\">").append(esc(f.ruleId())).append("</span>");
        if (meta != null) {
            h.append(" <span class=\"title\">").append(md(meta.title())).append("</span>");
        }
        h.append("</h4>\n<p class=\"object\"><span class=\"k\">Object</span> <code>")
                .append(esc(f.location().display()))
                .append("</code> <span class=\"muted\">(")
                .append(esc(source))
                .append(f.target() == null ? "" : ", " + esc(f.target().label()))
                .append(")</span></p>\n")
                .append("<p class=\"message\">")
                .append(md(f.message()))
                .append("</p>\n");
        h.append(Figures.html(f.figure()));
        for (String n : f.notes()) {
            h.append("<p class=\"note\"><span class=\"k\">Note</span> ")
                    .append(md(n))
                    .append("</p>\n");
        }
        for (String rel : f.related()) {
            h.append("<p class=\"related\"><span class=\"k\">See also</span> ")
                    .append(md(rel))
                    .append("</p>\n");
        }
        h.append("<p class=\"fix\"><span class=\"k\">Fix</span> ")
                .append(md(f.remediation()))
                .append("</p>\n");
        Evidence ev = report.evidence(f);
        if (ev != null) {
            h.append("<div class=\"proof\"><p><span class=\"k\">Replayed</span> ")
                    .append(esc(ev.summary()))
                    .append("</p>\n")
                    .append(ev.html())
                    .append("</div>\n");
        }
        if (f.caseIds().size() > 1) {
            h.append("<p class=\"also\"><span class=\"k\">Also</span>");
            for (String c : f.caseIds().subList(1, f.caseIds().size())) {
                h.append(" <a href=\"#case-")
                        .append(esc(c))
                        .append("\" class=\"case-id\">")
                        .append(esc(c))
                        .append("</a>");
            }
            h.append("</p>\n");
        }
        h.append("</article>\n");
    }

    private static void coverage(StringBuilder h, Report report) {
        ScanResult r = report.result();
        h.append("<section id=\"coverage\">\n<h2>Coverage</h2>\n");
        List<Coverage.Entry> missing = r.coverage().notChecked();
        if (missing.isEmpty()) {
            h.append("<p>Everything requested was read.</p>\n");
        } else {
            h.append("<h3>Not checked</h3>\n<ul class=\"not-checked\">\n");
            for (Coverage.Entry e : missing) {
                h.append("<li><strong>")
                        .append(esc(e.source()))
                        .append("</strong>: ")
                        .append(esc(e.scope()))
                        .append(": ")
                        .append(e.status().name().toLowerCase(Locale.ROOT))
                        .append(e.detail() == null ? "" : " (" + esc(e.detail()) + ")")
                        .append("</li>\n");
            }
            h.append("</ul>\n");
        }
        if (!r.coverage().notes().isEmpty()) {
            h.append("<h3>Notes</h3>\n<ul class=\"notes\">\n");
            for (Coverage.Entry e : r.coverage().notes()) {
                h.append("<li>")
                        .append(esc(e.scope()))
                        .append(": ")
                        .append(esc(String.valueOf(e.detail())))
                        .append("</li>\n");
            }
            h.append("</ul>\n");
        }
        Map<String, Long> read = new LinkedHashMap<>();
        for (Coverage.Entry e : r.coverage().entries()) {
            if (e.status() == Coverage.Status.READ) {
                read.merge(e.source(), 1L, Long::sum);
            }
        }
        if (!read.isEmpty()) {
            List<String> parts = new ArrayList<>();
            read.forEach(
                    (k, v) -> parts.add(esc(k) + " (" + v + (v == 1 ? " scope" : " scopes") + ")"));
            h.append("<p>Read: ")
                    .append(String.join(", ", parts))
                    .append("; ")
                    .append(r.rulesRun().size())
                    .append(r.rulesRun().size() == 1 ? " rule run.</p>\n" : " rules run.</p>\n");
        }
        if (!r.suppressed().isEmpty()) {
            h.append("<details><summary>")
                    .append(r.suppressed().size())
                    .append(" suppressed</summary><ul>\n");
            for (ScanResult.Suppressed s : r.suppressed()) {
                h.append("<li><code>")
                        .append(esc(s.finding().ruleId()))
                        .append("</code> ")
                        .append(esc(s.finding().location().display()))
                        .append(": ")
                        .append(esc(s.reason()))
                        .append(" <span class=\"muted\">(")
                        .append(esc(s.origin()))
                        .append(")</span></li>\n");
            }
            h.append("</ul></details>\n");
        }
        for (Suppressions.Entry e : r.expired()) {
            h.append("<p class=\"warn\">Suppression at ")
                    .append(esc(e.origin()))
                    .append(" for ")
                    .append(esc(e.rule()))
                    .append(" expired on ")
                    .append(esc(String.valueOf(e.expires())))
                    .append(" and no longer applies.</p>\n");
        }
        h.append("</section>\n");
    }

    /** The findings of {@code c} listed under it: those whose first case it is. */
    static List<Finding> listedUnder(String c, List<Finding> linking) {
        return linking.stream()
                .filter(f -> !f.caseIds().isEmpty() && f.caseIds().get(0).equals(c))
                .toList();
    }

    private static Map<String, List<Finding>> byCase(List<Finding> findings) {
        Map<String, List<Finding>> m = new TreeMap<>();
        for (Finding f : findings) {
            for (String c : f.caseIds()) {
                m.computeIfAbsent(c, k -> new ArrayList<>()).add(f);
            }
        }
        return m;
    }

    static List<String> severityFilterIds() {
        List<String> out = new ArrayList<>();
        out.add("all");
        for (int i = Severity.values().length - 1; i > 0; i--) {
            out.add(Severity.values()[i].id());
        }
        return out;
    }

    static List<String> sourceFilterIds() {
        List<String> out = new ArrayList<>();
        out.add("all");
        out.addAll(SOURCES);
        return out;
    }

    /**
     * Hides findings below the chosen minimum severity or from another source; highlights the
     * chosen labels.
     */
    static String filterCss() {
        StringBuilder css = new StringBuilder();
        Severity[] all = Severity.values();
        for (int i = 1; i < all.length; i++) {
            List<String> below = new ArrayList<>();
            for (int j = 0; j < i; j++) {
                below.add(".finding.sev-" + all[j].id());
            }
            css.append("#sev-")
                    .append(all[i].id())
                    .append(":checked ~ main :is(")
                    .append(String.join(",", below))
                    .append("){display:none}\n");
        }
        for (String s : SOURCES) {
            css.append("#src-")
                    .append(s)
                    .append(":checked ~ main .finding:not(.src-")
                    .append(s)
                    .append("){display:none}\n");
        }
        for (String s : severityFilterIds()) {
            css.append("#sev-")
                    .append(s)
                    .append(":checked ~ main label[for=sev-")
                    .append(s)
                    .append("]");
            css.append(",");
        }
        for (String s : sourceFilterIds()) {
            css.append("#src-")
                    .append(s)
                    .append(":checked ~ main label[for=src-")
                    .append(s)
                    .append("]");
            css.append(s.equals(SOURCES.get(SOURCES.size() - 1)) ? "" : ",");
        }
        css.append("{background:var(--accent);color:var(--bg);border-color:var(--accent)}\n");
        for (String s : severityFilterIds()) {
            css.append("#sev-")
                    .append(s)
                    .append(":focus-visible ~ main label[for=sev-")
                    .append(s)
                    .append("],");
        }
        for (String s : sourceFilterIds()) {
            css.append("#src-")
                    .append(s)
                    .append(":focus-visible ~ main label[for=src-")
                    .append(s)
                    .append("]")
                    .append(s.equals(SOURCES.get(SOURCES.size() - 1)) ? "" : ",");
        }
        css.append("{outline:2px solid var(--accent);outline-offset:2px}\n");
        return css.toString();
    }

    /**
     * HTML-escaped text with the one piece of Markdown that rule and case texts use: {@code `code`}
     * becomes {@code <code>code</code>} (an unpaired backtick stays as it is).
     */
    static String md(String s) {
        String e = esc(s);
        StringBuilder sb = new StringBuilder(e.length() + 16);
        int i = 0;
        while (i < e.length()) {
            int open = e.indexOf('`', i);
            int close = open < 0 ? -1 : e.indexOf('`', open + 1);
            if (open < 0 || close < 0 || close == open + 1) {
                sb.append(e, i, e.length());
                break;
            }
            sb.append(e, i, open).append("<code>").append(e, open + 1, close).append("</code>");
            i = close + 1;
        }
        return sb.toString();
    }

    /** HTML-escapes text for element content and quoted attribute values. */
    /**
     * A fleet report's targets: last scan, age (stale ones marked), findings by severity, complete
     * or not.
     */
    private static void fleet(StringBuilder h, Fleet fl) {
        h.append(
                        "<table class=\"fleet\" id=\"targets\">\n<caption>Targets (latest report of each; stale after ")
                .append(esc(FleetMerge.duration(fl.stale())))
                .append(")</caption>\n<thead><tr><th scope=\"col\">Target</th>")
                .append("<th scope=\"col\">Last scan</th><th scope=\"col\">Findings</th>");
        for (int i = Severity.values().length - 1; i >= 0; i--) {
            h.append("<th scope=\"col\">").append(Severity.values()[i].id()).append("</th>");
        }
        h.append("<th scope=\"col\">Coverage</th></tr></thead>\n<tbody>\n");
        for (Fleet.TargetStatus t : fl.targets()) {
            h.append("<tr")
                    .append(t.isStale() ? " class=\"stale\"" : "")
                    .append("><td>")
                    .append(esc(t.name()))
                    .append("<br><span class=\"muted\">")
                    .append(esc(t.origin()))
                    .append("</span></td><td>")
                    .append(esc(t.lastScan().truncatedTo(ChronoUnit.SECONDS).toString()))
                    .append("<br>")
                    .append(t.isStale() ? "<strong>STALE</strong>, " : "")
                    .append(esc(Fleet.age(t.age(fl.asOf()))))
                    .append(" ago</td><td>")
                    .append(t.total())
                    .append("</td>");
            for (int i = Severity.values().length - 1; i >= 0; i--) {
                h.append("<td>")
                        .append(t.bySeverity().getOrDefault(Severity.values()[i], 0))
                        .append("</td>");
            }
            h.append("<td>")
                    .append(t.complete() ? "complete" : esc(t.gaps().size() + " not checked"))
                    .append("</td></tr>\n");
        }
        h.append("</tbody>\n</table>\n");
        if (!fl.unreadable().isEmpty()) {
            h.append(
                    "<p id=\"unreadable\"><strong>Not merged</strong> (not deja JSON reports):</p>\n<ul>\n");
            fl.unreadable().forEach(u -> h.append("<li>").append(esc(u)).append("</li>\n"));
            h.append("</ul>\n");
        }
    }

    static String esc(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default ->
                        sb.append(
                                c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f && c <= 0x9f
                                        ? '\uFFFD'
                                        : c);
            }
        }
        return sb.toString();
    }

    private static final String CSS =
            """
            :root{--bg:#fff;--fg:#1b1f24;--muted:#5b6570;--line:#d8dee4;--card:#f6f8fa;--accent:#0b57d0;
            --critical:#8b0000;--high:#c62828;--medium:#b45309;--low:#0e7490;--info:#4b5563;color-scheme:light dark}
            @media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9aa4ae;--line:#30363d;
            --card:#161b22;--accent:#7aa7ff;--critical:#ff6b6b;--high:#ff8a80;--medium:#f0b35a;--low:#5fd0e6;--info:#a0aab4}}
            *{box-sizing:border-box}
            body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
            header,main,footer{max-width:60rem;margin:0 auto;padding:0 1rem}
            header{padding-top:1rem}
            h1{font-size:1.5rem;margin:.5rem 0}
            h2{font-size:1.2rem;margin:1.5rem 0 .5rem;border-bottom:1px solid var(--line)}
            h3{font-size:1rem;margin:0 0 .5rem;display:flex;flex-wrap:wrap;gap:.4rem;align-items:baseline}
            a{color:var(--accent)}
            code{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
            .headline{font-weight:600;margin:0}
            dl.scan{display:grid;grid-template-columns:max-content 1fr;gap:0 .75rem;margin:.5rem 0;font-size:.9rem}
            dl.scan dt{color:var(--muted)}dl.scan dd{margin:0;overflow-wrap:anywhere}
            .muted{color:var(--muted)}
            .warn{border-left:4px solid var(--medium);padding:.5rem .75rem;background:var(--card)}
            .cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(6.5rem,1fr));gap:.5rem}
            .card{background:var(--card);border:1px solid var(--line);border-top:4px solid var(--c);border-radius:6px;padding:.5rem;text-align:center}
            .card .count{display:block;font-size:1.6rem;font-weight:700}
            .card .label{color:var(--muted);text-transform:uppercase;font-size:.75rem;letter-spacing:.05em}
            .sev-critical{--c:var(--critical)}.sev-high{--c:var(--high)}.sev-medium{--c:var(--medium)}.sev-low{--c:var(--low)}.sev-info{--c:var(--info)}
            table{border-collapse:collapse;width:100%;margin-top:1rem}
            caption{text-align:left;font-weight:600;padding-bottom:.25rem}
            th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
            td.num{text-align:right}
            .by-case td:first-child{white-space:nowrap}
            .badge{display:inline-block;border-radius:999px;padding:0 .5rem;font-size:.75rem;font-weight:700;
            text-transform:uppercase;color:var(--bg);background:var(--c,var(--muted))}
            .badge.new{background:var(--accent)}
            .filters{position:sticky;top:0;z-index:1;background:var(--bg);padding:.5rem 0;border-bottom:1px solid var(--line);
            display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;margin-top:1rem}
            .filters .group{display:flex;flex-wrap:wrap;gap:.35rem;align-items:center}
            .group-label{font-size:.8rem;color:var(--muted);margin-right:.25rem}
            .filters label{cursor:pointer;border:1px solid var(--line);border-radius:999px;padding:.3rem .75rem;
            font-size:.9rem;min-height:2rem;display:inline-flex;align-items:center;user-select:none}
            input.filter{position:absolute;opacity:0;width:1px;height:1px;pointer-events:none}
            .finding{border:1px solid var(--line);border-left:6px solid var(--c);border-radius:6px;padding:.75rem 1rem;margin:.75rem 0;background:var(--bg)}
            .finding .rule{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem}
            .finding .title{color:var(--muted)}
            .finding p{margin:.35rem 0}
            .message{white-space:pre-wrap;overflow-wrap:anywhere;font-weight:500}
            .k{display:inline-block;min-width:5.5rem;font-size:.75rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
            .story{background:var(--card);border-radius:6px;padding:.25rem .75rem;margin-top:1.25rem}
            .story h3{margin:.5rem 0 .25rem}.story p{margin:.35rem 0}
            .case-group{margin-bottom:1.5rem}
            .finding{margin-left:.75rem}
            h4{font-size:1rem;margin:0 0 .5rem;display:flex;flex-wrap:wrap;gap:.4rem;align-items:baseline}
            .case-id{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-weight:700}
            details.case{border:1px solid var(--line);border-radius:6px;padding:.5rem .75rem;margin:.5rem 0}
            details summary{cursor:pointer}
            footer{color:var(--muted);font-size:.85rem;padding-bottom:2rem}
            @media (max-width:40rem){body{font-size:15px}.k{display:block;min-width:0}th:nth-child(2),td:nth-child(2){display:none}}
            @media print{.filters,input.filter{display:none}.finding{break-inside:avoid}}
            """;
}
