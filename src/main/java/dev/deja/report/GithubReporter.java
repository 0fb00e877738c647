package dev.deja.report;

import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.RuleMetadata;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import dev.deja.engine.Suppressions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.Locale;

/**
 * {@code --format github}: GitHub Actions workflow commands, one per finding, so that findings show
 * up inline on a pull request's changed files without code scanning: {@code ::error
 * file=F,line=N,title=T::message}. The levels follow the exit code: a finding that fails the run
 * (at or above {@code --fail-on}, and new with {@code --baseline}) is an {@code error}; one that
 * does not is a {@code warning} (critical, high, medium) or a {@code notice} (low, info); a finding
 * the baseline already has is a {@code notice} marked "unchanged since the baseline", so that a
 * pull request shows as errors exactly what made the step fail. A finding on a live object (no
 * file) is annotated without a file. Values are escaped as the Actions toolkit does ({@code %}, CR
 * and LF everywhere; also {@code :} and {@code ,} in properties). Then the summary line (with the
 * baseline's counts), the live cluster the scan read, expired suppressions and what was not
 * checked.
 */
public final class GithubReporter implements Reporter {
    @Override
    public void write(Report report, Writer w) throws IOException {
        ScanResult r = report.result();
        for (Finding f : r.findings()) {
            w.write(command(f, report));
        }
        w.write("deja: " + TextReporter.summary(r) + "\n");
        BaselineDiff b = report.baseline();
        if (b != null) {
            w.write("deja: " + TextReporter.baselineNote(b) + "\n");
        }
        String scanned = ScanNotes.scanned(report);
        if (scanned != null) {
            w.write("deja: scanned " + scanned + "\n");
        }
        for (Suppressions.Entry e : r.expired()) {
            w.write(expired(e));
        }
        r.coverage()
                .notChecked()
                .forEach(
                        e -> {
                            try {
                                w.write(
                                        "::warning title="
                                                + property("deja: not checked")
                                                + "::"
                                                + data(
                                                        e.source()
                                                                + ": "
                                                                + e.scope()
                                                                + ": "
                                                                + e.status()
                                                                        .name()
                                                                        .toLowerCase(Locale.ROOT)
                                                                + (e.detail() == null
                                                                        ? ""
                                                                        : " (" + e.detail() + ")"))
                                                + "\n");
                            } catch (IOException ex) {
                                throw new UncheckedIOException(ex);
                            }
                        });
        w.flush();
    }

    /**
     * A finding's command line: its level (error when it fails the run, warning from medium up when
     * new, else notice), the file and line when it is on one, the title and the message.
     */
    private static String command(Finding f, Report report) {
        boolean fresh = report.isNew(f);
        String level =
                fresh && report.failOn() != null && f.severity().atLeast(report.failOn())
                        ? "error"
                        : fresh && f.severity().atLeast(Severity.MEDIUM) ? "warning" : "notice";
        StringBuilder cmd = new StringBuilder("::").append(level).append(' ');
        Location l = f.location();
        boolean onFile = l.file() != null && l.key() == null && !l.file().startsWith("<");
        if (onFile) {
            cmd.append("file=").append(property(l.file()));
            if (l.line() != null && l.line() > 0) {
                cmd.append(",line=").append(l.line());
            }
            cmd.append(',');
        }
        String title =
                report.catalog().rule(f.ruleId()).map(RuleMetadata::title).orElse(f.ruleId());
        cmd.append("title=")
                .append(
                        property(
                                "deja "
                                        + f.severity().id()
                                        + ": "
                                        + f.ruleId()
                                        + " ("
                                        + title
                                        + ")"
                                        + (fresh ? "" : ", unchanged since the baseline")));
        StringBuilder msg = new StringBuilder();
        if (!onFile && !l.display().isEmpty()) {
            msg.append(l.display()).append(": ");
        }
        msg.append(f.message());
        f.notes().forEach(n -> msg.append("\nNote: ").append(n));
        msg.append("\nFix: ").append(f.remediation());
        if (!f.caseIds().isEmpty()) {
            msg.append("\nIncident: ")
                    .append(String.join(", ", f.caseIds()))
                    .append(" (deja explain ")
                    .append(f.caseIds().get(0))
                    .append(')');
        }
        cmd.append("::").append(data(msg.toString()));
        return cmd.append('\n').toString();
    }

    /** An expired ignore-file entry's warning line, on the file and line it came from if known. */
    private static String expired(Suppressions.Entry e) {
        String where = e.origin();
        int colon = where.lastIndexOf(':');
        StringBuilder cmd = new StringBuilder("::warning ");
        if (colon > 0 && where.substring(colon + 1).matches("\\d+")) {
            cmd.append("file=")
                    .append(property(where.substring(0, colon)))
                    .append(",line=")
                    .append(where.substring(colon + 1))
                    .append(',');
        }
        cmd.append("title=")
                .append(property("deja: expired suppression"))
                .append("::")
                .append(data(ScanNotes.expired(e)));
        return cmd.append('\n').toString();
    }

    /** A command's message: %, CR and LF escaped. */
    static String data(String s) {
        return ControlChars.asHex(s).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A");
    }

    /** A command's property value: also ':' and ','. */
    static String property(String s) {
        return data(s).replace(":", "%3A").replace(",", "%2C");
    }
}
