package dev.deja.report;

import dev.deja.engine.CaseInfo;
import dev.deja.engine.Coverage;
import dev.deja.engine.Finding;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import dev.deja.engine.Suppressions;
import dev.deja.engine.Target;
import java.io.FilterWriter;
import java.io.IOException;
import java.io.Writer;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The default human report: findings grouped by case (case id, title, one line of what happened),
 * each with its object, message and fix; then a summary line and what could not be checked. Colour
 * only when asked (a TTY).
 */
public final class TextReporter implements TerminalReporter {
    private static final String RESET = "\u001B[0m";
    private static final String BOLD = "\u001B[1m";
    private static final String DIM = "\u001B[2m";

    /**
     * A fleet report's targets, one line each: name, last scan and age, findings by severity,
     * coverage.
     */
    private void fleet(Writer w, Fleet fl, boolean c) throws IOException {
        w.write(
                style(c, BOLD, "Targets")
                        + " (latest report of each, stale after "
                        + FleetMerge.duration(fl.stale())
                        + "; "
                        + fl.reportsRead()
                        + " reports read"
                        + (fl.superseded() > 0
                                ? ", " + fl.superseded() + " older ones left out"
                                : "")
                        + "):\n");
        for (Fleet.TargetStatus t : fl.targets()) {
            List<String> sev = new ArrayList<>();
            for (int i = Severity.values().length - 1; i >= 0; i--) {
                int n = t.bySeverity().getOrDefault(Severity.values()[i], 0);
                if (n > 0) {
                    sev.add(n + " " + Severity.values()[i].id());
                }
            }
            line(
                    w,
                    "  ",
                    (t.isStale() ? "STALE " : "")
                            + t.name()
                            + ": last scan "
                            + t.lastScan().truncatedTo(ChronoUnit.SECONDS)
                            + " ("
                            + Fleet.age(t.age(fl.asOf()))
                            + " ago), "
                            + t.total()
                            + (t.total() == 1 ? " finding" : " findings")
                            + (sev.isEmpty() ? "" : " (" + String.join(", ", sev) + ")")
                            + (t.complete() ? "" : ", " + t.gaps().size() + " not checked"),
                    "    ");
        }
        for (String u : fl.unreadable()) {
            w.write("  not merged: " + u + "\n");
        }
    }

    /** Columns the lines fit in; 0: each line as long as it is (a file, a pipe). */
    private final int width;

    public TextReporter() {
        this(0);
    }

    /** Lines wrapped to {@code width} columns (0: unwrapped), with hanging indents. */
    public TextReporter(int width) {
        this.width = Math.max(0, width);
    }

    @Override
    public Reporter fitted(int columns) {
        return new TextReporter(columns);
    }

    /** {@code first + text} and a newline, wrapped to the width under {@code rest}. */
    private void line(Writer w, String first, String text, String rest) throws IOException {
        if (width == 0) {
            w.write(first);
            w.write(text);
            w.write('\n');
            return;
        }
        for (String l : Wrap.lines(text, width, first, rest)) {
            w.write(l);
            w.write('\n');
        }
    }

    @Override
    public void write(Report report, Writer out) throws IOException {
        ScanResult r = report.result();
        boolean c = report.color();
        Writer w = new Printable(out, c);
        // several clusters/accounts in one scan: each finding and gap names its own (a merged
        // report shows its own table)
        boolean fleet = report.fleet() == null && r.targets().size() > 1;
        List<Map.Entry<String, List<Finding>>> groups = byCase(r);
        for (Map.Entry<String, List<Finding>> g : groups) {
            CaseInfo ci = report.catalog().caseInfo(g.getKey()).orElse(null);
            if (ci != null) {
                line(
                        w,
                        "",
                        style(
                                c,
                                BOLD,
                                ci.id()
                                        + "  "
                                        + ci.title()
                                        + " ("
                                        + ci.organisation()
                                        + ", "
                                        + ci.date()
                                        + ")"),
                        " ".repeat(ci.id().length() + 2));
                line(w, "  ", style(c, DIM, ci.oneLine()), "  ");
            } else {
                w.write(style(c, BOLD, g.getKey()) + "\n");
            }
            for (Finding f : g.getValue()) {
                finding(w, report, f, fleet);
            }
            w.write("\n");
        }
        noFindings(w, r);
        for (Suppressions.Entry e : r.expired()) {
            line(
                    w,
                    "",
                    "warning: suppression at "
                            + e.origin()
                            + " for "
                            + e.rule()
                            + " expired on "
                            + e.expires()
                            + " and no longer applies",
                    "  ");
        }
        line(w, "", summary(r), "  ");
        if (ScanNotes.scanned(report) != null) { // which cluster: nobody reports on the wrong one
            line(w, "", "Scanned " + ScanNotes.scanned(report), "  ");
        }
        if (report.fleet() != null) {
            fleet(w, report.fleet(), c);
        } else if (fleet) {
            perTarget(w, r);
        }
        baseline(w, report.baseline());
        notChecked(w, r, fleet, c);
        notes(w, r.coverage().notes());
        skipped(w, r);
        w.flush();
    }

