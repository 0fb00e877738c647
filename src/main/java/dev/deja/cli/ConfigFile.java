package dev.deja.cli;

import dev.deja.engine.Catalog;
import dev.deja.engine.DidYouMean;
import dev.deja.engine.InputException;
import dev.deja.engine.RuleContext;
import dev.deja.engine.RuleMetadata;
import dev.deja.engine.Severity;
import dev.deja.engine.Suppressions;
import dev.deja.engine.YamlError;
import dev.deja.engine.YamlNodes;
import dev.deja.report.Reporters;
import dev.deja.report.sink.ReportStore;
import dev.deja.rules.cel.CelRule;
import dev.deja.source.InputFiles;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import picocli.CommandLine;

/**
 * {@code deja scan --config deja.yaml}: the options of a scan in a file (what a CronJob mounts from
 * a ConfigMap). Every key is checked: an unknown key, a wrong type or an unknown rule is an error
 * naming file:line. Relative paths are resolved against the file's folder. Command-line options
 * override the file (a list given on the command line replaces the file's list). The layout:
 *
 * <pre>
 * sources:
 *   paths: [PATH...]                 # files or folders: HAProxy configs, manifests, snapshots
 *   haproxy:
 *     paths: [PATH...]
 *     configMaps: [NAMESPACE/NAME...] # ConfigMaps holding HAProxy configs (read with the cluster)
 *     version: "X.Y"
 *     env: {VAR: value}
 *     assumeClientRps: 300
 *   helm: {values: [PATH...], set: {KEY: VALUE}}   # for the Helm charts among the paths (--helm-values, --helm-set)
 *   cluster: {enabled, kubeconfig, context, contexts: [..], allContexts, name, namespaces: [..], allNamespaces, selector,
 *             annotationSuppressions, liveMetrics, liveMetricsTimeout, criticalSelector, fleetIdentity}
 *             # contexts/allContexts/name: --context (repeated), --all-contexts, --cluster-name
 *   aws: {enabled, profile, profiles: [..], roleArns: [..], externalId, regions: [..], endpoint}
 * rules:
 *   enabled: [ID...]                 # run only these
 *   disabled: [ID...]
 *   severity: {ID: SEVERITY}         # severity overrides
 *   minSeverity: SEVERITY
 *   RULE-ID: {PARAMETER: VALUE}      # a rule's thresholds (parameters: in its YAML; deja explain RULE-ID)
 * failOn: SEVERITY|none
 * allowPartial: BOOL
 * suppressions: [{rule, object, reason, expires}]   # as in --ignore-file
 * ignoreFile: PATH
 * outputs: [{format: F, path: P}]    # as --output F=P
 * baseline: PATH|configmap:NS/NAME
 * reportConfigMap: NAMESPACE/NAME     # --report-configmap
 * notify: URL|env:VAR
 * pushgateway: URL|env:VAR
 * snapshotOut: PATH
 * </pre>
 */
public final class ConfigFile {
    /**
     * Options of the file set by another option given on the command line: {@code --all-contexts}
     * replaces the file's contexts (and {@code --context} its allContexts), {@code
     * --all-namespaces} its namespaces.
     */
    static final List<Set<String>> SAME_SETTING =
            List.of(
                    Set.of("--context", "--all-contexts"),
                    Set.of("--namespace", "--all-namespaces"));

    /**
     * The options a config file read with {@code --untrusted-config} may not give: each one makes
     * deja send data somewhere, write a file, or read a live system with the credentials of the
     * machine it runs on. A file in a pull request may tune how deja judges, never reach out.
     */
    static final Set<String> REACHES_OUT =
            Set.of(
                    "--output",
                    "--notify",
                    "--pushgateway",
                    "--report-configmap",
                    "--snapshot-out",
                    "--cluster",
                    "--cluster-name",
                    "--kubeconfig",
                    "--context",
                    "--all-contexts",
                    "--namespace",
                    "--all-namespaces",
                    "--selector",
                    "--aws",
                    "--aws-endpoint",
                    "--region",
                    "--profile",
                    "--role-arn",
                    "--external-id",
                    "--haproxy-runtime",
                    "--haproxy-runtime-auth",
                    "--haproxy-runtime-ca-file",
                    "--haproxy-runtime-timeout",
                    "--live-metrics",
                    "--live-metrics-timeout",
                    "--prometheus",
                    "--prometheus-basic-auth-file",
                    "--prometheus-bearer-token-file",
                    "--prometheus-ca-file",
                    "--window");

