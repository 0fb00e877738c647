package dev.deja.cli;

import dev.deja.engine.Catalog;
import dev.deja.engine.Engine;
import dev.deja.engine.Rule;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.engine.SourceKind;
import dev.deja.report.JsonReporter;
import dev.deja.report.Report;
import dev.deja.rules.RuleRegistry;
import dev.deja.source.kube.KubeClients;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A head start for a live cluster scan, run by {@code Main} on a second thread while the main
 * thread parses the command line (about 0.1 s of a scan's start-up): the HTTP client, the list
 * parser and the views, then the Kubernetes rules and the JSON report over one sample Deployment,
 * so that their classes are loaded and initialised before the real scan needs them. Its results are
 * thrown away; it reads nothing but the JDK's own files.
 */
public final class WarmUp {
    private WarmUp() {}

    /**
     * Whether the scan reads a config file: {@code --config} given, or a deja.yaml (or .deja.yaml)
     * in the working directory that discovery finds first (a parent folder's is left to the scan).
     */
    public static boolean readsConfigFile(List<String> args) {
        if (args.contains("--no-config")) {
            return false;
        }
        for (String a : args) {
            if (a.equals("--config") || a.startsWith("--config=")) {
                return true;
            }
        }
        for (String name : ConfigOptions.CONFIG_NAMES) {
            if (Files.isRegularFile(Path.of(name))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The YAML reader of deja.yaml made ready on a sample (SnakeYAML's first document costs a cold
     * JVM about 25 ms: its resolver's patterns, scanner and constructors), in the two ways a scan
     * reads the file: its {@code rulesDirs:} first, then the whole file.
     */
    public static void configFile() {
        ConfigFile.rulesDirsOf("rulesDirs: [rules]\n");
        ConfigFile.parse(
                "failOn: none\nrules:\n  minSeverity: low\nsources:\n  haproxy:\n    env: {A: b}\n",
                "deja.yaml",
                Path.of(""),
                Catalog.packaged());
    }

    public static void liveCluster() {
        SnapshotBuilder sample = new SnapshotBuilder();
        KubeClients.warmUp(sample);
        Catalog catalog = Catalog.packaged();
        List<Rule> rules = RuleRegistry.of(SourceKind.KUBERNETES);
        ScanResult result =
                new Engine(catalog).run(sample.build(), rules, Engine.Options.defaults());
        try {
            new JsonReporter()
                    .write(
                            new Report(
                                    result,
                                    catalog,
                                    VersionProvider.version(),
                                    Severity.MEDIUM,
                                    false),
                            Writer.nullWriter());
        } catch (IOException e) {
            throw new UncheckedIOException(e); // the null writer does not fail
        }
    }
}