    /** The findings by their first case, cases with the most severe findings first, then by id. */
    private static List<Map.Entry<String, List<Finding>>> byCase(ScanResult r) {
        Map<String, List<Finding>> byCase = new TreeMap<>();
        for (Finding f : r.findings()) {
            byCase.computeIfAbsent(
                            f.caseIds().isEmpty() ? "-" : f.caseIds().get(0),
                            k -> new ArrayList<>())
                    .add(f);
        }
        // cases with the most severe findings first, then by id
        List<Map.Entry<String, List<Finding>>> groups = new ArrayList<>(byCase.entrySet());
        groups.sort(
                (a, b) -> {
                    int s =
                            b.getValue()
                                    .get(0)
                                    .severity()
                                    .compareTo(a.getValue().get(0).severity());
                    return s != 0 ? s : a.getKey().compareTo(b.getKey());
                });
        return groups;
    }

    /** One finding: severity, rule, location, message, notes, the fix and what replayed it. */
    private void finding(Writer w, Report report, Finding f, boolean fleet) throws IOException {
        boolean c = report.color();
        String fresh = report.baseline() != null && report.isNew(f) ? "NEW  " : "";
        w.write('\n');
        line(
                w,
                "  ",
                sev(c, f.severity())
                        + "  "
                        + fresh
                        + f.ruleId()
                        + "  "
                        + f.location().display()
                        + (fleet && f.target() != null ? "  [" + f.target().label() + "]" : ""),
                HANG);
        indented(w, "", f.message());
        for (String n : f.notes()) {
            indented(w, "note: ", n);
        }
        for (String rel : f.related()) {
            indented(w, "see also: ", rel);
        }
        if (f.caseIds().size() > 1) {
            line(
                    w,
                    "      also: ",
                    String.join(", ", f.caseIds().subList(1, f.caseIds().size())),
                    INDENT + "      ");
        }
        indented(w, "fix: ", f.remediation());
        Evidence ev = report.evidence(f);
        if (ev != null) {
            indented(w, "replayed: ", ev.summary());
        }
    }

    /** What an empty list of findings means: nothing read, part read, or all clear. */
    private void noFindings(Writer w, ScanResult r) throws IOException {
        if (r.findings().isEmpty()) {
            // "No findings." alone would read as a clean bill of health when the scan could not
            // read everything
            if (r.coverage().sources().isEmpty() && !r.coverage().notChecked().isEmpty()) {
                w.write(
                        "Nothing could be read, so nothing was checked (see \"Not checked\" below).\n");
            } else if (!r.coverage().notChecked().isEmpty()) {
                w.write(
                        "No findings in what could be read; some of the scan was not checked (see below).\n");
            } else {
                w.write("No findings.\n");
            }
        }
    }

    /** A scan of several clusters or accounts: the findings of each. */
    private void perTarget(Writer w, ScanResult r) throws IOException {
        for (Target t : r.targets()) {
            List<String> counts = new ArrayList<>();
            long total = 0;
            for (int i = Severity.values().length - 1; i >= 0; i--) {
                long k = r.count(t, Severity.values()[i]);
                total += k;
                if (k > 0) {
                    counts.add(k + " " + Severity.values()[i].id());
                }
            }
            line(
                    w,
                    "  ",
                    t.label()
                            + ": "
                            + total
                            + (total == 1 ? " finding" : " findings")
                            + (counts.isEmpty() ? "" : " (" + String.join(", ", counts) + ")")
                            + (r.coverage().complete(t) ? "" : "; not read in full (see below)"),
                    "    ");
        }
    }

    private void baseline(Writer w, BaselineDiff b) throws IOException {
        if (b != null) {
            String note = baselineNote(b);
            line(w, "", Character.toUpperCase(note.charAt(0)) + note.substring(1), "  ");
        }
    }

    /**
     * "against the baseline B: 2 new, 5 unchanged, 1 fixed", or "no baseline at B yet: every
     * finding is new".
     */
    static String baselineNote(BaselineDiff b) {
        return b.found()
                ? "against the baseline "
                        + b.source()
                        + ": "
                        + b.newFindings().size()
                        + " new, "
                        + b.unchanged()
                        + " unchanged, "
                        + b.fixed()
                        + " fixed"
                : "no baseline at " + b.source() + " yet: every finding is new";
    }

