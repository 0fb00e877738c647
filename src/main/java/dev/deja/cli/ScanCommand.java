package dev.deja.cli;

import dev.deja.collect.Collector;
import dev.deja.engine.Catalog;
import dev.deja.engine.Engine;
import dev.deja.engine.InputException;
import dev.deja.engine.Location;
import dev.deja.engine.Rule;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Settings;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SourceKind;
import dev.deja.engine.Suppressions;
import dev.deja.model.aws.AwsInventory;
import dev.deja.model.kube.FleetWorkloads;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.KubeScope;
import dev.deja.progress.Progress;
import dev.deja.prove.Prover;
import dev.deja.prove.ScanProofs;
import dev.deja.report.Baseline;
import dev.deja.report.Report;
import dev.deja.report.ScanNotes;
import dev.deja.rules.CrossLinks;
import dev.deja.source.InputFiles;
import dev.deja.source.ListDeadline;
import dev.deja.source.ScanRequest;
import dev.deja.source.ScanTrace;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/**
 * {@code deja scan}: read the sources, run the rules, report. The options come in groups (one mixin
 * per concern) that check themselves and fill the {@link ScanRequest}; deja.yaml gives the defaults
 * of those not on the command line ({@link ConfigFile#defaults}).
 */
public final class ScanCommand implements Callable<Integer> {
    private static final String[] DESCRIPTION = {
        "Scan HAProxy configs, Kubernetes manifests, saved snapshots, a live cluster (--cluster), AWS"
                + " load balancers (--aws) or HAProxy's live figures (--haproxy-runtime) for the risk patterns of real"
                + " incidents.",
        "Files are recognised by content; folders are read recursively; '-' reads standard input. A folder with"
                + " Chart.yaml is a Helm chart, rendered as 'helm template' would; a folder with kustomization.yaml"
                + " is built with 'kubectl kustomize'."
    };

    private final Cli.Io io;

    ScanCommand(Cli.Io io) {
        this.io = io;
    }

    List<String> paths = new ArrayList<>();

    final RuleOptions rules = new RuleOptions();

    final OutputOptions out = new OutputOptions();

    final FileOptions files = new FileOptions();

    final ProveOptions prove = new ProveOptions();

    final KubeOptions kube = new KubeOptions();

    final LiveProxyOptions live = new LiveProxyOptions();

    final AwsOptions aws = new AwsOptions();

    final FleetOptions fleet = new FleetOptions();

    final ConfigOptions config = new ConfigOptions();

    boolean verbose;

    CommandSpec spec;

    /** The command for picocli: its options, declared where they are kept (see {@link Opt}). */
    CommandSpec spec() {
        CommandSpec s = Opt.command(this, "scan", DESCRIPTION);
        s.usageMessage().sortOptions(false);
        s.addPositional(
                Opt.positionalStrings(
                        "PATH",
                        "0..*",
                        "haproxy.cfg files, manifests (YAML/JSON), deja snapshots, or folders of them; Helm chart"
                                + " and kustomize folders; '-' for stdin",
                        this,
                        "paths"));
        Opt.mixin(s, "rules", rules::declare);
        Opt.mixin(s, "out", out::declare);
        Opt.mixin(s, "files", files::declare);
        Opt.mixin(s, "prove", prove::declare);
        Opt.mixin(s, "kube", kube::declare);
        Opt.mixin(s, "live", live::declare);
        Opt.mixin(s, "aws", aws::declare);
        Opt.mixin(s, "fleet", fleet::declare);
        Opt.mixin(s, "config", config::declare);
        s.addOption(
                Opt.named("--verbose")
                        .description(
                                "Progress and library logging on stderr; stack traces for internal errors")
                        .flag(this, "verbose"));
        Opt.standardHelpOptions(s);
        spec = s;
        return s;
    }

