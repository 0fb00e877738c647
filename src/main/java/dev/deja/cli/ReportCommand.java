package dev.deja.cli;

import dev.deja.engine.InputException;
import dev.deja.report.sink.ConfigMapReportReader;
import dev.deja.source.OpenDeadline;
import dev.deja.source.ScanRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code deja report --from-configmap NAMESPACE/NAME [-o report.html]}: fetches the HTML report a
 * scheduled scan kept in its report ConfigMap, so that it can be read after the job's pod (and its
 * emptyDir) is gone.
 */
@Command(
        name = "report",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {
            "Fetch the latest HTML report a scheduled scan kept in its report ConfigMap (--report-configmap).",
            "'deja report merge REPORT...' merges the JSON reports of many scans into one fleet report."
        })
public final class ReportCommand implements Callable<Integer> {
    private final Cli.Io io;

    @Option(
            names = "--from-configmap",
            paramLabel = "NAMESPACE/NAME",
            description = "The report ConfigMap (e.g. deja/deja-report)")
    String fromConfigMap;

    @Option(
            names = {"-o", "--output-file"},
            paramLabel = "FILE",
            description = "Write the HTML here (default: stdout)")
    Path output;

    @Option(
            names = "--kubeconfig",
            paramLabel = "FILE",
            description = "Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)")
    Path kubeconfig;

    @Option(
            names = "--context",
            paramLabel = "NAME",
            description = "Kubeconfig context (default: current-context)")
    String context;

    public ReportCommand(Cli.Io io) {
        this.io = io;
    }

    @Override
    public Integer call() {
        if (fromConfigMap == null) {
            throw new InputException(
                    "report: give --from-configmap NAMESPACE/NAME, or merge reports with"
                            + " 'deja report merge REPORT...'");
        }
        String v = fromConfigMap.strip();
        if (!v.matches(Outputs.DNS_NAME + "/" + Outputs.DNS_NAME)) {
            throw new InputException(
                    "--from-configmap "
                            + fromConfigMap
                            + ": expected NAMESPACE/NAME, e.g. deja/deja-report");
        }
        int slash = v.indexOf('/');
        ScanRequest.Builder b = ScanRequest.builder();
        b.kubeconfig = kubeconfig;
        b.context = context;
        b.processEnv = io.env();
        b.err = io.err();
        ScanRequest req = b.build();
        String html =
                ConfigMapReportReader.html(v.substring(0, slash), v.substring(slash + 1), req);
        if (output == null || output.toString().equals("-")) {
            io.out().write(html);
            io.out().flush();
        } else {
            try {
                Path parent = output.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                OpenDeadline.writeString(output, html, OpenDeadline.millis(io.env()));
            } catch (IOException e) {
                throw new InputException(
                        "-o " + output + ": cannot write the report: " + e.getMessage());
            }
            io.err().println("deja: report of " + v + " written to " + output);
        }
        return ExitCodes.OK;
    }
}
