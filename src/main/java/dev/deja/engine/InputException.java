package dev.deja.engine;

/**
 * Bad user input: a file that cannot be parsed, an unknown option value. The message is one line
 * and names the file:line or object; the CLI prints it without a stack trace and exits 2.
 */
public class InputException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InputException(String message) {
        super(message);
    }

    public InputException(String message, Throwable cause) {
        super(message, cause);
    }
}
