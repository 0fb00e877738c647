package dev.deja.cli;

import dev.deja.engine.Catalog;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code deja scan --config deja.yaml}, or the deja.yaml found in the working directory or its
 * repository.
 */
final class ConfigOptions {
    /** The names a config file is found by when --config is not given, in this order. */
    static final List<String> CONFIG_NAMES = List.of(".deja.yaml", "deja.yaml");

    Path config;

    boolean noConfig;

    boolean untrustedConfig;

    /** The options above, for picocli (see {@link Opt}). */
    void declare(CommandSpec s) {
        s.addOption(
                Opt.named("--config")
                        .label("FILE")
                        .description(
                                "deja.yaml: sources, rules, severity overrides, suppressions, outputs; options given here override it. Without it, .deja.yaml or deja.yaml is looked for in the working directory, then its parents up to the repository root")
                        .value(Path.class, this, "config"));
        s.addOption(
                Opt.named("--no-config")
                        .description(
                                "Read no config file: neither .deja.yaml nor deja.yaml is looked for (--config is then an error)")
                        .flag(this, "noConfig"));
        s.addOption(
                Opt.named("--untrusted-config")
                        .description(
                                "The config file may come from the change being scanned (a pull request): it may say how to judge (rules, parameters, severities, suppressions, failOn, paths inside its folder) but a key that sends, writes or reads a live system (outputs, notify, pushgateway, snapshotOut, reportConfigMap, cluster, aws, prometheus, haproxyRuntime, configMaps) or a path out of its folder is an error naming file:line (exit 2). The GitHub Action passes it")
                        .flag(this, "untrustedConfig"));
    }

    /** The config file in use (given or found), once {@link #load} ran; null when there is none. */
    Path path;

    /** The config file given or found (found: one line on stderr saying which), or null. */
    ConfigFile load(Catalog catalog, PrintWriter err) {
        path = config;
        if (noConfig) {
            if (config != null) {
                throw new dev.deja.engine.InputException(
                        "--no-config and --config " + config + " contradict each other: give one");
            }
            return null;
        }
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
        return path == null ? null : ConfigFile.load(path, catalog, untrustedConfig);
    }

    /**
     * The rule folders the config file names ({@code rulesDirs:}), read before the rest of it (its
     * rules: section may tune those rules); none without a config file.
     */
    List<Path> rulesDirs(PrintWriter err) {
        if (noConfig) {
            return List.of();
        }
        Path p = config != null ? config : discoverConfig(Path.of("").toAbsolutePath());
        return p == null ? List.of() : ConfigFile.rulesDirs(p, untrustedConfig);
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
