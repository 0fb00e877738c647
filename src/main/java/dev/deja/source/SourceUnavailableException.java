package dev.deja.source;

/**
 * A live source could not be used at all (unreachable, bad credentials): one line, exit 3, other
 * sources go on.
 */
public final class SourceUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String source;

    public SourceUnavailableException(String source, String message) {
        super(message);
        this.source = source;
    }

    public String source() {
        return source;
    }
}