    private void notChecked(Writer w, ScanResult r, boolean fleet, boolean c) throws IOException {
        List<Coverage.Entry> missing = r.coverage().notChecked();
        if (!missing.isEmpty()) {
            w.write(style(c, BOLD, "Not checked:") + "\n");
            for (Coverage.Entry e : missing) {
                line(
                        w,
                        "  - ",
                        (!fleet || e.target() == null ? "" : e.target().label() + ": ")
                                + ScanNotes.notChecked(e),
                        "    ");
            }
        }
    }

    /** One line per reason: "Skipped (not a ...): a.yml, b.json". */
    private void skipped(Writer w, ScanResult r) throws IOException {
        List<Coverage.Entry> skipped =
                r.coverage().entries().stream()
                        .filter(e -> e.status() == Coverage.Status.SKIPPED)
                        .toList();
        // one line per reason: "Skipped (not a ...): a.yml, b.json"
        Map<String, List<String>> byReason = new LinkedHashMap<>();
        for (Coverage.Entry e : skipped) {
            byReason.computeIfAbsent(String.valueOf(e.detail()), k -> new ArrayList<>())
                    .add(e.scope());
        }
        for (Map.Entry<String, List<String>> e : byReason.entrySet()) {
            line(w, "Skipped (" + e.getKey() + "): ", String.join(", ", e.getValue()), "  ");
        }
    }

    /**
     * "5 findings (1 critical, 2 high, 2 medium), 1 suppressed; read: haproxy 2, kubernetes 14;
     * incomplete: ..."
     */
    public static String summary(ScanResult r) {
        StringBuilder sb = new StringBuilder(findingCounts(r));
        if (!r.suppressed().isEmpty()) {
            sb.append(", ").append(r.suppressed().size()).append(" suppressed");
        }
        Map<String, Long> read = new LinkedHashMap<>();
        for (Coverage.Entry e : r.coverage().entries()) {
            if (e.status() == Coverage.Status.READ) {
                read.merge(e.source(), 1L, Long::sum);
            }
        }
        List<String> src = new ArrayList<>();
        read.forEach((k, v) -> src.add(k + " (" + v + (v == 1 ? " scope" : " scopes") + ")"));
        sb.append("; sources: ").append(src.isEmpty() ? "none" : String.join(", ", src));
        sb.append("; ")
                .append(r.rulesRun().size())
                .append(r.rulesRun().size() == 1 ? " rule run" : " rules run");
        int missing = r.coverage().notChecked().size();
        sb.append(
                missing == 0
                        ? "; everything requested was read"
                        : "; " + missing + " not checked (see below)");
        return sb.toString();
    }

    /** "5 findings (1 critical, 2 high, 2 medium)": the findings, most severe first. */
    public static String findingCounts(ScanResult r) {
        StringBuilder sb = new StringBuilder();
        int n = r.findings().size();
        sb.append(n).append(n == 1 ? " finding" : " findings");
        List<String> parts = new ArrayList<>();
        for (int i = Severity.values().length - 1; i >= 0; i--) {
            Severity s = Severity.values()[i];
            long k = r.count(s);
            if (k > 0) {
                parts.add(k + " " + s.id());
            }
        }
        if (!parts.isEmpty()) {
            sb.append(" (").append(String.join(", ", parts)).append(')');
        }
        return sb.toString();
    }

    /** "HIGH ": the severity padded to 8, once per severity (not a String.format per finding). */
    private static final String[] LABELS = new String[Severity.values().length];

    static {
        for (Severity s : Severity.values()) {
            LABELS[s.ordinal()] =
                    String.format(Locale.ROOT, "%-8s", s.id().toUpperCase(Locale.ROOT));
        }
    }

    private static String sev(boolean color, Severity s) {
        String label = LABELS[s.ordinal()];
        if (!color) {
            return label;
        }
        String code =
                switch (s) {
                    case CRITICAL -> "\u001B[1;31m";
                    case HIGH -> "\u001B[31m";
                    case MEDIUM -> "\u001B[33m";
                    case LOW -> "\u001B[36m";
                    case INFO -> "\u001B[2m";
                };
        return code + label + RESET;
    }

    /**
     * Untrusted text (server messages, names from configs) reaches the terminal: control characters
     * become '?', and escape sequences are dropped except, with colour on, plain SGR colour codes
     * (ESC [ digits/; m), which are ours.
     */
    public static final class Printable extends FilterWriter {
        private final boolean color;
        private final StringBuilder pending = new StringBuilder();
        private final char[] chunk = new char[8192];

        public Printable(Writer out, boolean color) {
            super(out);
            this.color = color;
        }