    final String display;
    final Path dir;

    /** Read with {@code --untrusted-config}: see {@link #REACHES_OUT} and {@link #inside}. */
    private boolean untrusted;

    /**
     * The file's option values by the scan's long option name, as they would be typed on the
     * command line (paths resolved against the file's folder); what {@link #defaults} gives
     * picocli. Only what the file sets.
     */
    private final Map<String, List<String>> options = new LinkedHashMap<>();

    /**
     * The line of the key that first set each option of {@link #options} (for errors found after
     * parsing).
     */
    private final Map<String, Integer> lines = new LinkedHashMap<>();

    /** The node being read, whose line {@link #put} and {@link #add} record. */
    private Node at;

    /**
     * Positional paths (sources.paths, sources.haproxy.paths): used when the command line gives
     * none.
     */
    final List<String> paths = new ArrayList<>();

    final List<String> haproxyConfigMaps = new ArrayList<>();

    /**
     * sources.haproxy.env: --env entries given on the command line are added to these (the command
     * line wins per key).
     */
    final Map<String, String> env = new LinkedHashMap<>();

    final Map<String, Severity> severityOverrides = new LinkedHashMap<>();

    /**
     * Rule parameters set in the file, keyed as {@link dev.deja.engine.RuleContext#parameterKey}.
     */
    final Map<String, String> ruleParameters = new LinkedHashMap<>();

    Suppressions suppressions = Suppressions.NONE;

    private ConfigFile(String display, Path dir) {
        this.display = display;
        this.dir = dir;
    }

    /**
     * The values the file gives the option {@code name} (its longest name, e.g. --fail-on), or
     * null.
     */
    List<String> option(String name) {
        return options.get(name);
    }

    /** The names of the options this file gives a value. */
    Set<String> optionNames() {
        return options.keySet();
    }

    /**
     * The file as picocli's defaults: an option the command line does not give takes the file's
     * value, converted and validated like a typed one; the built-in default otherwise. {@code
     * given} tells the options the command line gives (see {@link #SAME_SETTING}). A list is handed
     * to picocli joined by the option's split regex, which must be a literal ("," or NUL, that no
     * argument can hold).
     */
    CommandLine.IDefaultValueProvider defaults(Predicate<String> given) {
        return arg -> {
            if (!(arg instanceof CommandLine.Model.OptionSpec o)
                    || !options.containsKey(o.longestName())) {
                return null;
            }
            if (given.test(o.longestName())) {
                return null; // given: picocli flips a boolean flag's default, so the file's value
                // must not be it
            }
            for (Set<String> same : SAME_SETTING) {
                if (same.contains(o.longestName()) && same.stream().anyMatch(given)) {
                    return null;
                }
            }
            List<String> v = options.get(o.longestName());
            if (v.isEmpty()) {
                return null; // an empty list in the file: as the built-in default
            }
            return o.isMultiValue() ? String.join(o.splitRegex(), v) : v.get(0);
        };
    }

    private void put(String option, String value) {
        if (value != null) {
            trusted(option);
            if (option.equals("--baseline") && !value.startsWith("configmap:")) {
                inside(value);
            }
            options.put(option, List.of(value));
            line(option);
        }
    }

    private void put(String option, Boolean value) {
        if (value != null) {
            trusted(option);
            options.put(option, List.of(value.toString()));
            line(option);
        }
    }

    private void put(String option, Path value) {
        if (value != null) {
            trusted(option);
            options.put(option, List.of(value.toString()));
            line(option);
        }
    }

    /**
     * A list option: {@code values} appended to what an earlier key gave it (context, then
     * contexts).
     */
    private void add(String option, List<String> values) {
        trusted(option);
        options.computeIfAbsent(option, k -> new ArrayList<>()).addAll(values);
        line(option);
    }

    /** Refuses, in an untrusted file, an option that reaches out (naming the key's line). */
    private void trusted(String option) {
        if (untrusted && REACHES_OUT.contains(option)) {
            throw untrustedError("sets " + option + ", which reaches outside deja");
        }
    }

    private InputException untrustedError(String what) {
        String where = at == null ? display : display + ":" + (at.getStartMark().getLine() + 1);
        return new InputException(
                where
                        + ": "
                        + what
                        + "; with --untrusted-config a config file may only say how to judge"
                        + " (give this on the command line instead)");
    }

