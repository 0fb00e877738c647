package dev.deja.engine;

import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * YAML parsing of catalog files, kept apart so that loading the compiled catalog never loads
 * SnakeYAML.
 */
final class CatalogYaml {
    private CatalogYaml() {}

    @SuppressWarnings("unchecked")
    static Map<String, Object> parse(String text, String display) {
        try {
            LoaderOptions opts = new LoaderOptions();
            opts.setAllowDuplicateKeys(false);
            Object o = new Yaml(new SafeConstructor(opts)).load(text);
            if (!(o instanceof Map)) {
                throw new CatalogException(display + ": expected a mapping at the top level");
            }
            return (Map<String, Object>) o;
        } catch (RuntimeException e) {
            if (e instanceof CatalogException) {
                throw e;
            }
            throw new CatalogException(
                    display + ": not valid YAML: " + Catalog.firstLine(e.getMessage()));
        }
    }

    /** A value of a rule's fix as one line of flow YAML, for the compiled catalog. */
    static String dump(Object value) {
        DumperOptions d = new DumperOptions();
        d.setDefaultFlowStyle(DumperOptions.FlowStyle.FLOW);
        d.setWidth(Integer.MAX_VALUE);
        return new Yaml(d).dump(value).strip();
    }

    /** What {@link #dump} wrote, read back (when a fix is applied, never at start-up). */
    static Object value(String yaml) {
        return new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
    }
}
