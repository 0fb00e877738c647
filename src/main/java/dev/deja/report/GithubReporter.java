package dev.deja.report;

import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.RuleMetadata;
import dev.deja.engine.ScanResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.Locale;

/**
 * {@code --format github}: GitHub Actions workflow commands, one per finding, so that findings show
 * up inline on a pull request's changed files without code scanning: {@code ::error
 * file=F,line=N,title=T::message}. Critical and high are {@code error}, medium {@code warning}, low
 * and info {@code notice}. A finding on a live object (no file) is annotated without a file. Values
 * are escaped as the Actions toolkit does ({@code %}, CR and LF everywhere; also {@code :} and
 * {@code ,} in properties). Then the summary line and what was not checked, as plain lines.
 */
public final class GithubReporter implements Reporter {
    @Override
    public void write(Report report, Writer w) throws IOException {
        ScanResult r = report.result();
        for (Finding f : r.findings()) {
            String level =
                    switch (f.severity()) {
                        case CRITICAL, HIGH -> "error";
                        case MEDIUM -> "warning";
                        case LOW, INFO -> "notice";
                    };
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
                                            + ")"));
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
            w.write(cmd.append('\n').toString());
        }
        w.write("deja: " + TextReporter.summary(r) + "\n");
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

    /** A command's message: %, CR and LF escaped. */
    static String data(String s) {
        return ControlChars.asHex(s).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A");
    }

    /** A command's property value: also ':' and ','. */
    static String property(String s) {
        return data(s).replace(":", "%3A").replace(",", "%2C");
    }
}