    /**
     * In an untrusted file, {@code p} (already resolved against the file's folder) must stay inside
     * that folder: no absolute path, no {@code ..} out of it, no symbolic link leading out.
     */
    private void inside(String p) {
        if (!untrusted || p.equals("-")) {
            return;
        }
        Path base = dir.toAbsolutePath().normalize();
        Path target = Path.of(p).toAbsolutePath().normalize();
        boolean ok = target.startsWith(base);
        if (ok && java.nio.file.Files.exists(target)) {
            try {
                ok = target.toRealPath().startsWith(base.toRealPath());
            } catch (java.io.IOException e) {
                ok = false;
            }
        }
        if (!ok) {
            throw untrustedError("names " + p + ", outside the config file's folder " + base);
        }
    }

    private void line(String option) {
        if (at != null) {
            lines.putIfAbsent(option, at.getStartMark().getLine() + 1);
        }
    }

    /**
     * An error about an option's value found after parsing (a time that is not one, an option only
     * valid with another): when the option came from this file, not the command line, the same
     * message prefixed with this file's {@code file:line}, as every other error of the file; {@code
     * e} as it is otherwise.
     */
    InputException locate(InputException e, Predicate<String> given) {
        Matcher m =
                Pattern.compile("^(--[a-z0-9-]+)")
                        .matcher(e.getMessage() == null ? "" : e.getMessage());
        if (!m.find() || given.test(m.group(1)) || !lines.containsKey(m.group(1))) {
            return e;
        }
        return new InputException(display + ":" + lines.get(m.group(1)) + ": " + e.getMessage(), e);
    }

    public static ConfigFile load(Path file, Catalog catalog) {
        return load(file, catalog, false);
    }

    /**
     * {@code untrusted}: the file may come from whoever wrote the change being scanned (a pull
     * request): what reaches out ({@link #REACHES_OUT}, a ConfigMap to read) is refused naming
     * file:line, and every path it names must stay inside the file's folder.
     */
    public static ConfigFile load(Path file, Catalog catalog, boolean untrusted) {
        String text;
        try {
            text = InputFiles.readText(file);
        } catch (NoSuchFileException e) {
            throw new InputException(file + ": config file not found");
        } catch (IOException e) {
            throw new InputException(file + ": cannot read config file: " + e.getMessage());
        }
        // the config's folder as the user named it (relative stays relative): 'paths: [haproxy/]'
        // in ./deja.yaml gives
        // findings on haproxy/edge.cfg, as if typed on the command line, not
        // /home/.../haproxy/edge.cfg (SARIF keeps
        // relative URIs, which code scanning resolves against the checkout)
        Path parent = file.getParent();
        return parse(
                text, file.toString(), parent == null ? Path.of("") : parent, catalog, untrusted);
    }

    public static ConfigFile parse(String text, String display, Path dir, Catalog catalog) {
        return parse(text, display, dir, catalog, false);
    }

    static ConfigFile parse(
            String text, String display, Path dir, Catalog catalog, boolean untrusted) {
        Node root = compose(text, display);
        ConfigFile c = new ConfigFile(display, dir);
        c.untrusted = untrusted;
        if (root == null) {
            return c;
        }
        Map<String, Node> top =
                c.map(
                        root,
                        "the top level",
                        "sources",
                        "rules",
                        "rulesDirs",
                        "celCostLimit",
                        "failOn",
                        "allowPartial",
                        "suppressions",
                        "ignoreFile",
                        "outputs",
                        "baseline",
                        "reportConfigMap",
                        "notify",
                        "pushgateway",
                        "snapshotOut");
        if (top.containsKey("sources")) {
            c.sources(top.get("sources"));
        }
        if (top.containsKey("rules")) {
            c.rules(top.get("rules"), catalog);
        }
        if (top.containsKey("rulesDirs")) {
            c.add("--rules-dir", c.strings(top.get("rulesDirs")).stream().map(c::resolve).toList());
        }
        if (top.containsKey("celCostLimit")) {
            // evaluation steps one expression of a user rule may take on one object
            c.ruleParameters.put(
                    CelRule.COST_LIMIT_KEY,
                    Integer.toString(c.positiveInt(top.get("celCostLimit"))));
        }
        c.put("--fail-on", c.severityOrNone(top.get("failOn")));
        c.put("--allow-partial", c.bool(top.get("allowPartial")));
        if (top.containsKey("suppressions")) {
            c.suppressions = Suppressions.fromNode(top.get("suppressions"), display, catalog);
        }
        c.put("--ignore-file", c.path(top.get("ignoreFile")));
        if (top.containsKey("outputs")) {
            c.outputs(top.get("outputs"), dir);
        }
        String baseline = c.str(top.get("baseline"));
        c.put(
                "--baseline",
                baseline == null || baseline.startsWith("configmap:")
                        ? baseline
                        : dir.resolve(baseline).normalize().toString());
        Node rcm = top.get("reportConfigMap");
        if (rcm != null) {
            c.reportConfigMap(rcm);
        }
        c.put("--notify", c.str(top.get("notify")));
        c.put("--pushgateway", c.str(top.get("pushgateway")));
        c.put("--snapshot-out", c.path(top.get("snapshotOut")));
        return c;
    }

