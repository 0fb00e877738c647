package dev.deja.cli;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How wide the reports on stdout are: {@code COLUMNS} when it is set (a number; 0 turns wrapping
 * off), else on a terminal the terminal's own width ({@code stty size} on {@code /dev/tty}, as
 * picocli's usage help finds it) or {@value #DEFAULT} when that cannot be known; piped or
 * redirected without {@code COLUMNS}: 0, lines as long as they are (a file or a CI log keeps each
 * finding on its lines, grep finds them whole).
 */
final class TerminalWidth {
    /** A terminal whose width cannot be read. */
    static final int DEFAULT = 80;

    private TerminalWidth() {}

    /** The width for stdout, 0 for unwrapped. */
    static int of(Map<String, String> env, boolean tty) {
        String columns = env.get("COLUMNS");
        if (columns != null && !columns.isBlank()) {
            try {
                int n = Integer.parseInt(columns.strip());
                if (n >= 0) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // not a number: as if unset
            }
        }
        if (!tty) {
            return 0;
        }
        int n = stty();
        return n > 0 ? n : DEFAULT;
    }

    /** The terminal's columns from {@code stty size}, or 0. */
    private static int stty() {
        File tty = new File("/dev/tty");
        if (!tty.canRead()) {
            return 0;
        }
        try {
            Process p =
                    new ProcessBuilder("stty", "size")
                            .redirectInput(tty)
                            .redirectError(ProcessBuilder.Redirect.DISCARD)
                            .start();
            String out;
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readNBytes(64), StandardCharsets.US_ASCII).strip();
            }
            if (!p.waitFor(2, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return 0;
            }
            String[] rowsCols = out.split("\\s+");
            return rowsCols.length == 2 ? Integer.parseInt(rowsCols[1]) : 0;
        } catch (IOException | NumberFormatException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }
}
