package dev.deja.source;

import dev.deja.engine.Settings;
import dev.deja.model.haproxy.ParseOptions;
import dev.deja.progress.Progress;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything the sources need to know about one scan, as given on the command line (or in a config
 * file). Immutable: the CLI's option groups fill a {@link Builder}, the sources read the built
 * request; a run over several targets derives each target's request with {@link #toBuilder()}.
 * Rules never see it (they get {@link Settings}). What a scan finds out while it reads (the target,
 * the context and server, the AWS account) is not here but in the run's {@link ScanTrace}.
 */
public final class ScanRequest {
    // files
    public final List<String> paths;
    public final InputStream stdin;

    /**
     * --env KEY=VALUE: variables for HAProxy "${VAR}" expansion, consulted before the process
     * environment.
     */
    public final Map<String, String> env;

    /** The process environment (injectable for tests). */
    public final Map<String, String> processEnv;

    /** --haproxy-version: what .if version_atleast() is evaluated against. */
    public final String haproxyVersion;

    /**
     * HAProxy configs kept in ConfigMaps, as NAMESPACE/NAME (deja.yaml sources.haproxy.configMaps).
     */
    public final List<String> haproxyConfigMaps;

    /**
     * --haproxy-one-instance: all HAProxy files given are one instance (haproxy -f a -f b), not one
     * each.
     */
    public final boolean haproxyOneInstance;

    /**
     * --haproxy-runtime ADDR: HAProxy runtime API addresses (unix:/path, tcp:host:port) and http(s)
     * URLs of the stats page's CSV or the Prometheus exporter.
     */
    public final List<String> haproxyRuntime;

    /**
     * --haproxy-runtime-timeout: bound on each runtime API step (connect, send, read to the end)
     * and on a whole HTTP exchange; injectable for tests.
     */
    public final long haproxyRuntimeTimeoutMillis;

    /**
     * --haproxy-runtime-auth: "user:password" for the stats page (stats auth), read from a file or
     * env; or null.
     */
    public final String haproxyRuntimeAuth;

    /**
     * --haproxy-runtime-ca-file: PEM file of the CA(s) to trust for https:// stats pages and
     * exporters instead of the JVM's trust store; or null.
     */
    public final Path haproxyRuntimeCaFile;

    /** --helm-values FILE (repeatable): values files for the Helm charts given as paths. */
    public final List<Path> helmValues;

    /** --helm-set KEY=VALUE (repeatable): as helm's --set, for the Helm charts given as paths. */
    public final List<String> helmSet;

    /** --prometheus URL: a Prometheus-compatible HTTP API asked for peaks over {@link #window}. */
    public final String prometheus;

    /** --window: PromQL range of the peaks (7d). */
    public final String window;

    public final Path prometheusBearerTokenFile;
    public final Path prometheusBasicAuthFile;
    public final Path prometheusCaFile;

    /** Bound on each Prometheus query (connect and answer); injectable for tests. */
    public final long prometheusTimeoutMillis;

    // live Kubernetes
    public final boolean cluster;
    public final Path kubeconfig;
    public final String context;
    public final List<String> namespaces;

    /**
     * -A/--all-namespaces: every namespace even when the kubeconfig context names one (without -n
     * and -A the context's namespace is scanned when it sets one, else every namespace).
     */
    public final boolean allNamespaces;

    public final String selector;

    /**
     * --cluster-name: the cluster's name for targets and the load balancers' cluster tag (default:
     * the context name).
     */
    public final String clusterName;

    public final boolean noAnnotationSuppressions;

    /**
     * --live-metrics: also read HAProxy's and ingress-nginx's figures from the proxy pods' metrics
     * ports through the API server's pod proxy (RBAC: list pods, get pods/proxy).
     */
    public final boolean liveMetrics;

    /** Bound on each pod read of --live-metrics; injectable for tests. */
    public final long liveMetricsTimeoutMillis;

    // live AWS
    public final boolean aws;
    public final String profile;
    public final List<String> regions;
    public final String awsEndpoint;