        @Override
        public void write(int ch) throws IOException {
            char c = (char) ch;
            if (pending.length() > 0) {
                pending.append(c);
                if (pending.length() == 2 ? c == '[' : c >= '0' && c <= '9' || c == ';') {
                    if (pending.length() < 16) {
                        return;
                    }
                } else if (c == 'm' && pending.length() > 2 && color) {
                    out.write(pending.toString());
                    pending.setLength(0);
                    return;
                }
                pending.setLength(0); // not a colour code: dropped
                out.write('?');
                return;
            }
            if (c == 0x1b) {
                pending.append(c);
            } else if (c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f && c <= 0x9f) {
                out.write('?');
            } else {
                out.write(c);
            }
        }

        /** Printed as it is when no escape sequence is pending. */
        private static boolean plain(char c) {
            return c >= 0x20 && c < 0x7f || c > 0x9f || c == '\n' || c == '\t';
        }

        // runs of plain characters go through in one write; the rest one by one (write(int))
        @Override
        public void write(char[] buf, int off, int len) throws IOException {
            int end = off + len;
            int i = off;
            while (i < end) {
                if (pending.length() > 0) {
                    write(buf[i++]);
                    continue;
                }
                int run = i;
                while (i < end && plain(buf[i])) {
                    i++;
                }
                if (i > run) {
                    out.write(buf, run, i - run);
                }
                if (i < end) {
                    write(buf[i++]);
                }
            }
        }

        /**
         * A string is checked as a char array, a chunk at a time: with the quick JIT (C1) the
         * launcher runs, a loop over an array is several times faster than one over {@code
         * String.charAt} (the text report of the 16,000-frontend benchmark config, 5.4 MB, spent
         * about a sixth of its main thread's samples in this loop).
         */
        @Override
        public void write(String s, int off, int len) throws IOException {
            while (len > 0) {
                int n = Math.min(len, chunk.length);
                s.getChars(off, off + n, chunk, 0);
                write(chunk, 0, n);
                off += n;
                len -= n;
            }
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            flush(); // the caller owns the stream
        }
    }

    private static String style(boolean color, String code, String s) {
        return color ? code + s + RESET : s;
    }

    private static final String INDENT = "      ";

    /** Under a finding's rule id: " " + the severity's 8 columns + " ". */
    private static final String HANG = " ".repeat(12);

    /**
     * The notes of the scan, one line each; the objects defined more than once in the files read (a
     * note each, {@code count} their definitions) folded into one line: a risky and a fixed example
     * side by side define the same objects, and nine such notes would push the findings off the
     * first screen. {@code --verbose} lists them on stderr, the JSON report has each.
     */
    private void notes(Writer w, List<Coverage.Entry> notes) throws IOException {
        List<Coverage.Entry> defined = new ArrayList<>();
        for (Coverage.Entry e : notes) {
            if (definedTwice(e)) {
                defined.add(e);
            }
        }
        boolean fold = defined.size() > 1;
        for (Coverage.Entry e : notes) {
            if (!fold || !definedTwice(e)) {
                line(w, "Note: ", e.scope() + ": " + e.detail(), "  ");
            }
        }
        if (fold) {
            long least = defined.stream().mapToLong(Coverage.Entry::count).min().orElse(2);
            long most = defined.stream().mapToLong(Coverage.Entry::count).max().orElse(2);
            line(
                    w,
                    "Note: ",
                    defined.size()
                            + " objects defined "
                            + (least == most
                                    ? least + " times each"
                                    : least + " to " + most + " times")
                            + " in the files read (each definition is judged on its own); --verbose"
                            + " lists them",
                    "  ");
        }
    }

    /** A note that one Kubernetes object is defined {@code count} times in the files read. */
    static boolean definedTwice(Coverage.Entry e) {
        return e.status() == Coverage.Status.NOTE
                && "kubernetes".equals(e.source())
                && e.count() >= 2
                && e.detail() != null
                && e.detail().startsWith("defined ");
    }

    /**
     * {@code head + text} with each of its lines after the finding indent, and a newline; written
     * piece by piece (a report of thousands of findings builds no string per line).
     */
    private void indented(Writer w, String head, String text) throws IOException {
        if (width > 0) {
            String rest = INDENT + " ".repeat(head.length());
            String first = INDENT + head;
            for (String l : text.split("\n", -1)) {
                int lead = 0;
                while (lead < l.length() && l.charAt(lead) == ' ') {
                    lead++;
                }
                line(w, first, l, rest + l.substring(0, lead));
                first = INDENT;
            }
            return;
        }
        w.write(INDENT);
        w.write(head);
        int start = 0;
        for (int nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
            w.write(text, start, nl + 1 - start);
            w.write(INDENT);
            start = nl + 1;
        }
        w.write(text, start, text.length() - start);
        w.write('\n');
    }
}
