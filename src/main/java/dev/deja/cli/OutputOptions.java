package dev.deja.cli;

import dev.deja.engine.InputException;
import dev.deja.engine.Severity;
import dev.deja.report.sink.ReportStore;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code deja scan}'s outcome and outputs: the exit code's threshold, the report's formats and
 * destinations (files, S3, a ConfigMap), the baseline and the deliveries (logic in {@link Outputs},
 * {@link BaselineSources}, {@link Deliveries}).
 */
final class OutputOptions {
    String failOn;

    boolean allowPartial;

    /** --format, -o, --output: shared with {@code deja report merge}. */
    final ReportOutputOptions report = new ReportOutputOptions();

    String s3Endpoint;

    Path snapshotOut;

    String baseline;

    String reportConfigMap;

    String notify;

    String pushgateway;

    /** The options above, for picocli (see {@link Opt}). */
    void declare(CommandSpec s) {
        s.addOption(
                Opt.named("--fail-on")
                        .label("SEVERITY|none")
                        .defaultValue("medium")
                        .description(
                                "Exit 1 when a finding is at or above this severity; 'none' never fails (default: ${DEFAULT-VALUE})")
                        .value(String.class, this, "failOn"));
        s.addOption(
                Opt.named("--allow-partial")
                        .negatable()
                        .description(
                                "Do not exit 3 when some source or kind could not be read, nor stop at a file that cannot be read or parsed (it is listed as not checked) (--no-allow-partial: exit 3 even when deja.yaml says allowPartial)")
                        .flag(this, "allowPartial"));
        Opt.mixin(s, "report", report::declare);
        s.addOption(
                Opt.named("--s3-endpoint")
                        .label("URL")
                        .description(
                                "S3 endpoint for s3:// outputs (S3-compatible stores such as MinIO; path-style addressing)")
                        .value(String.class, this, "s3Endpoint"));
        s.addOption(
                Opt.named("--snapshot-out")
                        .label("FILE")
                        .description(
                                "Save what was read (live sources included) to FILE; scan it later offline with 'deja scan FILE'")
                        .value(Path.class, this, "snapshotOut"));
        s.addOption(
                Opt.named("--baseline")
                        .label("FILE|configmap:NS/NAME")
                        .description(
                                "A previous JSON report (a file, or the ConfigMap kept by --report-configmap): only findings not in it count for the exit code and --notify; the report marks them new (none yet: everything is new)")
                        .value(String.class, this, "baseline"));
        s.addOption(
                Opt.named("--report-configmap")
                        .label("NAMESPACE/NAME")
                        .description(
                                "Keep the latest report in this ConfigMap (keys deja.json and summary.txt; created when absent); a failed write is one line on stderr, the other outputs are still written, and the exit code is 2")
                        .value(String.class, this, "reportConfigMap"));
        s.addOption(
                Opt.named("--notify")
                        .label("URL|env:VAR")
                        .description(
                                "POST the new findings as JSON with a Slack-compatible 'text' (nothing when nothing is new); a failure is reported on stderr and does not change the exit code")
                        .value(String.class, this, "notify"));
        s.addOption(
                Opt.named("--pushgateway")
                        .label("URL|env:VAR")
                        .description(
                                "PUT the Prometheus metrics to this Pushgateway (group URL/metrics/job/deja unless the URL names one); a failure is reported on stderr and does not change the exit code")
                        .value(String.class, this, "pushgateway"));
    }

    /** --fail-on as a severity; null for 'none'. */
    Severity failSeverity() {
        return failSeverity(failOn);
    }

    /** A --fail-on value (deja scan's, deja report merge's) as a severity; null for 'none'. */
    static Severity failSeverity(String failOn) {
        try {
            return "none".equalsIgnoreCase(failOn) ? null : Severity.parse(failOn);
        } catch (IllegalArgumentException e) {
            throw new InputException(
                    "--fail-on: unknown severity '"
                            + failOn
                            + "' (expected info, low, medium, high, critical or none)");
        }
    }

    /**
     * Whether this run writes to or reads from the cluster besides scanning it (--report-configmap,
     * a ConfigMap baseline).
     */
    boolean usesCluster() {
        return reportConfigMap != null || baseline != null && baseline.startsWith("configmap:");
    }

    /**
     * Whether an --output goes to S3 (then --profile and --region choose its credentials and
     * region).
     */
    boolean usesS3() {
        return report.usesS3();
    }

    /**
     * The report's destinations, checked before any work (unknown formats, a bad --s3-endpoint:
     * exit 2).
     */
    Outputs plan(Cli.Io io, AwsOptions aws, boolean verbose) {
        Outputs outs =
                report.plan(
                        io,
                        () ->
                                new ReportStore.Options(
                                        aws.profiles.isEmpty() ? null : aws.profiles.get(0),
                                        aws.firstRegion(),
                                        ReportOutputOptions.s3Endpoint(s3Endpoint),
                                        io.env(),
                                        verbose));
        if (s3Endpoint != null && !outs.usesS3()) {
            throw new InputException(
                    "--s3-endpoint: only with an s3:// output (--output json=s3://BUCKET/KEY)");
        }
        return outs;
    }

    /** The local files this run writes, by the option that names them (for {@link NoOverwrite}). */
    Map<String, Path> files() {
        Map<String, Path> outs = new LinkedHashMap<>();
        if (report.outputFile != null) {
            outs.put("-o " + report.outputFile, report.outputFile);
        }
        for (String spec : report.outputs) { // FORMAT=PATH, checked by Outputs.plan
            if (ReportStore.S3Uri.is(ReportOutputOptions.path(spec))) {
                continue; // not a local file
            }
            outs.put("--output " + spec, Path.of(ReportOutputOptions.path(spec).strip()));
        }
        if (snapshotOut != null) {
            outs.put("--snapshot-out " + snapshotOut, snapshotOut);
        }
        return outs;
    }

    /** The baseline file this run reads, or null (none, or a ConfigMap). */
    Path baselineFile() {
        return baseline == null || baseline.startsWith("configmap:") ? null : Path.of(baseline);
    }
}
