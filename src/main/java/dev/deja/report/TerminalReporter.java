package dev.deja.report;

/**
 * A format read on a terminal ({@code text}, {@code table}): given the terminal's width, its lines
 * fit it ({@link Wrap}); without one (a file, a pipe) they are left as long as they are.
 */
public interface TerminalReporter extends Reporter {
    /** The same format fitted to {@code columns} (0: unwrapped). */
    Reporter fitted(int columns);

    /** {@code r} fitted to {@code columns} when it is a terminal format, else {@code r}. */
    static Reporter fit(Reporter r, int columns) {
        return r instanceof TerminalReporter t && columns > 0 ? t.fitted(columns) : r;
    }
}
