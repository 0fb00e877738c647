package dev.deja.model.haproxy;

import dev.deja.engine.InputException;

/**
 * The one error the HAProxy parser throws: a configuration that HAProxy itself would refuse to read
 * (unterminated quote, bad escape, unbalanced {@code .if}/{@code .endif}, a line too long). The
 * message is one line and always starts with {@code file:line: }.
 */
public final class HaproxyParseException extends InputException {
    private static final long serialVersionUID = 1L;
    private final String file;
    private final int line;

    public HaproxyParseException(String file, int line, String message) {
        super(file + ":" + line + ": " + message);
        this.file = file;
        this.line = line;
    }

    public String file() {
        return file;
    }

    public int line() {
        return line;
    }
}
