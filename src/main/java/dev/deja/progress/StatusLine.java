package dev.deja.progress;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * stderr on a terminal, with one status line at its bottom rewritten in place ("deja: reading
 * kubernetes: 7 kinds listed, 1,234 objects"). Whatever else is written (a warning) first erases
 * the status line, and the status comes back below it, so the two never share a line. Only on a
 * terminal: piped or in a CI log stderr is a plain stream (no {@code StatusLine}, no escape codes).
 */
public final class StatusLine extends Writer {
    private final Writer out;
    private String status = "";
    private boolean shown;
    private boolean atLineStart = true;

    public StatusLine(Writer out) {
        this.out = out;
    }

    /**
     * Whether this process's stderr is a terminal: file descriptor 2 is a tty device (Linux's
     * {@code /proc/self/fd/2}); false where that cannot be told.
     */
    public static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/")
                    || target.startsWith("/dev/tty")
                    || target.equals("/dev/console");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    /** Replaces the status line ("" erases it). */
    public synchronized void status(String s) {
        status = s == null ? "" : s.replace('\n', ' ').replace('\r', ' ');
        try {
            if (!atLineStart) {
                return; // shown once the line being written ends
            }
            erase();
            draw();
            out.flush();
        } catch (IOException e) {
            // stderr is gone: nothing to show progress on
        }
    }

    /** Erases the status line for good (the work it described is done). */
    public void clear() {
        status("");
    }

    /** The status shown now, "" when none. */
    public synchronized String status() {
        return status;
    }

    private void erase() throws IOException {
        if (shown) {
            out.write("\r\u001B[K");
            shown = false;
        }
    }

    private void draw() throws IOException {
        if (!status.isEmpty()) {
            out.write(status);
            shown = true;
        }
    }

    @Override
    public synchronized void write(char[] buf, int off, int len) throws IOException {
        if (len == 0) {
            return;
        }
        erase();
        out.write(buf, off, len);
        atLineStart = buf[off + len - 1] == '\n';
        if (atLineStart) {
            draw();
        }
    }

    @Override
    public synchronized void flush() throws IOException {
        out.flush();
    }

    @Override
    public synchronized void close() throws IOException {
        erase();
        out.flush();
    }
}
