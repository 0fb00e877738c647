package dev.deja.cli;

import dev.deja.engine.Catalog;
import dev.deja.engine.Engine;
import dev.deja.engine.InputException;
import dev.deja.engine.Rule;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Settings;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.engine.Suppressions;
import dev.deja.report.Baseline;
import dev.deja.report.Report;
import dev.deja.rules.CrossLinks;
import dev.deja.rules.RuleRegistry;
import dev.deja.source.Collector;
import dev.deja.source.ScanRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code deja scan}: read the sources, run the rules, report. */
@Command(name = "scan", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false,
        description = {"Scan HAProxy configs, Kubernetes manifests, saved snapshots, a live cluster (--cluster), AWS"
                + " load balancers (--aws) or HAProxy's live figures (--haproxy-runtime) for the risk patterns of real"
                + " incidents.",
            "Files are recognised by content; folders are read recursively; '-' reads standard input. A folder with"
                    + " Chart.yaml is a Helm chart, rendered as 'helm template' would; a folder with kustomization.yaml"
                    + " is built with 'kubectl kustomize'."})
public final class ScanCommand implements Callable<Integer> {
    private final Cli.Io io;

    ScanCommand(Cli.Io io) {
        this.io = io;
    }

    @Parameters(paramLabel = "PATH", arity = "0..*",
            description = "haproxy.cfg files, manifests (YAML/JSON), deja snapshots, or folders of them; Helm chart"
                    + " and kustomize folders; '-' for stdin")
    List<String> paths = new ArrayList<>();

    // ---- selection and outcome
    @Option(names = "--rules", split = ",", paramLabel = "ID", description = "Run only these rules")
    List<String> onlyRules = new ArrayList<>();

    @Option(names = "--skip-rules", split = ",", paramLabel = "ID", description = "Do not run these rules")
    List<String> skipRules = new ArrayList<>();

    @Option(names = "--min-severity", paramLabel = "SEVERITY", defaultValue = "info",
            description = "Report only findings at or above: info, low, medium, high, critical (default: ${DEFAULT-VALUE})")
    String minSeverity;