    /**
     * --role-arn: the role this target assumes (STS AssumeRole, base credentials from the default
     * chain).
     */
    public final String roleArn;

    /** --external-id for AssumeRole. */
    public final String externalId;

    // common
    public final boolean allowPartial;
    public final Path snapshotOut;
    public final boolean verbose;

    /** Kubernetes kinds the selected rules need (the live collector lists only these). */
    public final Set<String> kubeKinds;

    /**
     * Kubernetes kinds whose objects are also kept as the API returns them (for rules of one's own
     * that read {@code object.spec}, ...: {@link dev.deja.model.kube.KubeRaw}); empty (nothing
     * kept) unless such a rule is loaded.
     */
    public final Set<String> kubeRawKinds;

    /** Diagnostics (warnings, progress): stderr. */
    public final PrintWriter err;

    /**
     * Told each scope a live source reads whole (a kind, a region): the progress line on a
     * terminal; {@link Progress#NONE} by default.
     */
    public final Progress progress;

    private ScanRequest(Builder b) {
        paths = List.copyOf(b.paths);
        stdin = b.stdin;
        env = Collections.unmodifiableMap(new LinkedHashMap<>(b.env));
        processEnv = Collections.unmodifiableMap(new LinkedHashMap<>(b.processEnv));
        haproxyVersion = b.haproxyVersion;
        haproxyConfigMaps = List.copyOf(b.haproxyConfigMaps);
        haproxyOneInstance = b.haproxyOneInstance;
        haproxyRuntime = List.copyOf(b.haproxyRuntime);
        haproxyRuntimeTimeoutMillis = b.haproxyRuntimeTimeoutMillis;
        haproxyRuntimeAuth = b.haproxyRuntimeAuth;
        haproxyRuntimeCaFile = b.haproxyRuntimeCaFile;
        helmValues = List.copyOf(b.helmValues);
        helmSet = List.copyOf(b.helmSet);
        prometheus = b.prometheus;
        window = b.window;
        prometheusBearerTokenFile = b.prometheusBearerTokenFile;
        prometheusBasicAuthFile = b.prometheusBasicAuthFile;
        prometheusCaFile = b.prometheusCaFile;
        prometheusTimeoutMillis = b.prometheusTimeoutMillis;
        cluster = b.cluster;
        kubeconfig = b.kubeconfig;
        context = b.context;
        namespaces = List.copyOf(b.namespaces);
        allNamespaces = b.allNamespaces;
        selector = b.selector;
        clusterName = b.clusterName;
        noAnnotationSuppressions = b.noAnnotationSuppressions;
        liveMetrics = b.liveMetrics;
        liveMetricsTimeoutMillis = b.liveMetricsTimeoutMillis;
        aws = b.aws;
        profile = b.profile;
        regions = List.copyOf(b.regions);
        awsEndpoint = b.awsEndpoint;
        roleArn = b.roleArn;
        externalId = b.externalId;
        allowPartial = b.allowPartial;
        snapshotOut = b.snapshotOut;
        verbose = b.verbose;
        kubeKinds = Set.copyOf(b.kubeKinds);
        kubeRawKinds = Set.copyOf(b.kubeRawKinds);
        err = b.err;
        progress = b.progress;
    }

