package dev.deja.cli;

import dev.deja.engine.Catalog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Lets tests outside the package validate a deja.yaml with the real parser and the packaged
 * catalog.
 */
public final class ConfigFileAccess {
    private ConfigFileAccess() {}

    public static void check(String yaml, String display) {
        ConfigFile.parse(yaml, display, Path.of("/etc/deja"), Catalog.packaged());
    }

    public static List<String> outputPaths(String yaml) {
        ConfigFile c =
                ConfigFile.parse(yaml, "deja.yaml", Path.of("/etc/deja"), Catalog.packaged());
        List<String> out = new ArrayList<>();
        if (c.option("--output") != null) {
            c.option("--output").forEach(o -> out.add(o.substring(o.indexOf('=') + 1)));
        }
        return out;
    }
}
