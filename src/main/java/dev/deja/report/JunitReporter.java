package dev.deja.report;

import dev.deja.engine.Coverage;
import dev.deja.engine.Finding;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Suppressions;
import dev.deja.engine.Target;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * JUnit XML (GitLab, Jenkins, Azure DevOps test reports): one testsuite per rule, one testcase per
 * finding (a {@code <failure>} at or above {@code --fail-on}, a passing case with the message in
 * {@code system-out} below it), a {@code <skipped>} case per suppressed finding, and one passing
 * case for a rule that found nothing. When the scan read live targets (clusters, AWS accounts),
 * each target is one testsuite ("cluster prod") holding its findings, suppressed findings and the
 * scopes that could not be read (an error each); files keep a testsuite per rule.
 */
public final class JunitReporter implements Reporter {

    @Override
    public void write(Report report, Writer w) throws IOException {
        ScanResult r = report.result();
        if (!r.targets().isEmpty()) {
            writeByTarget(report, w);
            return;
        }
        TreeSet<String> ids = new TreeSet<>(r.rulesRun());
        r.findings().forEach(f -> ids.add(f.ruleId()));
        Map<String, List<Finding>> byRule = new LinkedHashMap<>();
        Map<String, List<ScanResult.Suppressed>> supByRule = new LinkedHashMap<>();
        for (String id : ids) {
            byRule.put(id, new ArrayList<>());
            supByRule.put(id, new ArrayList<>());
        }
        r.findings().forEach(f -> byRule.get(f.ruleId()).add(f));
        r.suppressed()
                .forEach(
                        s ->
                                supByRule
                                        .computeIfAbsent(
                                                s.finding().ruleId(), k -> new ArrayList<>())
                                        .add(s));
        Counts c = new Counts();
        StringBuilder body = new StringBuilder();
        for (String id : byRule.keySet()) {
            ruleSuite(body, id, byRule.get(id), supByRule.getOrDefault(id, List.of()), report, c);
        }
        c.total += expired(body, r);
        // what could not be read: an error each, so that a CI test report does not look green on a
        // partial scan
        List<Coverage.Entry> notChecked = r.coverage().notChecked();
        if (!notChecked.isEmpty()) {
            c.total += notChecked.size();
            suite(body, "deja.coverage", notChecked.size(), 0, notChecked.size(), 0);
            for (Coverage.Entry e : notChecked) {
                notChecked(body, e);
            }
            body.append("  </testsuite>\n");
        }
        c.errors = notChecked.size();
        document(w, c, body);
    }

    /** The counts of the {@code <testsuites>} element, summed over its suites. */
    private static final class Counts {
        int total;
        int failures;
        int errors;
        int skipped;
    }

    /** The testsuite of one rule: its findings and suppressed ones, or a passing case. */
    private static void ruleSuite(
            StringBuilder body,
            String id,
            List<Finding> fs,
            List<ScanResult.Suppressed> ss,
            Report report,
            Counts c) {
        int tests = Math.max(1, fs.size() + ss.size());
        int fails = (int) fs.stream().filter(f -> failing(report, f)).count();
        c.total += tests;
        c.failures += fails;
        c.skipped += ss.size();
        String title = report.catalog().rule(id).map(m -> m.title()).orElse(id);
        suite(body, id, tests, fails, 0, ss.size());
        if (fs.isEmpty() && ss.isEmpty()) {
            body.append("    <testcase classname=\"deja.")
                    .append(attr(id))
                    .append("\" name=\"")
                    .append(attr(title + ": no findings"))
                    .append("\"/>\n");
        }
        findingCases(body, fs, ss, report);
        body.append("  </testsuite>\n");
    }