    /** The YAML reader's limits for a config file: aliases, depth, size; no duplicate keys. */
    private static LoaderOptions options() {
        LoaderOptions o = new LoaderOptions();
        o.setAllowDuplicateKeys(false);
        o.setMaxAliasesForCollections(10);
        o.setNestingDepthLimit(20);
        o.setCodePointLimit(1 << 20);
        return o;
    }

    /** The file's YAML as a node tree (null when empty), with limits on aliases, depth and size. */
    private static Node compose(String text, String display) {
        try {
            return YamlNodes.compose(text, options());
        } catch (MarkedYAMLException e) {
            throw YamlError.of(display, "not valid YAML", e);
        } catch (RuntimeException e) {
            String msg = e.getMessage() == null ? e.toString() : e.getMessage();
            throw new InputException(
                    display
                            + ": not valid YAML: "
                            + String.join(" ", msg.lines().limit(3).map(String::strip).toList()));
        }
    }

    /** outputs: each FORMAT=PATH as --output takes it, a relative path against dir. */
    private void outputs(Node n, Path dir) {
        List<String> outputs = new ArrayList<>();
        for (Node item : seq(n)) {
            Map<String, Node> m = map(item, "an output", "format", "path");
            String fmt = required(m, "format", item);
            try {
                Reporters.forName(fmt); // an unknown format names deja.yaml:line, not --output
            } catch (InputException e) {
                throw error(m.get("format"), e.getMessage());
            }
            String p = required(m, "path", item);
            outputs.add(
                    fmt
                            + "="
                            + (p.equals("-") || ReportStore.S3Uri.is(p)
                                    ? p
                                    : dir.resolve(p).normalize()));
        }
        at = n;
        add("--output", outputs);
    }

    /** reportConfigMap: NAMESPACE/NAME. */
    private void reportConfigMap(Node rcm) {
        at = rcm;
        String v = scalar(rcm);
        if (!v.matches(Outputs.DNS_NAME + "/" + Outputs.DNS_NAME)) {
            throw error(rcm, "reportConfigMap '" + v + "' is not NAMESPACE/NAME");
        }
        put("--report-configmap", v);
    }

    private void sources(Node n) {
        Map<String, Node> s =
                map(
                        n,
                        "sources",
                        "paths",
                        "haproxy",
                        "haproxyRuntime",
                        "helm",
                        "cluster",
                        "aws",
                        "prometheus");
        for (String p : strings(s.get("paths"))) {
            paths.add(resolve(p));
        }
        if (s.containsKey("helm")) {
            helmSource(s.get("helm"));
        }
        if (s.containsKey("haproxy")) {
            haproxySource(s.get("haproxy"));
        }
        if (s.containsKey("cluster")) {
            clusterSource(s.get("cluster"));
        }
        if (s.containsKey("aws")) {
            awsSource(s.get("aws"));
        }
        if (s.containsKey("prometheus")) {
            prometheusSource(s.get("prometheus"));
        }
        if (s.containsKey("haproxyRuntime")) {
            haproxyRuntimeSource(s.get("haproxyRuntime"));
        }
    }

    /** The helm source: values files and --set values. */
    private void helmSource(Node n) {
        Map<String, Node> h = map(n, "sources.helm", "values", "set");
        if (h.containsKey("values")) {
            add("--helm-values", strings(h.get("values")).stream().map(this::resolve).toList());
        }
        if (h.containsKey("set")) {
            Node setNode = h.get("set");
            if (!(setNode instanceof MappingNode sm)) {
                throw error(
                        setNode,
                        "sources.helm.set must be a mapping of KEY: VALUE (as helm --set KEY=VALUE)");
            }
            at = setNode;
            add(
                    "--helm-set",
                    sm.getValue().stream()
                            .map(t -> scalar(t.getKeyNode()) + "=" + scalar(t.getValueNode()))
                            .toList());
        }
    }

