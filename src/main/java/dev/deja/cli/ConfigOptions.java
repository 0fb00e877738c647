package dev.deja.cli;

import dev.deja.engine.Catalog;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code deja scan --config deja.yaml}, or the deja.yaml found in the working directory or its
 * repository.
 */
final class ConfigOptions {
    /** The names a config file is found by when --config is not given, in this order. */
    static final List<String> CONFIG_NAMES = List.of(".deja.yaml", "deja.yaml");

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description =
                    "deja.yaml: sources, rules, severity overrides, suppressions, outputs; options given here override"
                            + " it. Without it, .deja.yaml or deja.yaml is looked for in the working directory, then its parents"
                            + " up to the repository root")
    Path config;

    /** The config file in use (given or found), once {@link #load} ran; null when there is none. */
    Path path;

    /** The config file given or found (found: one line on stderr saying which), or null. */
    ConfigFile load(Catalog catalog, PrintWriter err) {
        path = config;
        if (path == null) {
            path = discoverConfig(Path.of("").toAbsolutePath());
            if (path != null) {
                err.println(
                        "deja: using the config file "
                                + path
                                + " (found in "
                                + (path.getParent() == null
                                        ? "the working directory"
                                        : "a parent folder")
                                + "; --config FILE picks another)");
            }
        }
        return path == null ? null : ConfigFile.load(path, catalog);
    }

    /**
     * The rule folders the config file names ({@code rulesDirs:}), read before the rest of it (its
     * rules: section may tune those rules); none without a config file.
     */
    List<Path> rulesDirs(PrintWriter err) {
        Path p = config != null ? config : discoverConfig(Path.of("").toAbsolutePath());
        return p == null ? List.of() : ConfigFile.rulesDirs(p);
    }

    /**
     * {@code .deja.yaml} or {@code deja.yaml} in {@code cwd}, else in its parents up to the
     * repository root (the first folder with a {@code .git}); outside a repository only {@code cwd}
     * is looked at. Relative to {@code cwd} ("deja.yaml", "../.deja.yaml"), or null.
     */
    static Path discoverConfig(Path cwd) {
        boolean inRepo = false;
        for (Path d = cwd; d != null; d = d.getParent()) {
            if (Files.exists(d.resolve(".git"))) {
                inRepo = true;
                break;
            }
        }
        for (Path d = cwd; d != null; d = d.getParent()) {
            for (String n : CONFIG_NAMES) {
                if (Files.isRegularFile(d.resolve(n))) {
                    return cwd.relativize(d.resolve(n));
                }
            }
            if (!inRepo || Files.exists(d.resolve(".git"))) {
                return null;
            }
        }
        return null;
    }
}
