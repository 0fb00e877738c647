package dev.deja.report;

import dev.deja.engine.InputException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Output formats by name. Each is registered by its constructor reference: the compiler checks the
 * edge, and a format's class is loaded only when that format is written (a method reference loads
 * its class when it is first called, not when the map is built).
 */
public final class Reporters {
    private static final Map<String, Supplier<Reporter>> FORMATS = new LinkedHashMap<>();

    static {
        FORMATS.put("text", TextReporter::new);
        FORMATS.put("json", JsonReporter::new);
        FORMATS.put("sarif", SarifReporter::new);
        FORMATS.put("junit", JunitReporter::new);
        FORMATS.put("html", HtmlReporter::new);
        FORMATS.put("prometheus", PrometheusReporter::new);
        FORMATS.put("github", GithubReporter::new);
        FORMATS.put("table", TableReporter::new);
    }

    private Reporters() {}

    /** Formats this build can write, in the order the help lists them. */
    public static Set<String> available() {
        return new LinkedHashSet<>(FORMATS.keySet());
    }

    public static Reporter forName(String format) {
        Supplier<Reporter> make =
                format == null ? null : FORMATS.get(format.toLowerCase(Locale.ROOT));
        if (make != null) {
            return make.get();
        }
        throw new InputException(
                "unknown format '"
                        + format
                        + "' (expected "
                        + String.join(", ", available())
                        + ")");
    }
}
