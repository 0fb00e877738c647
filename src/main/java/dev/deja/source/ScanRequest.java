package dev.deja.source;

import dev.deja.engine.Settings;
import dev.deja.engine.Target;
import java.io.InputStream;
import java.io.PrintWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything the sources need to know about one scan, as given on the command line (or in a config
 * file). Filled by the CLI, read by the sources; rules never see it (they get {@link Settings}).
 */
public final class ScanRequest {
    // files
    public List<String> paths = new ArrayList<>();
    public InputStream stdin = System.in;

    /**
     * --env KEY=VALUE: variables for HAProxy "${VAR}" expansion, consulted before the process
     * environment.
     */
    public Map<String, String> env = new LinkedHashMap<>();

    /** The process environment (injectable for tests). */
    public Map<String, String> processEnv = System.getenv();

    /** --haproxy-version: what .if version_atleast() is evaluated against. */
    public String haproxyVersion;

    /**
     * HAProxy configs kept in ConfigMaps, as NAMESPACE/NAME (deja.yaml sources.haproxy.configMaps).
     */
    public List<String> haproxyConfigMaps = new ArrayList<>();

    /**
     * --haproxy-one-instance: all HAProxy files given are one instance (haproxy -f a -f b), not one
     * each.
     */
    public boolean haproxyOneInstance;

    /**
     * --haproxy-runtime ADDR: HAProxy runtime API addresses (unix:/path, tcp:host:port) and http(s)
     * URLs of the stats page's CSV or the Prometheus exporter.
     */
    public List<String> haproxyRuntime = new ArrayList<>();

    /**
     * --haproxy-runtime-timeout: bound on each runtime API step (connect, send, read to the end)
     * and on a whole HTTP exchange; injectable for tests.
     */
    public long haproxyRuntimeTimeoutMillis = 5000;

    /**
     * --haproxy-runtime-auth: "user:password" for the stats page (stats auth), read from a file or
     * env; or null.
     */
    public String haproxyRuntimeAuth;

    /** --helm-values FILE (repeatable): values files for the Helm charts given as paths. */
    public List<Path> helmValues = new ArrayList<>();

    /** --helm-set KEY=VALUE (repeatable): as helm's --set, for the Helm charts given as paths. */
    public List<String> helmSet = new ArrayList<>();

    /** --prometheus URL: a Prometheus-compatible HTTP API asked for peaks over {@link #window}. */
    public String prometheus;

    /** --window: PromQL range of the peaks (7d). */
    public String window = "7d";

    public Path prometheusBearerTokenFile;
    public Path prometheusBasicAuthFile;
    public Path prometheusCaFile;

    /** Bound on each Prometheus query (connect and answer); injectable for tests. */
    public long prometheusTimeoutMillis = 30_000;

    // live Kubernetes
    public boolean cluster;
    public Path kubeconfig;
    public String context;
    public List<String> namespaces = new ArrayList<>();
    public String selector;

    /**
     * Set by the live Kubernetes source: the context and server it read ("prod
     * (https://10.0.0.1:6443)"), for reports.
     */
    public volatile String clusterRead;

    /**
     * --cluster-name: the cluster's name for targets and the load balancers' cluster tag (default:
     * the context name).
     */
    public String clusterName;

    public boolean noAnnotationSuppressions;

    /**
     * --live-metrics: also read HAProxy's and ingress-nginx's figures from the proxy pods' metrics
     * ports through the API server's pod proxy (RBAC: list pods, get pods/proxy).
     */
    public boolean liveMetrics;

    /** Bound on each pod read of --live-metrics; injectable for tests. */
    public long liveMetricsTimeoutMillis = 10_000;

    // live AWS
    public boolean aws;
    public String profile;
    public List<String> regions = new ArrayList<>();
    public String awsEndpoint;

    /**
     * --role-arn: the role this target assumes (STS AssumeRole, base credentials from the default
     * chain).
     */
    public String roleArn;

    /** --external-id for AssumeRole. */
    public String externalId;

    /**
     * Set by the AWS source: the account id its credentials belong to (STS GetCallerIdentity), or
     * null.
     */
    public volatile String accountRead;

    // common
    public boolean allowPartial;
    public Path snapshotOut;
    public boolean verbose;

    /** Kubernetes kinds the selected rules need (the live collector lists only these). */
    public Set<String> kubeKinds = Set.of();

    /** Diagnostics (warnings, progress): stderr. */
    public PrintWriter err = new PrintWriter(System.err, true, Charset.defaultCharset());

    /**
     * The live target this request reads when a run reads several (or one, stamped on its
     * findings): set before the collect for a cluster, after it for an AWS account (from {@link
     * #accountRead}); null for files.
     */
    public volatile Target target;

    /**
     * A copy for one target of a run: every field (public, not final) copied; the caller sets the
     * target's own.
     */
    public ScanRequest copy() {
        ScanRequest c = new ScanRequest();
        for (Field f : ScanRequest.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) || Modifier.isFinal(f.getModifiers())) {
                continue;
            }
            try {
                f.set(c, f.get(this));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        return c;
    }

    /** A variable for HAProxy expansion: --env first, then the environment; null when unset. */
    public String variable(String name) {
        String v = env.get(name);
        return v != null ? v : processEnv.get(name);
    }
}