    /**
     * The HAProxy source: configuration paths and ConfigMaps, version, environment, client rate.
     */
    private void haproxySource(Node n) {
        Map<String, Node> h =
                map(
                        n,
                        "sources.haproxy",
                        "paths",
                        "configMaps",
                        "version",
                        "env",
                        "assumeClientRps");
        for (String p : strings(h.get("paths"))) {
            paths.add(resolve(p));
        }
        for (Node cm : h.containsKey("configMaps") ? seq(h.get("configMaps")) : List.<Node>of()) {
            String v = scalar(cm);
            if (!v.matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[a-z0-9]([-a-z0-9.]*[a-z0-9])?")) {
                throw error(cm, "ConfigMap '" + v + "' is not NAMESPACE/NAME");
            }
            if (untrusted) {
                at = cm;
                throw untrustedError(
                        "reads the ConfigMap "
                                + v
                                + " (sources.haproxy.configMaps) from a cluster");
            }
            haproxyConfigMaps.add(v);
        }
        put("--haproxy-version", str(h.get("version")));
        if (h.containsKey("env")) {
            Node envNode = h.get("env");
            if (!(envNode instanceof MappingNode em)) {
                throw error(envNode, "sources.haproxy.env must be a mapping of VAR: value");
            }
            for (NodeTuple t : em.getValue()) {
                env.put(scalar(t.getKeyNode()), scalar(t.getValueNode()));
            }
        }
        Node rps = h.get("assumeClientRps");
        if (rps != null) {
            put("--assume-client-rps", Integer.toString(positiveInt(rps)));
        }
    }

    /** The cluster source: kubeconfig, contexts, namespaces, selectors, live metrics. */
    private void clusterSource(Node n) {
        Map<String, Node> k =
                map(
                        n,
                        "sources.cluster",
                        "enabled",
                        "kubeconfig",
                        "context",
                        "contexts",
                        "allContexts",
                        "name",
                        "namespaces",
                        "allNamespaces",
                        "selector",
                        "annotationSuppressions",
                        "liveMetrics",
                        "liveMetricsTimeout",
                        "criticalSelector",
                        "fleetIdentity");
        at = n;
        Boolean enabled = bool(k.get("enabled"));
        put("--cluster", enabled == null ? Boolean.TRUE : enabled);
        put("--kubeconfig", path(k.get("kubeconfig")));
        if (k.containsKey("context")) {
            add("--context", List.of(str(k.get("context"))));
        }
        if (k.containsKey("contexts")) {
            add("--context", strings(k.get("contexts")));
        }
        put("--all-contexts", bool(k.get("allContexts")));
        put("--cluster-name", str(k.get("name")));
        if (k.containsKey("namespaces")) {
            add("--namespace", strings(k.get("namespaces")));
        }
        put("--all-namespaces", bool(k.get("allNamespaces")));
        put("--selector", str(k.get("selector")));
        Boolean annotations = bool(k.get("annotationSuppressions"));
        put("--no-annotation-suppressions", annotations == null ? null : !annotations);
        put("--live-metrics", bool(k.get("liveMetrics")));
        put("--live-metrics-timeout", str(k.get("liveMetricsTimeout")));
        put("--critical-selector", str(k.get("criticalSelector")));
        put("--fleet-identity", str(k.get("fleetIdentity")));
    }

    /** The AWS source: profiles, roles, regions, endpoint. */
    private void awsSource(Node n) {
        Map<String, Node> a =
                map(
                        n,
                        "sources.aws",
                        "enabled",
                        "profile",
                        "profiles",
                        "roleArns",
                        "externalId",
                        "regions",
                        "endpoint");
        at = n;
        Boolean enabled = bool(a.get("enabled"));
        put("--aws", enabled == null ? Boolean.TRUE : enabled);
        if (a.containsKey("profile")) {
            add("--profile", List.of(str(a.get("profile"))));
        }
        if (a.containsKey("profiles")) {
            add("--profile", strings(a.get("profiles")));
        }
        if (a.containsKey("roleArns")) {
            add("--role-arn", strings(a.get("roleArns")));
        }
        put("--external-id", str(a.get("externalId")));
        if (a.containsKey("regions")) {
            add("--region", strings(a.get("regions")));
        }
        put("--aws-endpoint", str(a.get("endpoint")));
    }

