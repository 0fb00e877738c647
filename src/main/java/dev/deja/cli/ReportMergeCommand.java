package dev.deja.cli;

import dev.deja.engine.Catalog;
import dev.deja.engine.InputException;
import dev.deja.engine.Severity;
import dev.deja.report.FleetMerge;
import dev.deja.report.Report;
import dev.deja.report.sink.ReportStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code deja report merge REPORT...}: the JSON reports of many scheduled scans (files, folders,
 * {@code s3://} prefixes) into one fleet report in any format. The latest report of each target
 * wins; the same finding on several targets is one finding listing them; targets whose latest
 * report is older than {@code --stale} are flagged.
 */
public final class ReportMergeCommand implements Callable<Integer> {
    private static final String[] DESCRIPTION = {
        "Merge the JSON reports of many scans (one per cluster or account, e.g. written by scheduled"
                + " scans with --output json=s3://...) into one fleet report.",
        "A target is the cluster/account a report names, else the folder (or S3 prefix) it is found under, else"
                + " its file name (a date-named file: its folder). Its latest report (by modification time) wins."
    };

    private final Cli.Io io;

    ReportMergeCommand(Cli.Io io) {
        this.io = io;
    }

    List<String> inputs = new ArrayList<>();

    /** --format, -o, --output: as {@code deja scan}'s. */
    final ReportOutputOptions out = new ReportOutputOptions();

    String stale;

    String asOf;

    String failOn;

    boolean allowPartial;

    String profile;

    String region;

    String s3Endpoint;

    boolean verbose;

    /** The command for picocli (see {@link Opt}). */
    CommandSpec spec() {
        CommandSpec s = Opt.command(this, "merge", DESCRIPTION);
        s.usageMessage().sortOptions(false);
        s.addPositional(
                Opt.positionalStrings(
                        "REPORT",
                        "1..*",
                        "JSON reports: files, folders (every *.json below, recursively) or s3://BUCKET/PREFIX/",
                        this,
                        "inputs"));
        Opt.mixin(s, "out", out::declare);
        s.addOption(
                Opt.named("--stale")
                        .label("DURATION")
                        .defaultValue("48h")
                        .description(
                                "Flag a target whose latest report is older than this: 48h, 2d, 90m (default: ${DEFAULT-VALUE})")
                        .value(String.class, this, "stale"));
        s.addOption(
                Opt.named("--as-of")
                        .label("TIME")
                        .description(
                                "Judge ages and staleness as of this time (ISO-8601, e.g. 2026-12-01T06:00:00Z; default: now)")
                        .value(String.class, this, "asOf"));
        s.addOption(
                Opt.named("--fail-on")
                        .label("SEVERITY|none")
                        .defaultValue("none")
                        .description(
                                "Exit 1 when a merged finding is at or above this severity (default: ${DEFAULT-VALUE})")
                        .value(String.class, this, "failOn"));
        s.addOption(
                Opt.named("--allow-partial")
                        .description(
                                "Do not exit 3 for stale targets or targets whose scan was incomplete")
                        .flag(this, "allowPartial"));
        s.addOption(
                Opt.named("--profile")
                        .label("NAME")
                        .description("AWS profile for s3:// inputs and outputs")
                        .value(String.class, this, "profile"));
        s.addOption(
                Opt.named("--region")
                        .label("REGION")
                        .description(
                                "AWS region of the S3 client (default: AWS_REGION, the profile's)")
                        .value(String.class, this, "region"));
        s.addOption(
                Opt.named("--s3-endpoint")
                        .label("URL")
                        .description("S3-compatible endpoint (path-style addressing)")
                        .value(String.class, this, "s3Endpoint"));
        s.addOption(
                Opt.named("--verbose")
                        .description("Library logging on stderr; stack traces for internal errors")
                        .flag(this, "verbose"));
        Opt.standardHelpOptions(s);
        return s;
    }

    private ReportStore store;

    @Override
    public Integer call() {
        Duration staleAfter;
        try {
            staleAfter = FleetMerge.parseDuration(stale);
        } catch (IllegalArgumentException e) {
            throw new InputException("--stale: " + e.getMessage());
        }
        Instant now = asOfTime();
        Severity fail = OutputOptions.failSeverity(failOn);
        if (region != null && !region.strip().matches("[a-z]{2}(-[a-z]+)+-\\d+")) {
            throw new InputException(
                    "--region " + region + ": not an AWS region name (e.g. eu-west-2)");
        }
        ReportOutputOptions.s3Endpoint(s3Endpoint); // a bad URL: exit 2 before any work
        Outputs outs = out.plan(io, this::options);
        List<FleetMerge.Input> found = new ArrayList<>();
        for (String in : inputs) {
            found.addAll(ReportStore.S3Uri.is(in) ? s3(in) : local(in));
        }
        FleetMerge merge =
                new FleetMerge(now, staleAfter, VersionProvider.version())
                        .addAll(
                                found,
                                inputs.stream().anyMatch(ReportStore.S3Uri::is)
                                        ? 8
                                        : 1); // S3: 8 GETs at a time
        Report report = merge.report(Catalog.packaged(), VersionProvider.version(), fail);
        for (String e : merge.errors()) {
            io.err().println("deja: " + e);
        }
        outs.write(report, io.err()); // a failed output: exit 2
        String line = outs.fileSummary(report);
        if (line != null) {
            io.err()
                    .println(
                            line.replaceFirst(
                                    "^deja: ",
                                    "deja: fleet of "
                                            + report.fleet().targets().size()
                                            + (report.fleet().targets().size() == 1
                                                    ? " target: "
                                                    : " targets: ")));
        }
        if (!merge.errors().isEmpty()) {
            io.err()
                    .println(
                            "deja: "
                                    + merge.errors().size()
                                    + (merge.errors().size() == 1 ? " input is" : " inputs are")
                                    + " not a deja JSON report and "
                                    + (merge.errors().size() == 1 ? "was" : "were")
                                    + " not merged (named above)");
            return ExitCodes.USAGE;
        }
        if (!report.result().coverage().complete() && !allowPartial) {
            incompleteLine(report, staleAfter);
            return ExitCodes.INCOMPLETE;
        }
        return report.failed() ? ExitCodes.FINDINGS : ExitCodes.OK;
    }

    /** --as-of, else now. */
    private Instant asOfTime() {
        try {
            return asOf == null ? Instant.now() : Instant.parse(asOf.strip());
        } catch (DateTimeParseException e) {
            throw new InputException(
                    "--as-of " + asOf + ": not an ISO-8601 time (e.g. 2026-12-01T06:00:00Z)");
        }
    }

    /**
     * Says why the fleet is incomplete: stale targets, targets whose latest scan was incomplete.
     */
    private void incompleteLine(Report report, Duration staleAfter) {
        long staleN = report.fleet().staleCount();
        long incomplete = report.fleet().targets().stream().filter(t -> !t.complete()).count();
        List<String> why = new ArrayList<>();
        if (staleN > 0) {
            why.add(
                    staleN
                            + (staleN == 1 ? " target has" : " targets have")
                            + " no report newer than --stale "
                            + FleetMerge.duration(staleAfter));
        }
        if (incomplete > 0) {
            why.add(
                    incomplete
                            + (incomplete == 1 ? " target's" : " targets'")
                            + " latest scan was incomplete");
        }
        io.err()
                .println(
                        "deja: fleet incomplete: "
                                + String.join(", ", why)
                                + " (see the report; --allow-partial"
                                + " accepts this)");
    }

    private ReportStore.Options options() {
        return new ReportStore.Options(
                profile,
                region == null ? null : region.strip(),
                ReportOutputOptions.s3Endpoint(s3Endpoint),
                io.env(),
                verbose);
    }

    private synchronized ReportStore store() {
        if (store == null) {
            store = ReportStore.s3(options());
        }
        return store;
    }

    /** The reports under an S3 prefix (every page), or the one object the URI names. */
    private List<FleetMerge.Input> s3(String arg) {
        ReportStore.S3Uri uri = ReportStore.S3Uri.parse(arg, arg);
        List<ReportStore.Item> items;
        try {
            items = store().list(uri.bucket(), uri.key());
        } catch (IOException e) {
            throw new InputException(uri + ": cannot list the reports: " + e.getMessage());
        }
        List<FleetMerge.Input> out = new ArrayList<>();
        String prefix = uri.key();
        if (items.stream().anyMatch(i -> i.key().equals(uri.key()) && !uri.key().isEmpty())) {
            items =
                    items.stream()
                            .filter(i -> i.key().equals(uri.key()))
                            .toList(); // the URI names one object
            prefix = uri.key().substring(0, uri.key().lastIndexOf('/') + 1);
        } else if (!prefix.isEmpty() && !prefix.endsWith("/")) {
            String p = prefix + "/";
            items =
                    items.stream()
                            .filter(i -> i.key().startsWith(p))
                            .toList(); // deja/prod, not deja/prod-old
            prefix = p;
        }
        List<String> ignored = new ArrayList<>();
        String root =
                prefix.isEmpty()
                        ? uri.bucket()
                        : lastSegment(prefix.substring(0, prefix.length() - 1));
        for (ReportStore.Item i : items) {
            if (!i.key().toLowerCase(Locale.ROOT).endsWith(".json")) {
                if (!i.key().endsWith("/")) { // "folder" placeholder objects are not files
                    ignored.add(i.key());
                }
                continue;
            }
            String origin = "s3://" + uri.bucket() + "/" + i.key();
            String bucket = uri.bucket();
            out.add(
                    new FleetMerge.Input(
                            origin,
                            i.lastModified(),
                            placeTarget(i.key().substring(prefix.length()), root),
                            () -> store().get(bucket, i.key())));
        }
        ignoredLine(ignored, uri.toString(), "objects");
        if (out.isEmpty()) {
            throw new InputException(uri + ": no .json report there");
        }
        return out;
    }

    private List<FleetMerge.Input> local(String arg) {
        Path p = Path.of(arg);
        if (Files.isRegularFile(p)) {
            Path parent = p.toAbsolutePath().getParent();
            return List.of(
                    file(
                            p,
                            placeTarget(
                                    p.getFileName().toString(),
                                    parent == null || parent.getFileName() == null
                                            ? null
                                            : parent.getFileName().toString())));
        }
        if (!Files.isDirectory(p)) {
            throw new InputException(arg + ": no such file or folder");
        }
        List<Path> files;
        try (Stream<Path> s = Files.walk(p)) {
            files = s.filter(Files::isRegularFile).sorted().toList();
        } catch (IOException | UncheckedIOException e) {
            throw new InputException(arg + ": cannot read the folder: " + e.getMessage());
        }
        List<FleetMerge.Input> out = new ArrayList<>();
        List<String> ignored = new ArrayList<>();
        Path abs = p.toAbsolutePath().normalize();
        String root = abs.getFileName() == null ? null : abs.getFileName().toString();
        for (Path f : files) {
            String rel = p.relativize(f).toString().replace('\\', '/');
            if (!rel.toLowerCase(Locale.ROOT).endsWith(".json")) {
                ignored.add(rel);
                continue;
            }
            out.add(file(f, placeTarget(rel, root)));
        }
        ignoredLine(ignored, arg, "files");
        if (out.isEmpty()) {
            throw new InputException(arg + ": no .json report in this folder");
        }
        return out;
    }

    private static FleetMerge.Input file(Path f, String target) {
        Instant t;
        try {
            t = Files.getLastModifiedTime(f).toInstant();
        } catch (IOException e) {
            throw new InputException(f + ": cannot read: " + e.getMessage());
        }
        return new FleetMerge.Input(f.toString(), t, target, () -> Files.readAllBytes(f));
    }

    /** Files that are not reports are said, never skipped silently. */
    private void ignoredLine(List<String> ignored, String where, String what) {
        if (!ignored.isEmpty()) {
            io.err()
                    .println(
                            "deja: "
                                    + where
                                    + ": left out "
                                    + ignored.size()
                                    + " "
                                    + (ignored.size() == 1
                                            ? what.substring(0, what.length() - 1) + " that is"
                                            : what + " that are")
                                    + " not .json ("
                                    + String.join(
                                            ", ", ignored.subList(0, Math.min(3, ignored.size())))
                                    + (ignored.size() > 3 ? ", ..." : "")
                                    + ")");
        }
    }

    /**
     * The target a report's place names: its folders below the merged folder or prefix
     * ("prod-eu/2026-12-01.json" is prod-eu); a report directly in it is its file name without
     * .json, unless that name starts with a digit (a date: the report of the folder's own target,
     * {@code root}).
     */
    static String placeTarget(String relative, String root) {
        int slash = relative.lastIndexOf('/');
        if (slash > 0) {
            return relative.substring(0, slash);
        }
        String name = relative.substring(slash + 1);
        if (name.toLowerCase(Locale.ROOT).endsWith(".json")) {
            name = name.substring(0, name.length() - 5);
        }
        return !name.isEmpty() && Character.isDigit(name.charAt(0)) && root != null ? root : name;
    }

    private static String lastSegment(String s) {
        return s.substring(s.lastIndexOf('/') + 1);
    }
}
