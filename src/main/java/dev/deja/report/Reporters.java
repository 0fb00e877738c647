package dev.deja.report;

import dev.deja.engine.InputException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Output formats by name; implementations are created by class name so that unused formats load
 * nothing.
 */
public final class Reporters {
    private static final Map<String, String> FORMATS = new LinkedHashMap<>();

    static {
        FORMATS.put("text", "dev.deja.report.TextReporter");
        FORMATS.put("json", "dev.deja.report.JsonReporter");
        FORMATS.put("sarif", "dev.deja.report.SarifReporter");
        FORMATS.put("junit", "dev.deja.report.JunitReporter");
        FORMATS.put("html", "dev.deja.report.HtmlReporter");
        FORMATS.put("prometheus", "dev.deja.report.PrometheusReporter");
        FORMATS.put("github", "dev.deja.report.GithubReporter");
        FORMATS.put("table", "dev.deja.report.TableReporter");
    }

    private Reporters() {}

    /** Formats this build can write. */
    public static Set<String> available() {
        Set<String> s = new LinkedHashSet<>();
        for (Map.Entry<String, String> e : FORMATS.entrySet()) {
            try {
                Class.forName(e.getValue(), false, Reporters.class.getClassLoader());
                s.add(e.getKey());
            } catch (ClassNotFoundException ex) {
                // format not built yet
            }
        }
        return s;
    }

    public static Reporter forName(String format) {
        String cls = format == null ? null : FORMATS.get(format.toLowerCase(Locale.ROOT));
        if (cls != null) {
            try {
                return (Reporter) Class.forName(cls).getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException e) {
                // fall through to the error below
            }
        }
        throw new InputException(
                "unknown format '"
                        + format
                        + "' (expected "
                        + String.join(", ", available())
                        + ")");
    }
}
