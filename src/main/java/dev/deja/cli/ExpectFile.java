package dev.deja.cli;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Reads a test folder's expect.yaml for {@code deja rules test}: a class of its own, so that {@code
 * deja rules} (which knows the test command) loads no YAML parser.
 */
final class ExpectFile {
    private ExpectFile() {}

    static Object load(String text) {
        return new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
    }
}
