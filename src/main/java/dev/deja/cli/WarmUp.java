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
