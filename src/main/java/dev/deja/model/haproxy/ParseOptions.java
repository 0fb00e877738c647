package dev.deja.model.haproxy;

import java.util.function.Function;

/**
 * What the parser needs to know from outside the text: the value of a variable for {@code
 * "${NAME}"} (null when unset) and the HAProxy version {@code .if} blocks are decided with (null:
 * {@link HaproxyParser#DEFAULT_VERSION}). The sources build it from the scan request ({@code
 * --env}, the environment, {@code --haproxy-version}); the parser itself reads nothing.
 */
public record ParseOptions(Function<String, String> variable, String version) {
    /** No variable set, the default version. */
    public static final ParseOptions NONE = new ParseOptions(n -> null, null);

    public ParseOptions {
        variable = variable == null ? n -> null : variable;
    }
}