    /** The Prometheus source: its URL, window and credentials. */
    private void prometheusSource(Node n) {
        Map<String, Node> p =
                map(
                        n,
                        "sources.prometheus",
                        "url",
                        "window",
                        "bearerTokenFile",
                        "basicAuthFile",
                        "caFile");
        if (!p.containsKey("url")) {
            throw error(n, "sources.prometheus needs url (the Prometheus-compatible API)");
        }
        put("--prometheus", str(p.get("url")));
        put("--window", str(p.get("window")));
        put("--prometheus-bearer-token-file", path(p.get("bearerTokenFile")));
        put("--prometheus-basic-auth-file", path(p.get("basicAuthFile")));
        put("--prometheus-ca-file", path(p.get("caFile")));
    }

    /** The HAProxy runtime source: addresses, timeout, credentials. */
    private void haproxyRuntimeSource(Node n) {
        Map<String, Node> r =
                map(n, "sources.haproxyRuntime", "addresses", "timeout", "auth", "caFile");
        if (!r.containsKey("addresses")) {
            throw error(
                    n,
                    "sources.haproxyRuntime needs addresses (runtime API sockets, stats page or"
                            + " exporter URLs)");
        }
        add("--haproxy-runtime", strings(r.get("addresses")));
        put("--haproxy-runtime-timeout", str(r.get("timeout")));
        Node auth = r.get("auth");
        if (auth != null) {
            // FILE (relative to this file) or env:VAR, as --haproxy-runtime-auth takes it
            String a = str(auth);
            put("--haproxy-runtime-auth", a.startsWith("env:") ? a : path(auth).toString());
        }
        put("--haproxy-runtime-ca-file", path(r.get("caFile")));
    }

    private void rules(Node n, Catalog catalog) {
        if (!(n instanceof MappingNode rm)) {
            throw error(n, "rules must be a mapping");
        }
        // besides the keys below, a rule id with its parameters: {k8s-lb-probe-fails-fast:
        // {minWindowSeconds: 45}}
        List<String> keys = List.of("enabled", "disabled", "severity", "minSeverity");
        List<NodeTuple> plain = new ArrayList<>();
        for (NodeTuple t : rm.getValue()) {
            String key = scalar(t.getKeyNode());
            if (keys.contains(key)) {
                plain.add(t);
            } else if (catalog.rule(key).isPresent()) {
                parameters(catalog.rule(key).get(), t.getValueNode());
            } else {
                throw error(
                        t.getKeyNode(),
                        "unknown rule or key '"
                                + key
                                + "' in rules (expected "
                                + String.join(", ", keys)
                                + ", or a rule id with its parameters; see 'deja rules')");
            }
        }
        Map<String, Node> r =
                map(
                        new MappingNode(rm.getTag(), plain, rm.getFlowStyle()),
                        "rules",
                        "enabled",
                        "disabled",
                        "severity",
                        "minSeverity");
        if (r.containsKey("enabled")) {
            add("--rules", ruleIds(r.get("enabled"), catalog));
        }
        if (r.containsKey("disabled")) {
            add("--skip-rules", ruleIds(r.get("disabled"), catalog));
        }
        if (r.containsKey("severity")) {
            Node sev = r.get("severity");
            if (!(sev instanceof MappingNode sm)) {
                throw error(sev, "rules.severity must be a mapping of RULE-ID: SEVERITY");
            }
            for (NodeTuple t : sm.getValue()) {
                String id = ruleId(t.getKeyNode(), catalog);
                severityOverrides.put(id, severity(t.getValueNode()));
            }
        }
        Node min = r.get("minSeverity");
        if (min != null) {
            put("--min-severity", severity(min).id());
        }
    }

    /**
     * Parses {@code cl}'s arguments again with this file as picocli's defaults (precedence: command
     * line, this file, built-in defaults; a list on the command line replaces the file's), then
     * what is not an option value: the file's paths when the command line gives none, its env under
     * --env (the command line wins per key).
     */
    void applyTo(ScanCommand cmd, CommandLine cl) {
        CommandLine.ParseResult given = cl.getParseResult();
        cl.setDefaultValueProvider(defaults(given::hasMatchedOption));
        try {
            cl.parseArgs(given.expandedArgs().toArray(new String[0]));
        } catch (CommandLine.ParameterException e) {
            throw new InputException(display + ": " + e.getMessage());
        }
        if (given.hasMatchedOption("--cluster")
                && !cmd.kube.cluster
                && !given.hasMatchedOption("--all-contexts")) {
            cmd.kube.allContexts =
                    false; // --no-cluster: the file's allContexts (which implies --cluster) is
            // unused
        }
        if (cmd.paths.isEmpty()) {
            cmd.paths.addAll(paths);
        }
        Map<String, String> mergedEnv = new LinkedHashMap<>(env);
        mergedEnv.putAll(cmd.files.env);
        cmd.files.env = mergedEnv;
        if (!haproxyConfigMaps.isEmpty() && !cmd.kube.cluster) {
            throw new InputException(
                    display
                            + ": sources.haproxy.configMaps are read from the cluster: enable"
                            + " sources.cluster (or give --cluster)");
        }
    }