    /** A request to fill: every field of {@link ScanRequest}, mutable, with the same defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this request's values (mutable copies), e.g. for one target of a run. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.paths = new ArrayList<>(paths);
        b.stdin = stdin;
        b.env = new LinkedHashMap<>(env);
        b.processEnv = new LinkedHashMap<>(processEnv);
        b.haproxyVersion = haproxyVersion;
        b.haproxyConfigMaps = new ArrayList<>(haproxyConfigMaps);
        b.haproxyOneInstance = haproxyOneInstance;
        b.haproxyRuntime = new ArrayList<>(haproxyRuntime);
        b.haproxyRuntimeTimeoutMillis = haproxyRuntimeTimeoutMillis;
        b.haproxyRuntimeAuth = haproxyRuntimeAuth;
        b.haproxyRuntimeCaFile = haproxyRuntimeCaFile;
        b.helmValues = new ArrayList<>(helmValues);
        b.helmSet = new ArrayList<>(helmSet);
        b.prometheus = prometheus;
        b.window = window;
        b.prometheusBearerTokenFile = prometheusBearerTokenFile;
        b.prometheusBasicAuthFile = prometheusBasicAuthFile;
        b.prometheusCaFile = prometheusCaFile;
        b.prometheusTimeoutMillis = prometheusTimeoutMillis;
        b.cluster = cluster;
        b.kubeconfig = kubeconfig;
        b.context = context;
        b.namespaces = new ArrayList<>(namespaces);
        b.allNamespaces = allNamespaces;
        b.selector = selector;
        b.clusterName = clusterName;
        b.noAnnotationSuppressions = noAnnotationSuppressions;
        b.liveMetrics = liveMetrics;
        b.liveMetricsTimeoutMillis = liveMetricsTimeoutMillis;
        b.aws = aws;
        b.profile = profile;
        b.regions = new ArrayList<>(regions);
        b.awsEndpoint = awsEndpoint;
        b.roleArn = roleArn;
        b.externalId = externalId;
        b.allowPartial = allowPartial;
        b.snapshotOut = snapshotOut;
        b.verbose = verbose;
        b.kubeKinds = kubeKinds;
        b.kubeRawKinds = kubeRawKinds;
        b.err = err;
        b.progress = progress;
        return b;
    }

    /**
     * The mutable side of a {@link ScanRequest}: the option groups fill it ({@code into(Builder)}),
     * {@link #build()} makes the immutable request (lists, sets and maps copied unmodifiable). The
     * fields are those of {@link ScanRequest}, documented there.
     */
    public static final class Builder {
        public List<String> paths = new ArrayList<>();
        public InputStream stdin = System.in;
        public Map<String, String> env = new LinkedHashMap<>();
        public Map<String, String> processEnv = System.getenv();
        public String haproxyVersion;
        public List<String> haproxyConfigMaps = new ArrayList<>();
        public boolean haproxyOneInstance;
        public List<String> haproxyRuntime = new ArrayList<>();
        public long haproxyRuntimeTimeoutMillis = 5000;
        public String haproxyRuntimeAuth;
        public Path haproxyRuntimeCaFile;
        public List<Path> helmValues = new ArrayList<>();
        public List<String> helmSet = new ArrayList<>();
        public String prometheus;
        public String window = "7d";
        public Path prometheusBearerTokenFile;
        public Path prometheusBasicAuthFile;
        public Path prometheusCaFile;
        public long prometheusTimeoutMillis = 30_000;
        public boolean cluster;
        public Path kubeconfig;
        public String context;
        public List<String> namespaces = new ArrayList<>();
        public boolean allNamespaces;
        public String selector;
        public String clusterName;
        public boolean noAnnotationSuppressions;
        public boolean liveMetrics;
        public long liveMetricsTimeoutMillis = 10_000;
        public boolean aws;
        public String profile;
        public List<String> regions = new ArrayList<>();
        public String awsEndpoint;
        public String roleArn;
        public String externalId;
        public boolean allowPartial;
        public Path snapshotOut;
        public boolean verbose;
        public Set<String> kubeKinds = Set.of();
        public Set<String> kubeRawKinds = Set.of();
        public PrintWriter err = new PrintWriter(System.err, true, Charset.defaultCharset());
        public Progress progress = Progress.NONE;

        private Builder() {}

        public ScanRequest build() {
            return new ScanRequest(this);
        }
    }

    /** How HAProxy configurations are parsed for this scan: its variables and version. */
    public ParseOptions haproxyParsing() {
        return new ParseOptions(this::variable, haproxyVersion);
    }

    /** A variable for HAProxy expansion: --env first, then the environment; null when unset. */
    public String variable(String name) {
        String v = env.get(name);
        return v != null ? v : processEnv.get(name);
    }
}