    @Override
    public Integer call() throws IOException {
        if (verbose) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
        }
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        // a team's own rules (--rules-dir, else deja.yaml's rulesDirs): compiled before deja.yaml
        // is read, so that it may tune and enable them like built-in ones
        OwnRules own = ownRules(Catalog.packaged());
        try {
            return scan(own, started, t0);
        } catch (RuntimeException | IOException e) {
            // a rule of one's own that does not compile is reported first, as when the rules were
            // compiled before anything else
            own.compiled().run();
            throw e;
        }
    }

    private int scan(OwnRules own, Instant started, long t0) throws IOException {
        Catalog catalog = own.catalog();
        List<Rule> userRules = own.rules();
        ConfigFile configFile = config.load(catalog, io.err());
        if (configFile != null) {
            configFile.applyTo(
                    this, spec.commandLine()); // options not given take the file's values
        }
        Checked checked = checkOptions(catalog, userRules, configFile);
        Severity min = checked.min();
        Severity fail = checked.fail();
        List<Rule> selected = checked.selected();
        ScanRequest req = request(selected, configFile);
        if (kube.cluster || aws.aws) {
            ListDeadline.millis(io.env()); // a malformed DEJA_LIST_DEADLINE: exit 2 before any work
        }
        Outputs outs = out.plan(io, aws, verbose); // unknown formats: exit 2 before any work
        NoOverwrite.check(
                out.files(), paths, inputFiles(), io.env(), kube.cluster || out.usesCluster());
        String notifyUrl = Deliveries.url(out.notify, "--notify", io.env());
        String pushUrl = Deliveries.url(out.pushgateway, "--pushgateway", io.env());
        Suppressions ignores = ignores(catalog, configFile);
        Map<String, Severity> overrides =
                configFile == null ? Map.of() : configFile.severityOverrides;
        Prover.Options proveOptions = prove.options(files.assumeClientRps, io.env());
        List<FleetScan.Spec> specs =
                targets(req); // a context or profile that does not exist: exit 2 before any work
        if (out.reportConfigMap != null) {
            outs.add(
                    Outputs.configMap(
                            out.reportConfigMap,
                            req)); // bad NAMESPACE/NAME or kubeconfig: exit 2 early
        }
        Baseline base = baseline(req); // bad baseline: exit 2 early
        Engine.Options opts = engineOptions(min, overrides, ignores, configFile);
        Engine engine = new Engine(catalog);
        // a rule runs only over a source this scan read: HAProxy rules on a cluster-only scan would
        // "pass" unseen
        Function<Snapshot, ScanResult> judge = judge(engine, selected, opts);
        Read read = read(req, specs, afterCompile(own, req, specs, judge), base, selected);
        own.compiled().run(); // the rules ran: compiled (whatever path the read took)
        ScanResult result = read.result();
        Predicate<Location> inScope = read.inScope();
        String clusterRead = read.clusterRead();
        Map<String, String> contextNamespaces = read.contextNamespaces();
        if (io.status() != null) {
            io.status().clear(); // what was read is done: the report follows
        }
        warnUnusedSuppressions(ignores, result, opts.today());

        Report report =
                new Report(result, catalog, VersionProvider.version(), fail, false)
                        .withRun(
                                new Report.RunInfo(
                                        started,
                                        Duration.ofNanos(System.nanoTime() - t0),
                                        ScanScope.of(req, specs, clusterRead, contextNamespaces)));
        if (base != null) {
            report = withBaseline(report, base, result, inScope, contextNamespaces, specs);
        }
        if (proveOptions != null) {
            report = withEvidence(report, result, proveOptions);
        }
        write(outs, report, notifyUrl, pushUrl);
        return exitCode(report);
    }

    /**
     * The judging, once the rules of one's own are compiled: they compile while the inputs are read
     * ({@link #compilesWhileReading}, the judging waits for them), else before the read.
     */
    private static Function<Snapshot, ScanResult> afterCompile(
            OwnRules own,
            ScanRequest req,
            List<FleetScan.Spec> specs,
            Function<Snapshot, ScanResult> judge) {
        if (!compilesWhileReading(req, specs)) {
            own.compiled().run(); // before a snapshot is written, or a fleet's targets are judged
            return judge;
        }
        return snapshot -> {
            own.compiled().run();
            return judge.apply(snapshot);
        };
    }

    /** --baseline: the report to compare with, or null. */
    private Baseline baseline(ScanRequest req) {
        return out.baseline == null
                ? null
                : BaselineSources.load(BaselineSources.open(out.baseline, req), io.err());
    }

    /** --prove: the report with the evidence of the findings proved. */
    private Report withEvidence(Report report, ScanResult result, Prover.Options proveOptions)
            throws IOException {
        try (PrintWriter progress = ProveCommand.progress(io)) {
            return report.withEvidence(
                    ScanProofs.attach(result.findings(), proveOptions, io.env(), progress));
        }
    }

    /**
     * A team's own rules, and the catalog that lists them with the built-in ones; {@code compiled}
     * waits until their expressions are compiled (else throws the first that does not compile).
     */
    private record OwnRules(Catalog catalog, List<Rule> rules, Runnable compiled) {}

    /**
     * The rules of --rules-dir (else deja.yaml's rulesDirs) with the catalog that lists them too;
     * without any, the catalog as it is (no class of the CEL rules is loaded). Their expressions
     * compile on a thread of their own while the scan goes on.
     */
    private OwnRules ownRules(Catalog catalog) {
        List<Path> ruleDirs =
                rules.rulesDirs.isEmpty() ? config.rulesDirs(io.err()) : rules.rulesDirs;
        if (ruleDirs.isEmpty()) {
            return new OwnRules(catalog, List.of(), () -> {});
        }
        var started = UserRuleLoader.start(catalog, ruleDirs);
        return new OwnRules(started.catalog(), started.rules(), started::await);
    }

    /**
     * Whether the rules of one's own may finish compiling while the scan reads (files, a cluster, a
     * cloud account: reads only): unless it writes a snapshot file before its rules run, or judges
     * each context of a fleet apart (a rule that does not compile must be exit 2, not one failed
     * target). A rule that does not compile is exit 2 as soon as the read is done.
     */
    private static boolean compilesWhileReading(ScanRequest req, List<FleetScan.Spec> specs) {
        return specs.isEmpty() && req.snapshotOut == null;
    }

    /** The suppressions of --ignore-file and deja.yaml. */
    private Suppressions ignores(Catalog catalog, ConfigFile configFile) {
        Suppressions ignores =
                rules.ignoreFile == null
                        ? Suppressions.NONE
                        : InputFiles.suppressions(rules.ignoreFile, catalog);
        return configFile == null ? ignores : Deliveries.merge(ignores, configFile.suppressions);
    }

    /** The engine's options: severity floor and overrides, suppressions, the rules' settings. */
    private Engine.Options engineOptions(
            Severity min,
            Map<String, Severity> overrides,
            Suppressions ignores,
            ConfigFile configFile) {
        Map<String, String> knobs =
                new TreeMap<>(configFile == null ? Map.of() : configFile.ruleParameters);
        files.settings(knobs);
        fleet.settings(knobs);
        return new Engine.Options(
                min, overrides, ignores, new Settings(knobs), Engine.Options.todayHere());
    }

    /** The severities and rules the options select, once every option is checked (else exit 2). */
    private record Checked(Severity min, Severity fail, List<Rule> selected) {}

    /**
     * Checks every option group's values and the combinations they allow; an error a value of
     * deja.yaml caused names its file:line.
     */
    private Checked checkOptions(Catalog catalog, List<Rule> userRules, ConfigFile configFile) {
        ParseResult given = spec.commandLine().getParseResult();
        Severity min;
        Severity fail;
        List<Rule> selected;
        try {
            min = rules.minSeverity();
            fail = out.failSeverity();
            files.check();
            kube.check();
            selected = rules.select(catalog, userRules);
            live.check();
            aws.check();
            fleet.check();
            if (paths.isEmpty() && !kube.cluster && !aws.aws && !live.any()) {
                throw new InputException(
                        "nothing to scan: give a file or folder (deja scan haproxy.cfg), '-' for"
                                + " stdin, --cluster, --aws, --haproxy-runtime or --prometheus");
            }
            kube.checkApplies(given, out.usesCluster());
            aws.checkApplies(given, out.usesS3());
            live.checkApplies(given);
            files.checkHelmSet();
        } catch (InputException e) {
            // a value the config file gave (e.g. liveMetrics: true with enabled: false) names its
            // file:line
            throw configFile == null ? e : configFile.locate(e, given::hasMatchedOption);
        }
        return new Checked(min, fail, selected);
    }

    /** Judges a snapshot with the selected rules that read one of its parts. */
    private static Function<Snapshot, ScanResult> judge(
            Engine engine, List<Rule> selected, Engine.Options opts) {
        return snapshot ->
                engine.run(
                        snapshot,
                        selected.stream()
                                .filter(
                                        r ->
                                                r.parts().isEmpty()
                                                        || r.parts().stream()
                                                                .anyMatch(snapshot::has))
                                .toList(),
                        opts);
    }

    /**
     * What the scan read and judged: the result, what a baseline may call fixed, the context and
     * server read when the scan reads one cluster, and the namespaces contexts set.
     */
    private record Read(
            ScanResult result,
            Predicate<Location> inScope,
            String clusterRead,
            Map<String, String> contextNamespaces) {}

    /** Reads and judges one snapshot, or each target of a fleet in its own. */
    private Read read(
            ScanRequest req,
            List<FleetScan.Spec> specs,
            Function<Snapshot, ScanResult> judge,
            Baseline base,
            List<Rule> selected) {
        ScanResult result;
        Predicate<Location> inScope;
        String clusterRead; // the context and server read, when the scan reads one cluster
        Map<String, String> contextNamespaces = Map.of(); // by context, when a context set one
        if (specs.isEmpty()) {
            ScanTrace trace = new ScanTrace();
            Snapshot snapshot = Collector.collect(req, trace);
            clusterRead = trace.clusterRead;
            result = judge.apply(snapshot);
            if (snapshot.has(AwsInventory.class) && snapshot.has(KubeInventory.class)) {
                result = result.withFindings(CrossLinks.apply(snapshot, result.findings()));
            }
            inScope = base == null ? loc -> true : selectedBy(snapshot);
        } else {
            FleetScan.Outcome o =
                    FleetScan.run(
                            req,
                            specs,
                            fleet.parallel,
                            fleet.targetTimeoutMillis,
                            judge,
                            snapshot -> base == null ? loc -> true : selectedBy(snapshot),
                            selected.stream()
                                    .anyMatch(r -> r.parts().contains(FleetWorkloads.class)));
            result = o.result();
            inScope = o.selected();
            clusterRead = o.clusterRead();
            contextNamespaces = o.contextNamespaces();
        }
        return new Read(result, inScope, clusterRead, contextNamespaces);
    }

    /**
     * The report compared with the baseline: a finding gone counts as fixed only where this scan
     * looked (its rules, scope, namespaces and regions).
     */
    private Report withBaseline(
            Report report,
            Baseline base,
            ScanResult result,
            Predicate<Location> inScope,
            Map<String, String> contextNamespaces,
            List<FleetScan.Spec> specs) {
        Set<String> ran = Set.copyOf(result.rulesRun());
        Set<String> scannedNamespaces = new HashSet<>(kube.namespaces);
        long clusters = specs.stream().filter(FleetScan.Spec::kube).count();
        if (scannedNamespaces.isEmpty() && contextNamespaces.size() == clusters) {
            // every cluster read only its context's namespace: the others are not "fixed"
            scannedNamespaces.addAll(contextNamespaces.values());
        }
        Set<String> scannedRegions = new HashSet<>();
        aws.regions.forEach(
                r -> Arrays.stream(r.split(",")).map(String::strip).forEach(scannedRegions::add));
        return report.withBaseline(
                base.compare(
                        result.findings(),
                        result.suppressed().stream().map(ScanResult.Suppressed::finding).toList(),
                        (rule, loc) ->
                                ran.contains(rule)
                                        && inScope.test(loc)
                                        && (scannedNamespaces.isEmpty()
                                                || loc.namespace() == null
                                                || loc.arn() != null
                                                || scannedNamespaces.contains(loc.namespace()))
                                        && (scannedRegions.isEmpty()
                                                || loc.region() == null
                                                || scannedRegions.contains(loc.region()))));
    }

    /**
     * Writes the outputs and the summary lines, then notifies and pushes even when an output failed
     * (whose error is then thrown: exit 2).
     */
    private void write(Outputs outs, Report report, String notifyUrl, String pushUrl) {
        InputException notWritten = null;
        try {
            outs.write(report, io.err());
            String line = outs.fileSummary(report);
            if (line != null) {
                io.err().println(line);
            }
            String scanned = ScanNotes.scanned(report);
            if (scanned != null) { // which cluster this was, whatever the format and output
                io.err().println("deja: scanned " + scanned);
            }
        } catch (InputException e) { // an output failed (stderr, exit 2): still notify and push
            notWritten = e;
        }
        Deliveries.deliver(report, notifyUrl, pushUrl, io.err());
        if (notWritten != null) {
            throw notWritten;
        }
    }

    /**
     * An ignore-file entry that matched nothing is most often a typo in its object pattern: say so.
     */
    private void warnUnusedSuppressions(
            Suppressions ignores, ScanResult result, Supplier<LocalDate> today) {
        Set<String> used = new TreeSet<>();
        result.suppressed().forEach(x -> used.add(x.origin()));
        for (Suppressions.Entry e : ignores.entries()) {
            if (!used.contains(e.origin())
                    && (e.expires() == null || !today.get().isAfter(e.expires()))) {
                io.err()
                        .println(
                                "deja: warning: "
                                        + e.origin()
                                        + ": suppression of "
                                        + e.rule()
                                        + " for object '"
                                        + e.object()
                                        + "' matched no finding of this scan");
            }
        }
    }

    /**
     * Incomplete (exit 3) unless allowed; else 1 when a finding that counts (a new one, with
     * --baseline) fails.
     */
    int exitCode(Report report) {
        ScanResult result = report.result();
        boolean nothingRead = result.coverage().sources().isEmpty();
        if (!result.coverage().complete() && (!out.allowPartial || nothingRead)) {
            io.err()
                    .println(
                            "deja: scan incomplete: "
                                    + result.coverage().notChecked().size()
                                    + " source scope(s) could not be read "
                                    + (nothingRead
                                            ? "and nothing was read (--allow-partial accepts a partial scan, not an empty one)"
                                            : "(see the report; --allow-partial accepts this)"));
            return ExitCodes.INCOMPLETE;
        }
        return report.failed() ? ExitCodes.FINDINGS : ExitCodes.OK;
    }

    /**
     * With -l/--selector (a KubeScope part): whether a baseline finding's object lies in what this
     * scan looked at. The Kubernetes classes are touched only when the scan has that part.
     */
    private static Predicate<Location> selectedBy(Snapshot snapshot) {
        if (!snapshot.has(KubeScope.class)) {
            return loc -> true;
        }
        var scope = snapshot.part(KubeScope.class).orElseThrow();
        var inv = snapshot.part(KubeInventory.class).orElse(KubeInventory.EMPTY);
        return loc -> scope.covers(inv, loc);
    }

    /**
     * The files this scan reads besides its paths, by option: a report or snapshot must not be
     * written over them.
     */
    private Map<String, Path> inputFiles() {
        Map<String, Path> named = new LinkedHashMap<>();
        named.put("--kubeconfig", kube.kubeconfig);
        named.put("--ignore-file", rules.ignoreFile);
        named.put("--config", config.path);
        named.put("--baseline", out.baselineFile());
        return named;
    }

    /**
     * The live targets of this run: the clusters ({@link KubeOptions#targets}) and AWS accounts
     * ({@link AwsOptions#targets}); several of them (or one and files) need {target} in
     * --snapshot-out.
     */
    private List<FleetScan.Spec> targets(ScanRequest req) {
        List<FleetScan.Spec> specs = new ArrayList<>(kube.targets(req));
        specs.addAll(aws.targets());
        boolean withFiles = !specs.isEmpty() && FleetScan.filesPart(req, specs);
        Path snapshotOut = out.snapshotOut;
        if (snapshotOut != null
                && specs.size() + (withFiles ? 1 : 0) > 1
                && !snapshotOut.toString().contains("{target}")) {
            throw new InputException(
                    "--snapshot-out "
                            + snapshotOut
                            + ": this run reads "
                            + specs.size()
                            + " target(s)"
                            + (withFiles ? " and files" : "")
                            + ", one snapshot each: put"
                            + " {target} in the path (e.g. snapshots/{target}.json)");
        }
        return specs;
    }

    /** The request the sources read: each option group fills its part. */
    private ScanRequest request(List<Rule> selected, ConfigFile configFile) {
        ScanRequest.Builder req = ScanRequest.builder();
        req.paths = List.copyOf(paths);
        req.stdin = io.in();
        req.processEnv = io.env();
        files.into(req);
        kube.into(req);
        live.into(req, io.env());
        aws.into(req);
        req.allowPartial = out.allowPartial;
        req.snapshotOut = out.snapshotOut;
        req.verbose = verbose;
        req.err = io.err();
        // on a terminal, without --verbose (its own line per scope): one line kept up to date
        req.progress = io.status() != null && !verbose ? Progress.on(io.status()) : Progress.NONE;
        Set<String> kinds = new TreeSet<>();
        selected.forEach(r -> kinds.addAll(r.kubeKinds()));
        if (selected.stream().anyMatch(r -> r.source() == SourceKind.HAPROXY)) {
            kinds.add("ConfigMap"); // HAProxy configurations kept in ConfigMaps are scanned too
        }
        if (kube.liveMetrics) {
            // the proxy workloads, for their pods; ConfigMaps: ingress-nginx's capacity, HAProxy's
            // exporter port
            kinds.addAll(List.of("Deployment", "StatefulSet", "DaemonSet", "ConfigMap"));
        }
        req.kubeKinds = Set.copyOf(kinds);
        Set<String> raw = new TreeSet<>();
        selected.forEach(r -> raw.addAll(r.kubeRawKinds()));
        req.kubeRawKinds = Set.copyOf(raw);
        if (configFile != null) {
            req.haproxyConfigMaps = List.copyOf(configFile.haproxyConfigMaps);
        }
        return req.build();
    }
}