    // ------------------------------------------------------------------ node helpers

    private Map<String, Node> map(Node n, String what, String... allowed) {
        if (!(n instanceof MappingNode m)) {
            throw error(n, what + " must be a mapping");
        }
        Set<String> ok = new LinkedHashSet<>(List.of(allowed));
        Map<String, Node> out = new LinkedHashMap<>();
        for (NodeTuple t : m.getValue()) {
            String key = scalar(t.getKeyNode());
            if (!ok.contains(key)) {
                throw error(
                        t.getKeyNode(),
                        "unknown key '"
                                + key
                                + "' in "
                                + what
                                + " (expected "
                                + String.join(", ", ok)
                                + ")"
                                + DidYouMean.hint(key, ok));
            }
            if (out.put(key, t.getValueNode()) != null) {
                throw error(t.getKeyNode(), "duplicate key '" + key + "' in " + what);
            }
        }
        return out;
    }

    private List<Node> seq(Node n) {
        if (!(n instanceof SequenceNode s)) {
            throw error(n, "expected a list");
        }
        return s.getValue();
    }

    private List<String> strings(Node n) {
        List<String> out = new ArrayList<>();
        if (n == null) {
            return out;
        }
        at = n;
        if (n instanceof ScalarNode) {
            out.add(scalar(n));
            return out;
        }
        for (Node item : seq(n)) {
            out.add(scalar(item));
        }
        return out;
    }

    private String scalar(Node n) {
        if (!(n instanceof ScalarNode s)) {
            throw error(
                    n,
                    "expected a plain value, not a "
                            + (n instanceof MappingNode ? "mapping" : "list"));
        }
        if (s.getTag().equals(Tag.NULL)) {
            throw error(n, "value is empty");
        }
        if (s.getValue().indexOf('\0')
                >= 0) { // no path or name holds one; lists reach picocli joined by it
            throw error(n, "value holds a NUL character (\\0)");
        }
        return s.getValue();
    }

    private String str(Node n) {
        if (n != null) {
            at = n;
        }
        return n == null ? null : scalar(n);
    }

    private String required(Map<String, Node> m, String key, Node owner) {
        if (!m.containsKey(key)) {
            throw error(owner, "missing '" + key + "'");
        }
        return scalar(m.get(key));
    }

    private Boolean bool(Node n) {
        if (n == null) {
            return null;
        }
        at = n;
        String v = scalar(n);
        if (v.equals("true")) {
            return true;
        }
        if (v.equals("false")) {
            return false;
        }
        throw error(n, "expected true or false, not '" + v + "'");
    }

    private int positiveInt(Node n) {
        at = n;
        String v = scalar(n);
        try {
            int i = Integer.parseInt(v);
            if (i > 0) {
                return i;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw error(n, "expected a positive whole number, not '" + v + "'");
    }

    private Severity severity(Node n) {
        at = n;
        try {
            return Severity.parse(scalar(n));
        } catch (IllegalArgumentException e) {
            throw error(n, e.getMessage());
        }
    }

    private String severityOrNone(Node n) {
        if (n == null) {
            return null;
        }
        return "none".equalsIgnoreCase(scalar(n)) ? "none" : severity(n).id();
    }

    /**
     * {@code rulesDirs:} of a config file, relative to its folder; an unreadable file or another
     * shape gives none here (reading the whole file then says what is wrong).
     */
    static List<Path> rulesDirs(Path file) {
        return rulesDirs(file, false);
    }

    /**
     * As {@link #rulesDirs(Path)}; {@code untrusted}: a folder outside the file's folder is refused
     * here, before any rule file in it is read.
     */
    static List<Path> rulesDirs(Path file, boolean untrusted) {
        List<Path> dirs = rulesDirsAsWritten(file);
        if (untrusted) {
            ConfigFile c = new ConfigFile(file.toString(), file.toAbsolutePath().getParent());
            c.untrusted = true;
            for (Path d : dirs) {
                try {
                    c.inside(d.toString());
                } catch (InputException e) {
                    throw new InputException(
                            e.getMessage().replace(": names ", ": rulesDirs names "));
                }
            }
        }
        return dirs;
    }

    private static List<Path> rulesDirsAsWritten(Path file) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            return rulesDirsOf(java.nio.file.Files.readString(file)).stream()
                    .map(x -> dir.resolve(x).normalize())
                    .toList();
        } catch (java.io.IOException | RuntimeException e) {
            return List.of();
        }
    }