    /** A testsuite per target (then one per rule for the files' findings, if any). */
    private static void writeByTarget(Report report, Writer w) throws IOException {
        ScanResult r = report.result();
        List<Target> groups = PrometheusReporter.groups(report);
        Counts c = new Counts();
        StringBuilder body = new StringBuilder();
        for (Target t : groups) {
            List<Finding> fs =
                    r.findings().stream().filter(f -> Objects.equals(f.target(), t)).toList();
            List<ScanResult.Suppressed> ss =
                    r.suppressed().stream()
                            .filter(x -> Objects.equals(x.finding().target(), t))
                            .toList();
            List<Coverage.Entry> gaps =
                    r.coverage().notChecked().stream()
                            .filter(e -> Objects.equals(e.target(), t))
                            .toList();
            int fails = (int) fs.stream().filter(f -> failing(report, f)).count();
            int tests = Math.max(1, fs.size() + ss.size() + gaps.size());
            c.total += tests;
            c.failures += fails;
            c.errors += gaps.size();
            c.skipped += ss.size();
            String name = t == null ? "deja.files" : t.label();
            suite(body, name, tests, fails, gaps.size(), ss.size());
            if (t != null && t.cluster() != null) {
                scanned(body, report);
            }
            if (tests == 1 && fs.isEmpty() && ss.isEmpty() && gaps.isEmpty()) {
                body.append("    <testcase classname=\"deja\" name=\"")
                        .append(attr(name + ": no findings"))
                        .append("\"/>\n");
            }
            findingCases(body, fs, ss, report);
            for (Coverage.Entry e : gaps) {
                notChecked(body, e);
            }
            body.append("  </testsuite>\n");
        }
        c.total += expired(body, r);
        document(w, c, body);
    }

    /** The opening tag of a testsuite with its counts. */
    private static void suite(
            StringBuilder body, String name, int tests, int failures, int errors, int skipped) {
        body.append("  <testsuite name=\"")
                .append(attr(name))
                .append("\" tests=\"")
                .append(tests)
                .append("\" failures=\"")
                .append(failures)
                .append("\" errors=\"")
                .append(errors)
                .append("\" skipped=\"")
                .append(skipped)
                .append("\">\n");
    }

    /**
     * The document: the XML declaration, then the suites in a {@code <testsuites>} with the counts.
     */
    private static void document(Writer w, Counts c, StringBuilder body) throws IOException {
        w.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        w.write(
                "<testsuites name=\"deja\" tests=\""
                        + c.total
                        + "\" failures=\""
                        + c.failures
                        + "\" errors=\""
                        + c.errors
                        + "\" skipped=\""
                        + c.skipped
                        + "\">\n");
        w.write(body.toString());
        w.write("</testsuites>\n");
        w.flush();
    }

    /**
     * A test case per finding (a failure at or above --fail-on, else its text as output) and per
     * suppressed one.
     */
    private static void findingCases(
            StringBuilder body, List<Finding> fs, List<ScanResult.Suppressed> ss, Report report) {
        for (Finding f : fs) {
            testcase(body, f);
            String text = text(f);
            if (failing(report, f)) {
                body.append(">\n      <failure type=\"")
                        .append(f.severity().id())
                        .append("\" message=\"")
                        .append(
                                attr(
                                        f.severity().id().toUpperCase(Locale.ROOT)
                                                + ": "
                                                + f.message()))
                        .append("\">")
                        .append(text(text))
                        .append("</failure>\n    </testcase>\n");
            } else {
                body.append(">\n      <system-out>")
                        .append(
                                text(
                                        f.severity().id().toUpperCase(Locale.ROOT)
                                                + (report.isNew(f)
                                                        ? " (below --fail-on): "
                                                        : " (unchanged since the baseline): ")
                                                + text))
                        .append("</system-out>\n    </testcase>\n");
            }
        }
        for (ScanResult.Suppressed s : ss) {
            testcase(body, s.finding());
            body.append(">\n      <skipped message=\"")
                    .append(attr("suppressed at " + s.origin() + ": " + s.reason()))
                    .append("\"/>\n    </testcase>\n");
        }
    }