    @Option(names = "--fail-on", paramLabel = "SEVERITY|none", defaultValue = "medium",
            description = "Exit 1 when a finding is at or above this severity; 'none' never fails (default: ${DEFAULT-VALUE})")
    String failOn;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text",
            description = "Output format: text, table, json, sarif, junit, html, prometheus, github (default: ${DEFAULT-VALUE})")
    String format;

    @Option(names = {"-o", "--output-file"}, paramLabel = "FILE", description = "Write the report to FILE instead of stdout")
    Path outputFile;

    @Option(names = "--ignore-file", paramLabel = "FILE",
            description = "YAML list of suppressions: {rule, object, reason, expires}")
    Path ignoreFile;

    @Option(names = "--allow-partial", description = "Do not exit 3 when some source or kind could not be read")
    boolean allowPartial;

    @Option(names = "--snapshot-out", paramLabel = "FILE",
            description = "Save what was read (live sources included) to FILE; scan it later offline with 'deja scan FILE'")
    Path snapshotOut;

    @Option(names = "--verbose", description = "Progress and library logging on stderr; stack traces for internal errors")
    boolean verbose;

    // ---- HAProxy
    @Option(names = "--env", paramLabel = "KEY=VALUE",
            description = "Value for an environment variable used in HAProxy configs (\"$${VAR}\")")
    Map<String, String> env = new LinkedHashMap<>();

    @Option(names = "--haproxy-version", paramLabel = "X.Y",
            description = "HAProxy version for .if version_atleast()/version_before() (default: current LTS)")
    String haproxyVersion;

    @Option(names = "--haproxy-one-instance",
            description = "Read all HAProxy files given as one instance, in order (like haproxy -f a.cfg -f b.cfg);"
                    + " by default each file is its own instance")
    boolean haproxyOneInstance;

    @Option(names = "--haproxy-instances", paramLabel = "N",
            description = "How many HAProxy instances run each configuration scanned (a fleet of load balancers, one per"
                    + " node); 2 or more lets haproxy-roundrobin-same-start judge configurations without a peers section")
    Integer haproxyInstances;

    @Option(names = "--assume-client-rps", paramLabel = "N", defaultValue = "300",
            description = "Request rate of one abusive client, for tarpit arithmetic (default: ${DEFAULT-VALUE}, as in IL-0264)")
    int assumeClientRps;

    @Option(names = "--prove",
            description = "Replay the findings 'deja prove' covers on the real haproxy (loopback sandbox, before and after"
                    + " the fix) and attach the evidence to them (JSON evidence, SARIF properties, HTML, text)")
    boolean prove;

    @Option(names = "--prove-duration", paramLabel = "TIME", defaultValue = "8s",
            description = "With --prove: length of each run, at most 60s (default: ${DEFAULT-VALUE})")
    String proveDuration;

    @Option(names = "--prove-haproxy", paramLabel = "PATH", description = "With --prove: the haproxy binary (default: haproxy on PATH)")
    String proveHaproxy;

    @Option(names = "--helm-values", paramLabel = "FILE",
            description = "Values file for the Helm charts scanned (repeatable; as helm template -f)")
    List<Path> helmValues = new ArrayList<>();

    @Option(names = "--helm-set", paramLabel = "KEY=VALUE",
            description = "Value for the Helm charts scanned (repeatable; as helm template --set)")
    List<String> helmSet = new ArrayList<>();

    // ---- Kubernetes
    @Option(names = "--cluster", description = "Scan the live cluster of the current kubeconfig context")
    boolean cluster;

    @Option(names = "--kubeconfig", paramLabel = "FILE", description = "Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)")
    Path kubeconfig;

    @Option(names = "--context", paramLabel = "NAME",
            description = "Kubeconfig context (default: current-context); repeat it to scan several clusters in one run")
    List<String> contexts = new ArrayList<>();

    @Option(names = "--all-contexts",
            description = "Scan every context of the (merged) kubeconfig, each as its own cluster (implies --cluster)")
    boolean allContexts;

    @Option(names = "--cluster-name", paramLabel = "NAME",
            description = "The cluster's name in the report and for matching load balancers' elbv2.k8s.aws/cluster tag"
                    + " (default: the context name; one cluster only)")
    String clusterName;

    @Option(names = {"-n", "--namespace"}, paramLabel = "NS", description = "Namespace to scan (repeatable)")
    List<String> namespaces = new ArrayList<>();

    @Option(names = {"-A", "--all-namespaces"}, description = "Scan every namespace (the default)")
    boolean allNamespaces;

    @Option(names = {"-l", "--selector"}, paramLabel = "SELECTOR", description = "Label selector for workloads")
    String selector;

    @Option(names = "--no-annotation-suppressions",
            description = "Ignore deja.dev/ignore annotations on objects (anyone who can edit a workload could exempt it)")
    boolean noAnnotationSuppressions;

    @Option(names = "--live-metrics",
            description = "With --cluster: also read HAProxy's live figures (sessions against limits) from the HAProxy"
                    + " pods' stats/metrics ports (/metrics) through the API server's pod proxy; needs RBAC list on pods"
                    + " and get on pods/proxy")
    boolean liveMetrics;

    // ---- HAProxy runtime API
    @Option(names = "--haproxy-runtime", paramLabel = "ADDR",
            description = "Read HAProxy's live figures (sessions against limits) from its runtime API (unix:/path/admin.sock,"
                    + " tcp:host:port: show info, show stat), its stats page's CSV (http://host:port/stats;csv) or its"
                    + " Prometheus exporter (http://host:port/metrics) (repeatable)")
    List<String> haproxyRuntime = new ArrayList<>();

    @Option(names = "--haproxy-runtime-timeout", paramLabel = "TIME", defaultValue = "5s",
            description = "With --haproxy-runtime: bound on each runtime API step and on each HTTP exchange, in HAProxy's"
                    + " time format (500ms, 5s, 1m; default: ${DEFAULT-VALUE})")
    String haproxyRuntimeTimeout;

    @Option(names = "--haproxy-runtime-auth", paramLabel = "FILE|env:VAR",
            description = "With --haproxy-runtime: user:password for a stats page behind 'stats auth', read from FILE"
                    + " (its first line) or the environment variable VAR, never from the command line")
    String haproxyRuntimeAuth;

    // ---- Prometheus
    @Option(names = "--prometheus", paramLabel = "URL",
            description = "Read the peak over --window of HAProxy's and ingress-nginx's connections against their limits"
                    + " from a Prometheus-compatible HTTP API (http(s)://host:port[/prefix]; /api/v1/query is asked)")
    String prometheus;

    @Option(names = "--window", paramLabel = "RANGE", defaultValue = "7d",
            description = "With --prometheus: the range of the peaks, as PromQL writes it (30m, 24h, 7d, 2w; default:"
                    + " ${DEFAULT-VALUE})")
    String window;

    @Option(names = "--prometheus-bearer-token-file", paramLabel = "FILE",
            description = "With --prometheus: send the token in FILE as 'Authorization: Bearer'")
    Path prometheusBearerTokenFile;

    @Option(names = "--prometheus-basic-auth-file", paramLabel = "FILE",
            description = "With --prometheus: basic auth from FILE (user:password on its first line; never on the"
                    + " command line)")
    Path prometheusBasicAuthFile;

    @Option(names = "--prometheus-ca-file", paramLabel = "FILE",
            description = "With --prometheus: trust the CA certificate(s) in FILE (PEM) for https")
    Path prometheusCaFile;

    // ---- AWS
    @Option(names = "--aws", description = "Scan AWS load balancers (ELBv2) with the default credential chain")
    boolean aws;

    @Option(names = "--profile", paramLabel = "NAME",
            description = "AWS profile; repeat it to scan several accounts in one run")
    List<String> profiles = new ArrayList<>();

    @Option(names = "--role-arn", paramLabel = "ARN",
            description = "Also scan the account of this IAM role, assumed with STS AssumeRole (session name deja) from"
                    + " the default credentials (repeatable)")
    List<String> roleArns = new ArrayList<>();

    @Option(names = "--external-id", paramLabel = "ID", description = "External id for --role-arn's AssumeRole")
    String externalId;

    // ---- several targets
    @Option(names = "--parallel", paramLabel = "N", defaultValue = "4",
            description = "Clusters and accounts read at the same time (default: ${DEFAULT-VALUE})")
    int parallel;

    @Option(names = "--target-timeout", paramLabel = "TIME", defaultValue = "10m",
            description = "Longest time one cluster or account may take to be read (e.g. 90s, 10m); past it, it is one"
                    + " failed coverage entry and the others go on (default: ${DEFAULT-VALUE})")
    String targetTimeout;

    @Option(names = "--region", paramLabel = "REGION", description = "AWS region (repeatable; default from profile or environment)")
    List<String> regions = new ArrayList<>();

    @Option(names = "--aws-endpoint", paramLabel = "URL", description = "ELBv2/EC2 endpoint override (emulators, tests)")
    String awsEndpoint;

    @Option(names = "--s3-endpoint", paramLabel = "URL",
            description = "S3 endpoint for s3:// outputs (S3-compatible stores such as MinIO; path-style addressing)")
    String s3Endpoint;

    // ---- scheduled runs: more outputs, baseline, deliveries, config file (logic in Outputs, BaselineSources,
    // ConfigFile and dev.deja.notify)
    @Option(names = "--output", paramLabel = "FORMAT=PATH",
            description = "Also write the report in FORMAT to PATH (repeatable; '-' is stdout),"
                    + " e.g. --output json=/reports/deja.json --output html=/reports/deja.html; or upload it to S3:"
                    + " --output json=s3://BUCKET/deja/{cluster}/{date}-{time}.json ({cluster}: the context's name,"
                    + " {date}, {time}: the scan's start in UTC; credentials as for --aws: --profile, --region,"
                    + " the environment). A failed upload exits 2 and says where the report was kept")
    List<String> outputs = new ArrayList<>();

    @Option(names = "--baseline", paramLabel = "FILE|configmap:NS/NAME",
            description = "A previous JSON report (a file, or the ConfigMap kept by --report-configmap): only findings"
                    + " not in it count for the exit code and --notify; the report marks them new (none yet: everything is new)")
    String baseline;

    @Option(names = "--report-configmap", paramLabel = "NAMESPACE/NAME",
            description = "Keep the latest report in this ConfigMap (keys deja.json and summary.txt; created when absent);"
                    + " a failed write is one line on stderr, the other outputs are still written, and the exit code is 2")
    String reportConfigMap;

    @Option(names = "--notify", paramLabel = "URL|env:VAR",
            description = "POST the new findings as JSON with a Slack-compatible 'text' (nothing when nothing is new);"
                    + " a failure is reported on stderr and does not change the exit code")
    String notify;

    @Option(names = "--pushgateway", paramLabel = "URL|env:VAR",
            description = "PUT the Prometheus metrics to this Pushgateway (group URL/metrics/job/deja unless the URL"
                    + " names one); a failure is reported on stderr and does not change the exit code")
    String pushgateway;

    @Option(names = "--config", paramLabel = "FILE",
            description = "deja.yaml: sources, rules, severity overrides, suppressions, outputs; options given here override"
                    + " it. Without it, .deja.yaml or deja.yaml is looked for in the working directory, then its parents"
                    + " up to the repository root")
    Path config;

    @Spec
    CommandSpec spec;

    /** Set by --config: severity overrides, inline suppressions, HAProxy ConfigMaps. */
    private ConfigFile configFile;

    @Override
    public Integer call() throws IOException {
        if (verbose) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
        }
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        Catalog catalog = Catalog.packaged();
        if (config == null) {
            config = discoverConfig(Path.of("").toAbsolutePath());
            if (config != null) {
                io.err().println("deja: using the config file " + config + " (found in "
                        + (config.getParent() == null ? "the working directory" : "a parent folder")
                        + "; --config FILE picks another)");
            }
        }
        if (config != null) {
            configFile = ConfigFile.load(config, catalog);
            configFile.applyTo(this, spec.commandLine().getParseResult());
        }
        Severity min = severity(minSeverity, "--min-severity");
        Severity fail;
        try {
            fail = "none".equalsIgnoreCase(failOn) ? null : Severity.parse(failOn);
        } catch (IllegalArgumentException e) {
            throw new InputException("--fail-on: unknown severity '" + failOn
                    + "' (expected info, low, medium, high, critical or none)");
        }
        if (assumeClientRps < 1) {
            throw new InputException("--assume-client-rps: must be at least 1 request per second, not " + assumeClientRps);
        }
        if (haproxyInstances != null && haproxyInstances < 1) {
            throw new InputException("--haproxy-instances: must be at least 1, not " + haproxyInstances);
        }
        if (haproxyVersion != null && !haproxyVersion.strip().matches("\\d+(\\.\\d+){0,3}(-[A-Za-z0-9.]+)?")) {
            throw new InputException("--haproxy-version: '" + haproxyVersion + "' is not a HAProxy version (e.g. 2.8, 3.2.1)");
        }
        if (!namespaces.isEmpty() && allNamespaces) {
            throw new InputException("--namespace and --all-namespaces exclude each other");
        }
        List<Rule> rules = select(catalog);
        if (rules.isEmpty()) {
            throw new InputException("--rules/--skip-rules: no rule is left to run");
        }
        for (String a : haproxyRuntime) {
            try {
                dev.deja.haproxy.HaproxyRuntimeSource.check(a);
            } catch (IllegalArgumentException e) {
                throw new InputException(e.getMessage());
            }
        }
        cluster = cluster || allContexts;
        aws = aws || !roleArns.isEmpty();
        if (parallel < 1) {
            throw new InputException("--parallel: must be at least 1, not " + parallel);
        }
        targetTimeoutMillis = timeMillis(targetTimeout, "--target-timeout");
        if (prometheus != null) {
            if (!WINDOW.matcher(window.strip()).matches()) {
                throw new InputException("--window '" + window + "': not a PromQL range (e.g. 30m, 24h, 7d, 2w, 1d12h)");
            }
            // bad URL, unreadable or malformed credential or CA files: exit 2 before any work
            new dev.deja.prometheus.PrometheusClient(prometheus, prometheusBearerTokenFile, prometheusBasicAuthFile,
                    prometheusCaFile, java.time.Duration.ofSeconds(1));
        }
        if (paths.isEmpty() && !cluster && !aws && haproxyRuntime.isEmpty() && prometheus == null) {
            throw new InputException("nothing to scan: give a file or folder (deja scan haproxy.cfg), '-' for stdin,"
                    + " --cluster, --aws, --haproxy-runtime or --prometheus");
        }
        checkOptionsApply();
        long runtimeTimeoutMillis = dev.deja.haproxy.Times.millis(haproxyRuntimeTimeout == null ? null
                : haproxyRuntimeTimeout.strip());
        if (runtimeTimeoutMillis <= 0) {
            throw new InputException("--haproxy-runtime-timeout: '" + haproxyRuntimeTimeout + "' is not a positive time"
                    + " (e.g. 500ms, 5s, 1m)");
        }
        String runtimeAuth = RuntimeAuth.read(haproxyRuntimeAuth, io.env());
        if (cluster || aws) {
            dev.deja.source.ListDeadline.millis(io.env()); // a malformed DEJA_LIST_DEADLINE: exit 2 before any work
        }
        Outputs outs = Outputs.plan(format, outputFile, outputs, io); // unknown formats: exit 2 before any work
        if (outs.usesS3()) {
            outs.s3Options(new dev.deja.report.ReportStore.Options(profiles.isEmpty() ? null : profiles.get(0),
                    regions.isEmpty() ? null : regions.get(0).split(",")[0].strip(), s3Endpoint(), io.env(), verbose));
        } else if (s3Endpoint != null) {
            throw new InputException("--s3-endpoint: only with an s3:// output (--output json=s3://BUCKET/KEY)");
        }
        checkNoOverwrite();
        String notifyUrl = Deliveries.url(notify, "--notify", io.env());
        String pushUrl = Deliveries.url(pushgateway, "--pushgateway", io.env());
        Suppressions ignores = ignoreFile == null ? Suppressions.NONE : Suppressions.load(ignoreFile, catalog);
        Map<String, Severity> overrides = Map.of();
        if (configFile != null) {
            ignores = Deliveries.merge(ignores, configFile.suppressions);
            overrides = configFile.severityOverrides;
        }

        dev.deja.prove.Prover.Options proveOptions = null;
        if (prove) {
            proveOptions = ProveCommand.options(null, null, proveDuration, assumeClientRps, 20, "2s", "0ms", false,
                    proveHaproxy);
            dev.deja.prove.ScanProofs.checkHaproxy(proveHaproxy, io.env()); // no haproxy: exit 2 before the scan
        }
        ScanRequest req = request(rules);
        req.haproxyRuntimeTimeoutMillis = runtimeTimeoutMillis;
        req.haproxyRuntimeAuth = runtimeAuth;
        List<FleetScan.Spec> specs = targets(req); // a context or profile that does not exist: exit 2 before any work
        if (reportConfigMap != null) {
            outs.add(Outputs.configMap(reportConfigMap, req)); // bad NAMESPACE/NAME or kubeconfig: exit 2 early
        }
        Baseline base = baseline == null ? null
                : BaselineSources.load(BaselineSources.open(baseline, req), io.err()); // bad baseline: exit 2 early
        Map<String, String> knobs = new java.util.TreeMap<>(configFile == null ? Map.of() : configFile.ruleParameters);
        knobs.put("assume-client-rps", Integer.toString(assumeClientRps));
        if (haproxyInstances != null) {
            knobs.put("haproxy-instances", Integer.toString(haproxyInstances));
        }
        Settings settings = new Settings(knobs);
        Engine.Options opts = new Engine.Options(min, overrides, ignores, settings, LocalDate.now());
        Engine engine = new Engine(catalog);
        // a rule runs only over a source this scan read: HAProxy rules on a cluster-only scan would "pass" unseen
        java.util.function.Function<Snapshot, ScanResult> judge = snapshot -> engine.run(snapshot, rules.stream()
                .filter(r -> !r.parts().isEmpty() ? r.parts().stream().anyMatch(snapshot::hasPart)
                        : snapshot.hasPart(switch (r.source()) {
                    case HAPROXY -> "dev.deja.haproxy.HaproxyConfigs";
                    case KUBERNETES -> "dev.deja.kube.model.KubeInventory";
                    case AWS -> "dev.deja.aws.model.AwsInventory";
                })).toList(), opts);
        ScanResult result;
        java.util.function.Predicate<dev.deja.engine.Location> selected;
        if (specs.isEmpty()) {
            Snapshot snapshot = Collector.collect(req);
            result = judge.apply(snapshot);
            if (snapshot.hasPart("dev.deja.aws.model.AwsInventory") && snapshot.hasPart("dev.deja.kube.model.KubeInventory")) {
                result = result.withFindings(CrossLinks.apply(snapshot, result.findings()));
            }
            selected = base == null ? loc -> true : selectedBy(snapshot);
        } else {
            FleetScan.Outcome o = FleetScan.run(req, specs, parallel, targetTimeoutMillis, judge,
                    snapshot -> base == null ? loc -> true : selectedBy(snapshot));
            result = o.result();
            selected = o.selected();
        }
        warnUnusedSuppressions(ignores, result, opts.today());

        Report report = new Report(result, catalog, VersionProvider.version(), fail, false)
                .withRun(new Report.RunInfo(started, Duration.ofNanos(System.nanoTime() - t0), scope(req, specs)));
        if (base != null) {
            Set<String> ran = Set.copyOf(result.rulesRun());
            Set<String> scannedNamespaces = Set.copyOf(namespaces);
            Set<String> scannedRegions = new java.util.HashSet<>();
            regions.forEach(r -> java.util.Arrays.stream(r.split(",")).map(String::strip).forEach(scannedRegions::add));
            report = report.withBaseline(base.compare(result.findings(), (rule, loc) -> ran.contains(rule)
                    && selected.test(loc)
                    && (scannedNamespaces.isEmpty() || loc.namespace() == null || loc.arn() != null
                            || scannedNamespaces.contains(loc.namespace()))
                    && (scannedRegions.isEmpty() || loc.region() == null || scannedRegions.contains(loc.region()))));
        }
        if (proveOptions != null) {
            report = report.withEvidence(dev.deja.prove.ScanProofs.attach(result.findings(), proveOptions, io.env(), io.err()));
        }
        InputException notWritten = null;
        try {
            outs.write(report, io.err());
            String line = outs.fileSummary(report);
            if (line != null) {
                io.err().println(line);
            }
        } catch (InputException e) { // an output failed (stderr, exit 2): still notify and push
            notWritten = e;
        }
        Deliveries.deliver(report, notifyUrl, pushUrl, io.err());
        if (notWritten != null) {
            throw notWritten;
        }
        return exitCode(report);
    }

    /** An ignore-file entry that matched nothing is most often a typo in its object pattern: say so. */
    private void warnUnusedSuppressions(Suppressions ignores, ScanResult result, LocalDate today) {
        Set<String> used = new TreeSet<>();
        result.suppressed().forEach(x -> used.add(x.origin()));
        for (Suppressions.Entry e : ignores.entries()) {
            if (!used.contains(e.origin()) && (e.expires() == null || !today.isAfter(e.expires()))) {
                io.err().println("deja: warning: " + e.origin() + ": suppression of " + e.rule() + " for object '"
                        + e.object() + "' matched no finding of this scan");
            }
        }
    }

    int exitCode(ScanResult result, Severity fail) {
        return exitCode(new Report(result, Catalog.packaged(), VersionProvider.version(), fail, false));
    }

    /** Incomplete (exit 3) unless allowed; else 1 when a finding that counts (a new one, with --baseline) fails. */
    int exitCode(Report report) {
        ScanResult result = report.result();
        boolean nothingRead = result.coverage().sources().isEmpty();
        if (!result.coverage().complete() && (!allowPartial || nothingRead)) {
            io.err().println("deja: scan incomplete: " + result.coverage().notChecked().size()
                    + " source scope(s) could not be read " + (nothingRead
                    ? "and nothing was read (--allow-partial accepts a partial scan, not an empty one)"
                    : "(see the report; --allow-partial accepts this)"));
            return ExitCodes.INCOMPLETE;
        }
        return report.failed() ? ExitCodes.FINDINGS : ExitCodes.OK;
    }

    /** --s3-endpoint validated as an http(s) URL, or null. */
    private String s3Endpoint() {
        if (s3Endpoint == null || s3Endpoint.isBlank()) {
            return null;
        }
        try {
            java.net.URI u = new java.net.URI(s3Endpoint.strip());
            if (u.getHost() != null && ("http".equals(u.getScheme()) || "https".equals(u.getScheme()))) {
                return u.toString();
            }
        } catch (java.net.URISyntaxException e) {
            // below
        }
        throw new InputException("--s3-endpoint " + s3Endpoint + ": not an http(s) URL");
    }

    /** A PromQL range: one or more number-unit pairs, largest unit first as Prometheus requires. */
    static final java.util.regex.Pattern WINDOW = java.util.regex.Pattern.compile(
            "(?=\\d)(\\d+y)?(\\d+w)?(\\d+d)?(\\d+h)?(\\d+m)?(\\d+s)?(\\d+ms)?");

    /** A namespace name as Kubernetes allows it (RFC 1123 label). */
    private static final java.util.regex.Pattern NAMESPACE = java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    /** Options that choose what a live source reads do nothing without that source: say so instead of ignoring them. */
    private void checkOptionsApply() {
        picocli.CommandLine.ParseResult pr = spec.commandLine().getParseResult();
        boolean clusterWrites = reportConfigMap != null || baseline != null && baseline.startsWith("configmap:");
        List<String> clusterOnly = new ArrayList<>();
        for (String o : List.of("--namespace", "--all-namespaces", "--selector", "--context", "--kubeconfig",
                "--cluster-name")) {
            boolean connection = o.equals("--context") || o.equals("--kubeconfig");
            if (pr.hasMatchedOption(o) && !cluster && !(connection && clusterWrites)) {
                clusterOnly.add(o);
            }
        }
        if (!clusterOnly.isEmpty()) {
            throw new InputException(String.join(", ", clusterOnly) + ": only with --cluster (choose what is read from"
                    + " the live cluster; manifests and snapshots are scanned whole)");
        }
        List<String> awsOnly = new ArrayList<>();
        boolean s3 = outputs.stream().anyMatch(o -> dev.deja.report.ReportStore.S3Uri.is(o.substring(o.indexOf('=') + 1)));
        if (externalId != null && roleArns.isEmpty()) {
            throw new InputException("--external-id: only with --role-arn (it is passed to AssumeRole)");
        }
        if (allContexts && !contexts.isEmpty()) {
            throw new InputException("--all-contexts and --context exclude each other");
        }
        for (String o : List.of("--region", "--profile", "--aws-endpoint")) {
            if (pr.hasMatchedOption(o) && !aws && !(s3 && !o.equals("--aws-endpoint"))) {
                awsOnly.add(o);
            }
        }
        if (!awsOnly.isEmpty()) {
            throw new InputException(String.join(", ", awsOnly) + ": only with --aws"
                    + (awsOnly.contains("--aws-endpoint") ? "" : " or an s3:// output"));
        }
        if (liveMetrics && !cluster) {
            throw new InputException("--live-metrics: only with --cluster (it reads the proxy pods through the API server)");
        }
        List<String> runtimeOnly = new ArrayList<>();
        for (String o : List.of("--haproxy-runtime-timeout", "--haproxy-runtime-auth")) {
            if (pr.hasMatchedOption(o) && haproxyRuntime.isEmpty()) {
                runtimeOnly.add(o);
            }
        }
        if (!runtimeOnly.isEmpty()) {
            throw new InputException(String.join(", ", runtimeOnly) + ": only with --haproxy-runtime");
        }
        for (String s : helmSet) {
            if (s.indexOf('=') <= 0) {
                throw new InputException("--helm-set '" + s + "': expected KEY=VALUE (as helm --set)");
            }
        }
        List<String> promOnly = new ArrayList<>();
        for (String o : List.of("--window", "--prometheus-bearer-token-file", "--prometheus-basic-auth-file",
                "--prometheus-ca-file")) {
            if (pr.hasMatchedOption(o) && prometheus == null) {
                promOnly.add(o);
            }
        }
        if (!promOnly.isEmpty()) {
            throw new InputException(String.join(", ", promOnly) + ": only with --prometheus");
        }
        if (selector != null && !selector.isBlank() && !dev.deja.kube.model.KubeScope.valid(selector)) {
            throw new InputException("--selector '" + selector + "': not a label selector (e.g. app=web,tier!=cache,"
                    + " 'env in (prod,staging)', '!canary')");
        }
        for (String ns : namespaces) {
            if (!NAMESPACE.matcher(ns).matches()) {
                throw new InputException("--namespace '" + ns + "': not a namespace name (lowercase letters, digits"
                        + " and '-', at most 63; repeat -n for several)");
            }
        }
    }

    /**
     * With -l/--selector (a KubeScope part): whether a baseline finding's object lies in what this scan looked at.
     * The Kubernetes classes are touched only when the scan has that part.
     */
    private static java.util.function.Predicate<dev.deja.engine.Location> selectedBy(Snapshot snapshot) {
        if (!snapshot.hasPart("dev.deja.kube.model.KubeScope")) {
            return loc -> true;
        }
        var scope = snapshot.part(dev.deja.kube.model.KubeScope.class).orElseThrow();
        var inv = snapshot.part(dev.deja.kube.model.KubeInventory.class).orElse(dev.deja.kube.model.KubeInventory.EMPTY);
        return loc -> scope.covers(inv, loc);
    }

    /** A report or snapshot written over a file this scan reads (or another output): refused before any work. */
    private void checkNoOverwrite() {
        Map<String, Path> outs = new LinkedHashMap<>();
        if (outputFile != null) {
            outs.put("-o " + outputFile, outputFile);
        }
        for (String spec : outputs) { // FORMAT=PATH, checked by Outputs.plan
            if (dev.deja.report.ReportStore.S3Uri.is(spec.substring(spec.indexOf('=') + 1))) {
                continue; // not a local file
            }
            outs.put("--output " + spec, Path.of(spec.substring(spec.indexOf('=') + 1).strip()));
        }
        if (snapshotOut != null) {
            outs.put("--snapshot-out " + snapshotOut, snapshotOut);
        }
        Map<String, Path> named = new LinkedHashMap<>();
        named.put("--kubeconfig", kubeconfig);
        named.put("--ignore-file", ignoreFile);
        named.put("--config", config);
        named.put("--baseline", baseline == null || baseline.startsWith("configmap:") ? null : Path.of(baseline));
        NoOverwrite.check(outs, paths, named, io.env());
    }

    /** The names a config file is found by when --config is not given, in this order. */
    static final List<String> CONFIG_NAMES = List.of(".deja.yaml", "deja.yaml");

    /**
     * {@code .deja.yaml} or {@code deja.yaml} in {@code cwd}, else in its parents up to the repository root (the
     * first folder with a {@code .git}); outside a repository only {@code cwd} is looked at. Relative to {@code cwd}
     * ("deja.yaml", "../.deja.yaml"), or null.
     */
    static Path discoverConfig(Path cwd) {
        boolean inRepo = false;
        for (Path d = cwd; d != null; d = d.getParent()) {
            if (java.nio.file.Files.exists(d.resolve(".git"))) {
                inRepo = true;
                break;
            }
        }
        for (Path d = cwd; d != null; d = d.getParent()) {
            for (String n : CONFIG_NAMES) {
                if (java.nio.file.Files.isRegularFile(d.resolve(n))) {
                    Path rel = cwd.relativize(d.resolve(n));
                    return rel;
                }
            }
            if (!inRepo || java.nio.file.Files.exists(d.resolve(".git"))) {
                return null;
            }
        }
        return null;
    }

    /** Milliseconds of "90s", "10m", "1h", "500ms"; anything else is a usage error naming the option. */
    static long timeMillis(String v, String option) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,9})(ms|s|m|h)").matcher(v == null ? "" : v.strip());
        if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
            throw new InputException(option + " " + v + ": expected a time such as 90s, 10m or 1h");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> n;
            case "s" -> n * 1000;
            case "m" -> n * 60_000;
            default -> n * 3_600_000;
        };
    }

    private long targetTimeoutMillis;

    /**
     * The live targets of this run: each context (--context, repeatable; --all-contexts: every context of the merged
     * kubeconfig; else the current one) and each AWS profile or role (--profile, --role-arn, repeatable; else the
     * default credentials). A context or profile named on the command line that cannot be used is a usage error
     * (exit 2) before any work; with --all-contexts a context that cannot be used is that cluster's coverage entry.
     */
    private List<FleetScan.Spec> targets(ScanRequest req) {
        List<FleetScan.Spec> out = new ArrayList<>();
        if (cluster) {
            if (allContexts) {
                var c = dev.deja.kube.KubeClients.contexts(req);
                if (c == null || c.names().isEmpty()) {
                    throw new InputException("--all-contexts: " + (c == null ? "no kubeconfig (give --kubeconfig FILE or"
                            + " set KUBECONFIG)" : c.origin() + " has no contexts"));
                }
                c.names().forEach(n -> out.add(new FleetScan.Spec(true, n, null, null, n, true)));
            } else {
                List<String> named = contexts.isEmpty() ? java.util.Collections.singletonList(null) : contexts;
                for (String n : new LinkedHashSet<>(named)) {
                    ScanRequest one = req.copy();
                    one.context = n;
                    var cfg = dev.deja.kube.KubeClients.config(one); // exit 2 now for a context that cannot be used
                    String name = n != null ? n : cfg.getCurrentContext() == null ? "in-cluster"
                            : cfg.getCurrentContext().getName();
                    out.add(new FleetScan.Spec(true, name, null, null, name, false));
                }
            }
            if (clusterName != null && out.size() > 1) {
                throw new InputException("--cluster-name: names one cluster; this run reads " + out.size()
                        + " contexts (their names are the context names)");
            }
        }
        if (aws) {
            for (String p : new LinkedHashSet<>(profiles)) {
                out.add(new FleetScan.Spec(false, null, p, null, p, false));
            }
            for (String arn : new LinkedHashSet<>(roleArns)) {
                if (!arn.strip().matches("arn:aws[a-z-]*:iam::\\d{12}:role/.+")) {
                    throw new InputException("--role-arn " + arn + ": not an IAM role ARN (arn:aws:iam::123456789012:role/NAME)");
                }
                out.add(new FleetScan.Spec(false, null, null, arn.strip(), arn.strip().split(":")[4], false));
            }
            if (profiles.isEmpty() && roleArns.isEmpty()) {
                out.add(new FleetScan.Spec(false, null, null, null, "default", false));
            }
        }
        boolean files = !out.isEmpty() && FleetScan.filesPart(req, out);
        if (snapshotOut != null && out.size() + (files ? 1 : 0) > 1 && !snapshotOut.toString().contains("{target}")) {
            throw new InputException("--snapshot-out " + snapshotOut + ": this run reads " + out.size() + " target(s)"
                    + (files ? " and files" : "") + ", one snapshot each: put"
                    + " {target} in the path (e.g. snapshots/{target}.json)");
        }
        return out;
    }

    /** What this scan looked at, for the report's header: cluster and context, namespaces, selector, regions, files. */
    private static Map<String, String> scope(ScanRequest req, List<FleetScan.Spec> specs) {
        Map<String, String> m = new LinkedHashMap<>();
        long clusters = specs.stream().filter(FleetScan.Spec::kube).count();
        long accounts = specs.stream().filter(s -> !s.kube()).count();
        if (clusters > 1) {
            m.put("clusters", clusters + ": " + FleetScan.names(specs, true));
        }
        if (accounts > 1) {
            m.put("AWS accounts", accounts + ": " + FleetScan.names(specs, false));
        }
        if (req.cluster) {
            if (clusters <= 1) {
                m.put("cluster", req.clusterRead != null ? req.clusterRead
                        : req.context != null ? "context " + req.context : "current context");
            }
            m.put("namespaces", req.namespaces.isEmpty() ? "all" : String.join(", ", req.namespaces));
            if (req.selector != null && !req.selector.isBlank()) {
                m.put("selector", req.selector);
            }
        }
        if (req.aws) {
            m.put("AWS regions", req.regions.isEmpty() ? "the default region" : String.join(", ", req.regions));
            if (req.profile != null && accounts <= 1) {
                m.put("AWS profile", req.profile);
            }
        }
        if (!req.paths.isEmpty()) {
            List<String> shown = req.paths.stream().limit(5).toList();
            m.put("files", String.join(", ", shown) + (req.paths.size() > 5 ? " and " + (req.paths.size() - 5)
                    + " more" : ""));
        }
        if (req.prometheus != null) {
            m.put("Prometheus", req.prometheus + " (peaks over the last " + req.window + ")");
        }
        if (!req.haproxyConfigMaps.isEmpty()) {
            m.put("HAProxy ConfigMaps", String.join(", ", req.haproxyConfigMaps));
        }
        return m;
    }

    private ScanRequest request(List<Rule> rules) {
        ScanRequest req = new ScanRequest();
        req.paths = List.copyOf(paths);
        req.stdin = io.in();
        req.env = new LinkedHashMap<>(env);
        req.processEnv = io.env();
        req.haproxyVersion = haproxyVersion;
        req.haproxyOneInstance = haproxyOneInstance;
        req.helmValues = List.copyOf(helmValues);
        req.helmSet = List.copyOf(helmSet);
        req.cluster = cluster;
        req.kubeconfig = kubeconfig;
        req.context = contexts.size() == 1 ? contexts.get(0) : null;
        req.clusterName = clusterName == null || clusterName.isBlank() ? null : clusterName.strip();
        req.namespaces = List.copyOf(namespaces);
        req.selector = selector;
        req.noAnnotationSuppressions = noAnnotationSuppressions;
        req.liveMetrics = liveMetrics;
        req.haproxyRuntime = List.copyOf(haproxyRuntime);
        req.aws = aws;
        req.profile = profiles.size() == 1 ? profiles.get(0) : null;
        req.externalId = externalId;
        req.regions = List.copyOf(regions);
        req.awsEndpoint = awsEndpoint;
        req.prometheus = prometheus;
        req.window = window.strip();
        req.prometheusBearerTokenFile = prometheusBearerTokenFile;
        req.prometheusBasicAuthFile = prometheusBasicAuthFile;
        req.prometheusCaFile = prometheusCaFile;
        req.allowPartial = allowPartial;
        req.snapshotOut = snapshotOut;
        req.verbose = verbose;
        req.err = io.err();
        Set<String> kinds = new TreeSet<>();
        rules.forEach(r -> kinds.addAll(r.kubeKinds()));
        if (rules.stream().anyMatch(r -> r.source() == dev.deja.engine.SourceKind.HAPROXY)) {
            kinds.add("ConfigMap"); // HAProxy configurations kept in ConfigMaps are scanned too
        }
        if (liveMetrics) {
            kinds.addAll(List.of("Deployment", "StatefulSet", "DaemonSet")); // the HAProxy workloads, for their pods
        }
        req.kubeKinds = Set.copyOf(kinds);
        if (configFile != null) {
            req.haproxyConfigMaps = List.copyOf(configFile.haproxyConfigMaps);
        }
        return req;
    }

    private List<Rule> select(Catalog catalog) {
        Set<String> only = canonical(catalog, onlyRules, "--rules");
        Set<String> skip = canonical(catalog, skipRules, "--skip-rules");
        // only the selected rules' classes are loaded
        return RuleRegistry.load(catalog.rules().stream()
                .filter(m -> (only.isEmpty() || only.contains(m.id())) && !skip.contains(m.id())).toList());
    }

    private static Set<String> canonical(Catalog catalog, List<String> ids, String option) {
        Set<String> out = new TreeSet<>();
        for (String id : ids) {
            String t = id.trim();
            if (t.isEmpty()) {
                continue;
            }
            if (catalog.rule(t).isEmpty()) {
                throw new InputException(option + ": unknown rule '" + t + "' (see 'deja rules')");
            }
            out.add(catalog.canonicalRuleId(t));
        }
        return out;
    }

    private static Severity severity(String s, String option) {
        try {
            return Severity.parse(s);
        } catch (IllegalArgumentException e) {
            throw new InputException(option + ": " + e.getMessage());
        }
    }
}