    /**
     * The {@code rulesDirs:} of a config file's text, as written: its plain values, one or a list,
     * as the full read takes them (an empty or nested value is left to that read, which names it);
     * none for another shape. Read with the full read's limits.
     */
    static List<String> rulesDirsOf(String text) {
        if (!(YamlNodes.compose(text, options()) instanceof MappingNode top)) {
            return List.of();
        }
        for (NodeTuple t : top.getValue()) {
            if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals("rulesDirs")) {
                Node v = t.getValueNode();
                List<Node> items = v instanceof SequenceNode q ? q.getValue() : List.of(v);
                return items.stream()
                        .filter(n -> n instanceof ScalarNode s && !s.getTag().equals(Tag.NULL))
                        .map(n -> ((ScalarNode) n).getValue())
                        .toList();
            }
        }
        return List.of();
    }

    private Path path(Node n) {
        if (n != null) {
            at = n;
        }
        if (n == null) {
            return null;
        }
        Path p = dir.resolve(scalar(n)).normalize();
        inside(p.toString());
        return p;
    }

    private String resolve(String p) {
        String r = p.equals("-") ? p : dir.resolve(p).normalize().toString();
        inside(r);
        return r;
    }

    /**
     * {@code RULE-ID: {NAME: NUMBER}}: each name a parameter of the rule's YAML, each value a
     * number of its kind.
     */
    private void parameters(RuleMetadata rule, Node value) {
        if (!(value instanceof MappingNode m)) {
            throw error(
                    value,
                    "rules."
                            + rule.id()
                            + " must be a mapping of PARAMETER: VALUE"
                            + parameterList(rule));
        }
        for (NodeTuple t : m.getValue()) {
            String name = scalar(t.getKeyNode());
            RuleMetadata.Parameter p =
                    rule.parameter(name)
                            .orElseThrow(
                                    () ->
                                            error(
                                                    t.getKeyNode(),
                                                    "rule "
                                                            + rule.id()
                                                            + " has no parameter '"
                                                            + name
                                                            + "'"
                                                            + parameterList(rule)));
            String v = scalar(t.getValueNode()).strip();
            if (!v.matches(p.integer() ? "\\d+" : "\\d+(\\.\\d+)?")) {
                throw error(
                        t.getValueNode(),
                        "rules."
                                + rule.id()
                                + "."
                                + name
                                + ": '"
                                + v
                                + "' is not "
                                + (p.integer() ? "a whole number" : "a number")
                                + " (default "
                                + p.defaultValue()
                                + ")");
            }
            String key = RuleContext.parameterKey(rule.id(), name);
            if (ruleParameters.put(key, v) != null) {
                throw error(t.getKeyNode(), "rules." + rule.id() + "." + name + " is set twice");
            }
        }
    }

    private static String parameterList(RuleMetadata rule) {
        return rule.parameters().isEmpty()
                ? " (it has none)"
                : " (its parameters: "
                        + String.join(
                                ", ",
                                rule.parameters().stream()
                                        .map(RuleMetadata.Parameter::name)
                                        .toList())
                        + ")";
    }

    private List<String> ruleIds(Node n, Catalog catalog) {
        List<String> out = new ArrayList<>();
        for (Node item : n instanceof ScalarNode ? List.of(n) : seq(n)) {
            out.add(ruleId(item, catalog));
        }
        at = n;
        return out;
    }

    private String ruleId(Node n, Catalog catalog) {
        String id = scalar(n);
        if (catalog.rule(id).isEmpty()) {
            throw error(
                    n,
                    "unknown rule '"
                            + id
                            + "'"
                            + DidYouMean.hint(id, RuleOptions.ruleIds(catalog))
                            + "; see 'deja rules'");
        }
        return catalog.canonicalRuleId(id);
    }

    private InputException error(Node n, String message) {
        return new InputException(
                display + ":" + (n.getStartMark().getLine() + 1) + ": " + message);
    }
}