    /** A scope not checked, as a testcase in error. */
    private static void notChecked(StringBuilder body, Coverage.Entry e) {
        body.append("    <testcase classname=\"deja.coverage\" name=\"")
                .append(attr(e.source() + ": " + e.scope()))
                .append("\">\n      <error type=\"")
                .append(attr(e.status().name().toLowerCase(Locale.ROOT)))
                .append("\" message=\"")
                .append(
                        attr(
                                "not checked: "
                                        + (e.detail() == null
                                                ? e.status().name().toLowerCase(Locale.ROOT)
                                                : e.detail())))
                .append("\"/>\n    </testcase>\n");
    }

    /**
     * Whether a finding fails the run, as the exit code has it: new (with a baseline) and at or
     * above --fail-on.
     */
    private static boolean failing(Report report, Finding f) {
        return report.failOn() != null && report.isNew(f) && f.severity().atLeast(report.failOn());
    }

    /**
     * The expired ignore-file entries, one passing case each whose output says so, in a suite of
     * their own; the count of cases added.
     */
    private static int expired(StringBuilder body, ScanResult r) {
        if (r.expired().isEmpty()) {
            return 0;
        }
        suite(body, "deja.expired-suppressions", r.expired().size(), 0, 0, 0);
        for (Suppressions.Entry e : r.expired()) {
            body.append("    <testcase classname=\"deja.expired-suppressions\" name=\"")
                    .append(attr(e.rule() + " at " + e.origin()))
                    .append("\">\n      <system-out>")
                    .append(text("warning: " + ScanNotes.expired(e) + "\n"))
                    .append("</system-out>\n    </testcase>\n");
        }
        body.append("  </testsuite>\n");
        return r.expired().size();
    }

    /** The live cluster read, as testsuite properties (JUnit's {@code <properties>}). */
    private static void scanned(StringBuilder body, Report report) {
        if (ScanNotes.scanned(report) == null) {
            return;
        }
        body.append("    <properties>\n");
        ScanNotes.scope(report)
                .forEach(
                        (k, v) ->
                                body.append("      <property name=\"")
                                        .append(attr(k))
                                        .append("\" value=\"")
                                        .append(attr(v))
                                        .append("\"/>\n"));
        body.append("    </properties>\n");
    }

    private static void testcase(StringBuilder b, Finding f) {
        b.append("    <testcase classname=\"deja.")
                .append(attr(f.ruleId()))
                .append("\" name=\"")
                .append(attr(f.location().display()))
                .append('"');
        if (f.location().file() != null) {
            b.append(" file=\"").append(attr(f.location().file())).append('"');
            if (f.location().line() != null) {
                b.append(" line=\"").append(f.location().line()).append('"');
            }
        }
    }

    private static String text(Finding f) {
        StringBuilder sb = new StringBuilder();
        sb.append(f.location().display()).append('\n').append(f.message()).append('\n');
        for (String n : f.notes()) {
            sb.append("note: ").append(n).append('\n');
        }
        sb.append("fix: ").append(f.remediation()).append('\n');
        if (!f.caseIds().isEmpty()) {
            sb.append("incident: https://incidentlib-api.benchlet.com/cases/")
                    .append(f.caseIds().get(0))
                    .append('\n');
        }
        return sb.toString();
    }

    /** Escapes for element text; characters XML 1.0 cannot carry become U+FFFD. */
    static String text(String s) {
        return escape(s, false);
    }

    static String attr(String s) {
        return escape(s, true);
    }

    private static String escape(String s, boolean attr) {
        StringBuilder sb = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append(attr ? "&quot;" : "\"");
                case '\n' -> sb.append(attr ? "&#10;" : "\n");
                case '\t' -> sb.append(attr ? "&#9;" : "\t");
                case '\r' -> sb.append("&#13;");
                default -> {
                    if (c < 0x20 || c == 0xFFFE || c == 0xFFFF) {
                        sb.append('\uFFFD');
                    } else if (Character.isHighSurrogate(c)
                            && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1))) {
                        sb.append(c).append(s.charAt(++i));
                    } else if (Character.isSurrogate(c)) {
                        sb.append('\uFFFD');
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}
