package dev.deja.report;

import dev.deja.engine.InputException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Output formats by name. Each is created in a switch branch: the compiler checks the edge, and a
 * format's class is loaded only when that format is written.
 */
public final class Reporters {
    /** The formats, in the order the help lists them; each has a branch in {@link #create}. */
    private static final List<String> FORMATS =
            List.of("text", "json", "sarif", "junit", "html", "prometheus", "github", "table");

    private Reporters() {}

    private static Reporter create(String format) {
        return switch (format) {
            case "text" -> new TextReporter();
            case "json" -> new JsonReporter();
            case "sarif" -> new SarifReporter();
            case "junit" -> new JunitReporter();
            case "html" -> new HtmlReporter();
            case "prometheus" -> new PrometheusReporter();
            case "github" -> new GithubReporter();
            case "table" -> new TableReporter();
            default -> null;
        };
    }

    /** Formats this build can write, in the order the help lists them. */
    public static Set<String> available() {
        return new LinkedHashSet<>(FORMATS);
    }

    public static Reporter forName(String format) {
        Reporter r = format == null ? null : create(format.toLowerCase(Locale.ROOT));
        if (r != null) {
            return r;
        }
        throw new InputException(
                "unknown format '"
                        + format
                        + "' (expected "
                        + String.join(", ", available())
                        + ")");
    }
}
