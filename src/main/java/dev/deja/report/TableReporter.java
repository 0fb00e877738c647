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
 * RULE}) has the whole message and the fix. On a terminal each row fits its width: the message is
 * cut to the room left, and the object in its middle (its file:line kept) when it leaves less than
 * {@value #MIN_MESSAGE} columns.
 */
public final class TableReporter implements TerminalReporter {
    static final int MESSAGE_WIDTH = 100;

    /** The message's least room on a terminal: the object column is cut (in its middle) first. */
    static final int MIN_MESSAGE = 40;

    /** Columns a row fits in; 0: the message cut at {@value #MESSAGE_WIDTH} only. */
    private final int width;

    public TableReporter() {
        this(0);
    }

    public TableReporter(int width) {
        this.width = Math.max(0, width);
    }

    @Override
    public Reporter fitted(int columns) {
        return new TableReporter(columns);
    }

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
        if (this.width > 0) {
            // the message gets what the first three columns leave; when that is too little, the
            // object column gives way first (cut with "...")
            int fixed = width[0] + width[1] + 6;
            if (this.width - fixed - width[2] < MIN_MESSAGE) {
                width[2] = Math.max(Wrap.MIN_TEXT, this.width - fixed - MIN_MESSAGE);
            }
            int room = Math.max(Wrap.MIN_TEXT, this.width - fixed - width[2]);
            for (String[] row : rows) {
                row[2] = Wrap.cutMiddle(row[2], width[2]);
                row[3] = Wrap.cut(row[3], room);
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
        for (String l : Wrap.lines(TextReporter.summary(r), this.width, "", "  ")) {
            w.write(l + "\n");
        }
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
                                String line = "not checked: " + ScanNotes.notChecked(e);
                                for (String l : Wrap.lines(line, this.width, "", "  ")) {
                                    w.write(l + "\n");
                                }
                            } catch (IOException ex) {
                                throw new UncheckedIOException(ex);
                            }
                        });
        w.flush();
    }
}
