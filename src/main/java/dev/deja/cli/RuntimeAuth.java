package dev.deja.cli;

import dev.deja.engine.InputException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code --haproxy-runtime-auth FILE|env:VAR}: the "user:password" of a stats page behind {@code
 * stats auth}, from the first line of a file or from an environment variable, so that it never
 * shows in the process list. Errors name the file or variable, never the value.
 */
final class RuntimeAuth {
    private RuntimeAuth() {}

    /** The "user:password", or null when the option is not given. */
    static String read(String value, Map<String, String> env) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.strip();
        String where;
        String text;
        if (v.startsWith("env:")) {
            String var = v.substring(4);
            where = "environment variable " + var;
            text = env.get(var);
            if (text == null || text.isBlank()) {
                throw new InputException(
                        "--haproxy-runtime-auth " + v + ": " + where + " is not set");
            }
        } else {
            where = v;
            try {
                text = Files.readString(Path.of(v));
            } catch (NoSuchFileException e) {
                throw new InputException("--haproxy-runtime-auth " + v + ": no such file");
            } catch (AccessDeniedException e) {
                throw new InputException("--haproxy-runtime-auth " + v + ": permission denied");
            } catch (IOException | RuntimeException e) {
                throw new InputException(
                        "--haproxy-runtime-auth "
                                + v
                                + ": cannot read the file ("
                                + e.getClass().getSimpleName()
                                + ")");
            }
        }
        String line = text.strip().lines().findFirst().orElse("").strip();
        if (line.indexOf(':') <= 0) {
            throw new InputException(
                    "--haproxy-runtime-auth: "
                            + where
                            + " must hold user:password on its first line (as the stats page's 'stats auth user:password')");
        }
        return line;
    }
}
