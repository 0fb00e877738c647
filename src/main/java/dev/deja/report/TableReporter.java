package dev.deja.report;

import dev.deja.engine.Finding;
import dev.deja.engine.ScanResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code --format table}: one line per finding for a terminal: severity, rule, object (file:line or
 * kind namespace/name), and the message's first line cut at {@value #MESSAGE_WIDTH} characters;
 * then the summary line and what was not checked. {@code --format text} (or {@code deja explain
 * RULE}) has the whole message and the fix.
 */
public final class TableReporter implements Reporter {
    static final int MESSAGE_WIDTH = 100;

    @Override
    public void write(Report report, Writer w) throws IOException {
        ScanResult r = report.result();
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"SEVERITY", "RULE", "OBJECT", "MESSAGE"});
        for (Finding f : r.findings()) {
            String fresh = report.baseline() != null && report.isNew(f) ? " (new)" : "";
            String msg = f.message().lines().findFirst().orElse("");
            if (msg.length() > MESSAGE_WIDTH) {
                msg = msg.substring(0, MESSAGE_WIDTH - 3) + "...";
            }
            rows.add(
                    new String[] {
                        f.severity().id() + fresh,
                        f.ruleId(),
                        ControlChars.asHex(f.location().display()),
                        ControlChars.asHex(msg)
                    });
        }
        int[] width = new int[3];
        for (String[] row : rows) {
            for (int i = 0; i < 3; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        if (r.findings().isEmpty()) {
            w.write(
                    r.coverage().complete()
                            ? "No findings.\n"
                            : "No findings in what could be read.\n");
        } else {
            for (String[] row : rows) {
                w.write(
                        String.format(
                                                Locale.ROOT,
                                                "%-" + width[0] + "s  %-" + width[1] + "s  %-"
                                                        + width[2] + "s  %s",
                                                (Object[]) row)
                                        .stripTrailing()
                                + "\n");
            }
        }
        w.write(TextReporter.summary(r) + "\n");
        String scanned = ScanNotes.scanned(report);
        if (scanned != null) {
            w.write("scanned " + ControlChars.asHex(scanned) + "\n");
        }
        for (var e : r.expired()) {
            w.write("warning: " + ControlChars.asHex(ScanNotes.expired(e)) + "\n");
        }
        r.coverage()
                .notChecked()
                .forEach(
                        e -> {
                            try {
                                w.write(
                                        "not checked: "
                                                + e.source()
                                                + ": "
                                                + e.scope()
                                                + ": "
                                                + e.status().name().toLowerCase(Locale.ROOT)
                                                + (e.detail() == null
                                                        ? ""
                                                        : " (" + e.detail() + ")")
                                                + "\n");
                            } catch (IOException ex) {
                                throw new UncheckedIOException(ex);
                            }
                        });
        w.flush();
    }
}
