package dev.deja.source.kube;

import dev.deja.engine.InputException;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.engine.YamlError;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.MapTree;
import dev.deja.model.kube.ViewReader;
import dev.deja.source.Http;
import dev.deja.source.InputFiles;
import dev.deja.source.ScanRequest;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Creates a Fabric8 client for a scan the way kubectl finds its cluster: {@code --kubeconfig FILE},
 * else every file of {@code KUBECONFIG} (merged as kubectl merges them: the first file that defines
 * a cluster, user, context or current-context wins; relative certificate paths stay relative to
 * their own file), else {@code ~/.kube/config}, else the pod's service account when running in a
 * cluster. {@code --context} picks the context (default: the current context). Connection timeout
 * {@value #CONNECT_TIMEOUT_MS} ms, request timeout {@value #REQUEST_TIMEOUT_MS} ms, no client-side
 * retries (the collector and the report ConfigMap retry 429 and 5xx through {@link
 * dev.deja.source.Retry}), the JDK HTTP client without redirects ({@link Http#noRedirects}).
 *
 * <p>Public so that other parts of deja (e.g. writing a report into a ConfigMap) connect the same
 * way: {@code try (KubernetesClient c = KubeClients.create(request)) { ... }}.
 */
public final class KubeClients {
    public static final int CONNECT_TIMEOUT_MS = 5_000;
    public static final int REQUEST_TIMEOUT_MS = 30_000;

    /**
     * The longest wait for one answer: the request timeout, and 5 s for the client to report it
     * (past it the server is taken as not answering).
     */
    static final long AWAIT_MS = REQUEST_TIMEOUT_MS + 5_000L;

    static final String SA_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";

    private KubeClients() {}

    /**
     * A client for the cluster the request names; bad kubeconfig or context: {@link
     * InputException}.
     */
    public static KubernetesClient create(ScanRequest req) {
        return create(config(req));
    }

    /**
     * Fabric8's HTTP client (JDK) with the kubeconfig's TLS and authentication applied, without the
     * cost of a full {@link KubernetesClient} (whose typed model takes a second to load): what the
     * live collector uses.
     */
    public static io.fabric8.kubernetes.client.http.HttpClient httpClient(Config cfg) {
        return new NoRedirects().newBuilder(plainHttp11(cfg)).build();
    }

    /**
     * HTTP/1.1 for a server on plain {@code http://} (e.g. {@code kubectl proxy}): the JDK client's
     * default, HTTP/2, asks a cleartext server to switch with {@code Upgrade: h2c}, which {@code
     * kubectl proxy} takes for a protocol upgrade (like exec's) and fails with HTTP 500. Over TLS,
     * HTTP/2 stays (negotiated by ALPN, no upgrade).
     */
    static Config plainHttp11(Config cfg) {
        String url = cfg.getMasterUrl();
        if (url != null && url.regionMatches(true, 0, "http://", 0, 7)) {
            cfg.setHttp2Disable(true);
        }
        return cfg;
    }

    /**
     * Fabric8's JDK client with redirects off: a redirect would carry the kubeconfig's credentials
     * (a bearer token) to whatever host it names. kubectl does not follow them either; deja reports
     * the redirect instead.
     */
    static final class NoRedirects extends JdkHttpClientFactory {
        @Override
        protected void additionalConfig(java.net.http.HttpClient.Builder builder) {
            Http.noRedirects(builder);
        }
    }

    /**
     * Loads and initialises what a live scan needs first (Fabric8's configuration, the JDK HTTP
     * client with the default TLS trust store, the list parser and the views), on a second core
     * while the main thread is still parsing the command line. No I/O beyond the JDK's own files:
     * the client built here is never used. The view of a sample Deployment goes into {@code out}.
     */
    public static void warmUp(SnapshotBuilder out) {
        Config c = Config.empty();
        c.setMasterUrl("https://127.0.0.1:1");
        c.setOauthToken("warm-up");
        try (io.fabric8.kubernetes.client.http.HttpClient http = httpClient(c)) {
            http.newHttpRequestBuilder()
                    .uri("https://127.0.0.1:1/api/v1/services?limit=1")
                    .header("Accept", "application/json")
                    .build();
        }
        new Yaml(new SafeConstructor(new LoaderOptions()))
                .load("clusters: [{name: a, cluster: {server: x}}]");
        KubeInventory.Builder inv =
                out.builder(KubeInventory.Builder.class, KubeInventory.Builder::new);
        ListPageParser.parse(
                WARM_UP_PAGE,
                token -> {},
                item ->
                        inv.add(
                                ViewReader.read(
                                        new MapTree(item).withKind("Deployment", "apps/v1"),
                                        null)));
    }

    private static final byte[] WARM_UP_PAGE =
            ("{\"metadata\":{\"continue\":\"x\"},\"items\":[{\"metadata\":{\"name\":\"a\","
                            + "\"namespace\":\"b\",\"labels\":{\"app\":\"a\"}},\"spec\":{\"replicas\":2,\"selector\":{\"matchLabels\":"
                            + "{\"app\":\"a\"}},\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"envoyproxy/envoy:v1\","
                            + "\"readinessProbe\":{\"httpGet\":{\"path\":\"/ready\",\"port\":9901}}}]}}}}]}")
                    .getBytes(StandardCharsets.UTF_8);

    public static KubernetesClient create(Config cfg) {
        return new KubernetesClientBuilder()
                .withConfig(plainHttp11(cfg))
                .withHttpClientFactory(new NoRedirects())
                .build();
    }

    /**
     * The variable that overrides the connection timeout (seconds), e.g. for a slow VPN or a busy
     * test machine.
     */
    public static final String CONNECT_TIMEOUT_ENV = "DEJA_KUBE_CONNECT_TIMEOUT";

    /**
     * The connection timeout (which also covers the TLS handshake): {@value #CONNECT_TIMEOUT_ENV}
     * seconds when set, else {@value #CONNECT_TIMEOUT_MS} ms; a value that is not 1 to 600 seconds
     * is an {@link InputException}.
     */
    public static int connectTimeoutMs(Map<String, String> env) {
        String v = env.get(CONNECT_TIMEOUT_ENV);
        if (v == null || v.isBlank()) {
            return CONNECT_TIMEOUT_MS;
        }
        try {
            int s = Integer.parseInt(v.strip());
            if (s >= 1 && s <= 600) {
                return s * 1000;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new InputException(
                CONNECT_TIMEOUT_ENV + "=" + v + ": not a number of seconds from 1 to 600");
    }

    /**
     * The kubeconfig files a scan reads (kubectl's order) and how they were named, for messages.
     */
    record KubeconfigFiles(List<Path> files, String origin) {}

    static KubeconfigFiles kubeconfigFiles(ScanRequest req) {
        Map<String, String> env = req.processEnv == null ? Map.of() : req.processEnv;
        List<Path> files = new ArrayList<>();
        String origin;
        if (req.kubeconfig != null) {
            if (!Files.isRegularFile(req.kubeconfig)) {
                throw notAFile("--kubeconfig " + req.kubeconfig, req.kubeconfig);
            }
            files.add(req.kubeconfig);
            origin = req.kubeconfig.toString();
        } else if (env.get("KUBECONFIG") != null && !env.get("KUBECONFIG").isBlank()) {
            for (String p : env.get("KUBECONFIG").split(File.pathSeparator)) {
                // as kubectl (client-go's ClientConfigLoadingRules.Load): empty entries and
                // missing files are ignored, one that cannot be read is an error, never skipped
                if (p.isBlank() || !Files.exists(Path.of(p)) || isDevNull(Path.of(p))) {
                    continue;
                }
                if (!Files.isRegularFile(Path.of(p))) {
                    throw notAFile("KUBECONFIG entry " + p, Path.of(p));
                }
                files.add(Path.of(p));
            }
            if (files.isEmpty()) {
                throw new InputException(
                        "KUBECONFIG=" + env.get("KUBECONFIG") + ": none of its files exists");
            }
            origin = "KUBECONFIG=" + env.get("KUBECONFIG");
        } else {
            String home = env.getOrDefault("HOME", System.getProperty("user.home"));
            Path def = Path.of(home, ".kube", "config");
            if (Files.isRegularFile(def)) {
                files.add(def);
            }
            origin = def.toString();
        }
        return new KubeconfigFiles(files, origin);
    }

    /**
     * A kubeconfig named by {@code what} that exists but is not a regular file: a folder, or a pipe
     * or device (deja reads a kubeconfig more than once; a pipe gives its text only once).
     */
    private static InputException notAFile(String what, Path p) {
        return new InputException(
                what
                        + (Files.isDirectory(p)
                                ? ": a folder, not a kubeconfig file"
                                : Files.exists(p)
                                        ? ": not a regular file (a pipe, <(command) or device: deja"
                                                + " reads the kubeconfig more than once; write it to"
                                                + " a file)"
                                        : ": no such file"));
    }

    /** /dev/null (KUBECONFIG=/dev/null: no kubeconfig), which kubectl reads as an empty file. */
    private static boolean isDevNull(Path p) {
        try {
            return p.toRealPath().equals(Path.of("/dev/null"));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The contexts of the merged kubeconfig (kubectl's merge of --kubeconfig, else every KUBECONFIG
     * file, else ~/.kube/config) in their order, and the current context (null when unset); null
     * when there is no kubeconfig (in-cluster).
     */
    public record Contexts(List<String> names, String current, String origin) {}

    public static Contexts contexts(ScanRequest req) {
        KubeconfigFiles f = kubeconfigFiles(req);
        if (f.files().isEmpty()) {
            return null;
        }
        Map<String, Object> merged = merge(f.files());
        Object cc = merged.get("current-context");
        return new Contexts(
                names(merged.get("contexts")),
                cc instanceof String c && !c.isBlank() ? c : null,
                f.origin());
    }

    /** Resolves the kubeconfig as kubectl does and applies deja's timeouts. */
    public static Config config(ScanRequest req) {
        Map<String, String> env = req.processEnv == null ? Map.of() : req.processEnv;
        KubeconfigFiles found = kubeconfigFiles(req);
        List<Path> files = found.files();
        String origin = found.origin();
        Config cfg =
                files.isEmpty()
                        ? inCluster(req, env, origin)
                        : fromKubeconfig(req, env, files, origin);
        proxies(cfg, env);
        cfg.setConnectionTimeout(connectTimeoutMs(env));
        cfg.setRequestTimeout(REQUEST_TIMEOUT_MS);
        cfg.setRequestRetryBackoffLimit(0);
        cfg.setMaxConcurrentRequests(64);
        cfg.setMaxConcurrentRequestsPerHost(16);
        return cfg;
    }

    /** No kubeconfig: the pod's service account, when deja runs in a pod with one. */
    private static Config inCluster(ScanRequest req, Map<String, String> env, String origin) {
        if (env.get("KUBERNETES_SERVICE_HOST") == null || !Files.isReadable(Path.of(SA_TOKEN))) {
            throw new InputException(
                    "--cluster: no kubeconfig (give --kubeconfig FILE, set KUBECONFIG or create "
                            + origin
                            + ") and not running in a pod with a service account");
        }
        if (req.context != null) {
            throw new InputException(
                    "--context " + req.context + ": running in-cluster without a kubeconfig");
        }
        return Config.autoConfigure(null);
    }

    /**
     * The merged kubeconfig's context (--context, else its current-context), checked as kubectl
     * would, read {@link #direct directly} where it can be, else by Fabric8.
     */
    private static Config fromKubeconfig(
            ScanRequest req, Map<String, String> env, List<Path> files, String origin) {
        Map<String, Object> merged = merge(files);
        String context = req.context != null ? req.context : (String) merged.get("current-context");
        List<String> names = names(merged.get("contexts"));
        if (context == null || context.isBlank()) {
            throw new InputException(
                    origin
                            + ": no current-context set; pick one with --context (contexts: "
                            + String.join(", ", names)
                            + ")");
        }
        if (!names.contains(context)) {
            throw new InputException(
                    (req.context != null ? "--context " + context : "current-context " + context)
                            + ": no such context in "
                            + origin
                            + " (contexts: "
                            + String.join(", ", names)
                            + ")");
        }
        Object exec = execOf(merged, context);
        if (exec != null && !onPath(exec.toString(), env)) {
            throw new InputException(
                    origin
                            + ": context "
                            + context
                            + ": the exec credential plugin "
                            + exec
                            + " is not "
                            + (exec.toString().contains("/")
                                    ? "an executable file"
                                    : "on the PATH"));
        }
        Config cfg = direct(merged, context, origin);
        return cfg != null ? cfg : byFabric8(merged, context, origin);
    }

    /**
     * Exec plugins, auth providers: Fabric8's full kubeconfig support. The merged kubeconfig as
     * text, with the context to use as its current-context, through Config.fromKubeconfig(String
     * contents). Not the 3-argument fromKubeconfig(context, contents, path): @Deprecated(since =
     * "7.0.0", forRemoval = true) in Fabric8 8.0, which also applied Fabric8's own system
     * properties and environment variables on top (KUBERNETES_MASTER, KUBERNETES_NAMESPACE,
     * HTTPS_PROXY over the kubeconfig's proxy-url, ...), unlike kubectl and deja's direct path. Not
     * fromKubeconfig(context, File) either: the merge of several KUBECONFIG files would need a
     * temporary file holding credentials. Relative paths (certificates, token file, exec command)
     * were made absolute against their own file while merging, as kubectl does.
     */
    private static Config byFabric8(Map<String, Object> merged, String context, String origin) {
        Map<String, Object> chosen = new LinkedHashMap<>(merged);
        chosen.put("current-context", context);
        String text = new Yaml(new DumperOptions()).dump(chosen);
        try {
            return Config.fromKubeconfig(text);
        } catch (RuntimeException e) {
            throw new InputException(
                    origin + ": cannot use context " + context + ": " + rootMessage(e));
        }
    }

    /**
     * The common kubeconfig cases (token, token file, client certificate, basic auth, CA,
     * insecure-skip-tls-verify) turned into a Config directly: Fabric8's own kubeconfig parser
     * initialises its whole typed model (over half a second). Null for what only Fabric8 handles
     * (exec plugins, auth providers). Kept over the library (issue 25) by measurement: every
     * kubeconfig through {@code Config.fromKubeconfig} instead (the rest of deja's checks kept)
     * made {@code deja scan --cluster} with a token kubeconfig take 1.36 s instead of 0.85 s
     * (hyperfine, 12 runs each, load 1, 2026-12-02), where kube-bench's row allows the scan 1.2x a
     * JDK client's fetch.
     */
    @SuppressWarnings("unchecked")
    static Config direct(Map<String, Object> merged, String context, String origin) {
        Map<String, Object> ctx = body(named(merged.get("contexts"), context), "context");
        String clusterName = str(ctx, "cluster");
        String userName = str(ctx, "user");
        Map<String, Object> cluster = body(named(merged.get("clusters"), clusterName), "cluster");
        Map<String, Object> user =
                userName == null ? Map.of() : body(named(merged.get("users"), userName), "user");
        if (cluster.isEmpty() || str(cluster, "server") == null) {
            throw new InputException(
                    origin
                            + ": context "
                            + context
                            + " names cluster "
                            + clusterName
                            + ", which has no server");
        }
        if (userName != null && user.isEmpty() && named(merged.get("users"), userName).isEmpty()) {
            throw new InputException(
                    origin
                            + ": context "
                            + context
                            + " names user "
                            + userName
                            + ", which is not defined");
        }
        checkServer(str(cluster, "server"), clusterName, origin);
        checkFiles(cluster, user, clusterName, userName, origin);
        if (user.containsKey("exec")
                || user.containsKey("auth-provider")
                || cluster.containsKey("proxy-url")
                || user.containsKey("as")
                || user.containsKey("as-groups")) {
            return null;
        }
        return directConfig(ctx, cluster, user, context, userName, origin);
    }

    /** The cluster's server is an http(s) URL with a host. */
    private static void checkServer(String server, String clusterName, String origin) {
        URI uri;
        try {
            uri = new URI(server);
        } catch (URISyntaxException e) {
            uri = null;
        }
        if (uri == null
                || uri.getHost() == null
                || !("https".equals(uri.getScheme()) || "http".equals(uri.getScheme()))) {
            throw new InputException(
                    origin
                            + ": cluster "
                            + clusterName
                            + ": server \""
                            + server
                            + "\" is not an http(s) URL such as https://api.example.com:6443");
        }
    }

    /**
     * The certificate and key files the cluster and user name are readable, and the ones given as
     * data are base64.
     */
    private static void checkFiles(
            Map<String, Object> cluster,
            Map<String, Object> user,
            String clusterName,
            String userName,
            String origin) {
        for (String[] f :
                new String[][] {
                    {
                        "cluster " + clusterName,
                        "certificate-authority",
                        str(cluster, "certificate-authority")
                    },
                    {"user " + userName, "client-certificate", str(user, "client-certificate")},
                    {"user " + userName, "client-key", str(user, "client-key")}
                }) {
            if (f[2] != null && !Files.isReadable(Path.of(f[2]))) {
                throw new InputException(
                        origin
                                + ": "
                                + f[0]
                                + ": "
                                + f[1]
                                + " "
                                + f[2]
                                + ": no such readable file");
            }
        }
        for (String[] d :
                new String[][] {
                    {
                        "cluster " + clusterName,
                        "certificate-authority-data",
                        str(cluster, "certificate-authority-data")
                    },
                    {
                        "user " + userName,
                        "client-certificate-data",
                        str(user, "client-certificate-data")
                    },
                    {"user " + userName, "client-key-data", str(user, "client-key-data")}
                }) {
            if (d[2] != null) {
                try {
                    Base64.getDecoder().decode(d[2].replaceAll("\\s", ""));
                } catch (IllegalArgumentException e) {
                    throw new InputException(
                            origin
                                    + ": "
                                    + d[0]
                                    + ": "
                                    + d[1]
                                    + " is not base64 ("
                                    + e.getMessage()
                                    + ")");
                }
            }
        }
    }

    /** The Config of a checked context whose cluster and user {@link #direct} can read. */
    private static Config directConfig(
            Map<String, Object> ctx,
            Map<String, Object> cluster,
            Map<String, Object> user,
            String context,
            String userName,
            String origin) {
        Config c = Config.empty();
        c.setMasterUrl(str(cluster, "server"));
        c.setCaCertData(str(cluster, "certificate-authority-data"));
        c.setCaCertFile(str(cluster, "certificate-authority"));
        if ("true".equals(str(cluster, "insecure-skip-tls-verify"))) {
            c.setTrustCerts(true);
            c.setDisableHostnameVerification(true);
        }
        c.setClientCertData(str(user, "client-certificate-data"));
        c.setClientCertFile(str(user, "client-certificate"));
        c.setClientKeyData(str(user, "client-key-data"));
        c.setClientKeyFile(str(user, "client-key"));
        c.setUsername(str(user, "username"));
        c.setPassword(str(user, "password"));
        String token = str(user, "token");
        String tokenFile = str(user, "tokenFile");
        if (token == null && tokenFile != null) {
            try {
                token = InputFiles.readText(Path.of(tokenFile)).strip();
            } catch (IOException e) {
                throw new InputException(
                        origin + ": cannot read tokenFile " + tokenFile + " of user " + userName);
            }
        }
        c.setOauthToken(token);
        c.setNamespace(str(ctx, "namespace"));
        c.setCurrentContext(new NamedContext(null, context));
        return c;
    }

    /**
     * Whether a command can be run: an executable file when it has a slash, else one found on the
     * PATH.
     */
    private static boolean onPath(String command, Map<String, String> env) {
        if (command.contains("/")) {
            return Files.isExecutable(Path.of(command));
        }
        String path = env.getOrDefault("PATH", System.getenv("PATH"));
        if (path == null) {
            return true; // cannot tell: let the plugin run and fail on its own
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isBlank() && Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }

    /** The exec plugin command of the context's user, or null. */
    private static Object execOf(Map<String, Object> merged, String context) {
        Map<String, Object> ctx = body(named(merged.get("contexts"), context), "context");
        String userName = str(ctx, "user");
        Map<String, Object> user =
                userName == null ? Map.of() : body(named(merged.get("users"), userName), "user");
        return user.get("exec") instanceof Map<?, ?> e
                ? (e.get("command") == null ? "(no command)" : e.get("command"))
                : null;
    }

    private static Map<String, Object> named(Object list, String name) {
        if (list instanceof List<?> l && name != null) {
            for (Object o : l) {
                if (o instanceof Map<?, ?> m && name.equals(m.get("name"))) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> r = (Map<String, Object>) m;
                    return r;
                }
            }
        }
        return Map.of();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> body(Map<String, Object> entry, String key) {
        return entry.get(key) instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    private static String str(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v == null ? null : v.toString();
    }

    /**
     * HTTPS_PROXY / HTTP_PROXY / NO_PROXY from the environment, as kubectl honours them (unless the
     * kubeconfig sets one).
     */
    static void proxies(Config cfg, Map<String, String> env) {
        String https = firstNonBlank(env.get("HTTPS_PROXY"), env.get("https_proxy"));
        String http = firstNonBlank(env.get("HTTP_PROXY"), env.get("http_proxy"));
        String no = firstNonBlank(env.get("NO_PROXY"), env.get("no_proxy"));
        if (https != null && cfg.getHttpsProxy() == null) {
            cfg.setHttpsProxy(https);
        }
        if (http != null && cfg.getHttpProxy() == null) {
            cfg.setHttpProxy(http);
        }
        if (no != null && (cfg.getNoProxy() == null || cfg.getNoProxy().length == 0)) {
            cfg.setNoProxy(
                    Arrays.stream(no.split(","))
                            .map(String::strip)
                            .filter(x -> !x.isEmpty())
                            .toArray(String[]::new));
        }
    }

    private static String firstNonBlank(String a, String b) {
        return a != null && !a.isBlank() ? a.strip() : b != null && !b.isBlank() ? b.strip() : null;
    }

    /**
     * kubectl's merge of several kubeconfig files; relative file paths (and an exec command with a
     * separator) made absolute against their own file ({@link KubeconfigRefs}).
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> merge(List<Path> files) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("apiVersion", "v1");
        out.put("kind", "Config");
        Map<String, Map<String, Object>> clusters = new LinkedHashMap<>();
        Map<String, Map<String, Object>> users = new LinkedHashMap<>();
        Map<String, Map<String, Object>> contexts = new LinkedHashMap<>();
        for (Path f : files) {
            Object doc;
            try {
                LoaderOptions o = new LoaderOptions();
                o.setMaxAliasesForCollections(10);
                doc = new Yaml(new SafeConstructor(o)).load(InputFiles.readText(f));
            } catch (IOException e) {
                throw new InputException(f + ": cannot read kubeconfig: " + e.getMessage());
            } catch (MarkedYAMLException e) {
                throw YamlError.of(f, "not a valid kubeconfig", e);
            } catch (RuntimeException e) {
                throw new InputException(f + ": not a valid kubeconfig: " + rootMessage(e));
            }
            if (doc == null) {
                continue;
            }
            if (!(doc instanceof Map<?, ?> m)) {
                throw new InputException(f + ": not a valid kubeconfig (expected a mapping)");
            }
            Path dir = f.toAbsolutePath().getParent();
            if (!out.containsKey("current-context")
                    && m.get("current-context") instanceof String cc
                    && !cc.isBlank()) {
                out.put("current-context", cc);
            }
            addNamed(m.get("clusters"), "cluster", clusters, dir, KubeconfigRefs.CLUSTER_FILES);
            addNamed(m.get("users"), "user", users, dir, KubeconfigRefs.USER_FILES);
            addNamed(m.get("contexts"), "context", contexts, dir, List.of());
        }
        out.put("clusters", new ArrayList<>(clusters.values()));
        out.put("users", new ArrayList<>(users.values()));
        out.put("contexts", new ArrayList<>(contexts.values()));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static void addNamed(
            Object list,
            String inner,
            Map<String, Map<String, Object>> into,
            Path dir,
            List<String> pathKeys) {
        if (!(list instanceof List<?> l)) {
            return;
        }
        for (Object o : l) {
            if (o instanceof Map<?, ?> m
                    && m.get("name") instanceof String name
                    && !into.containsKey(name)) {
                Map<String, Object> copy = new LinkedHashMap<>((Map<String, Object>) m);
                if (copy.get(inner) instanceof Map<?, ?> body) {
                    Map<String, Object> b = new LinkedHashMap<>((Map<String, Object>) body);
                    for (String k : pathKeys) {
                        if (b.get(k) instanceof String p && !p.isBlank()) {
                            b.put(k, KubeconfigRefs.resolve(dir, p));
                        }
                    }
                    if (b.get("exec") instanceof Map<?, ?> exec
                            && exec.get("command") instanceof String cmd) {
                        // a command with a separator is a path, relative to this file (kubectl,
                        // Fabric8 with a file)
                        Map<String, Object> e = new LinkedHashMap<>((Map<String, Object>) exec);
                        e.put("command", KubeconfigRefs.resolveCommand(dir, cmd));
                        b.put("exec", e);
                    }
                    copy.put(inner, b);
                }
                into.put(name, copy);
            }
        }
    }

    private static List<String> names(Object list) {
        List<String> out = new ArrayList<>();
        if (list instanceof List<?> l) {
            for (Object o : l) {
                if (o instanceof Map<?, ?> m && m.get("name") instanceof String n) {
                    out.add(n);
                }
            }
        }
        return out;
    }

    public static String rootMessage(Throwable e) {
        Throwable t = e;
        String msg = null;
        while (t != null) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                msg = t.getMessage();
            }
            if (t.getCause() == t) {
                break;
            }
            t = t.getCause();
        }
        if (msg == null) {
            msg = e.getClass().getSimpleName();
        }
        return msg.lines().findFirst().orElse(msg).strip();
    }
}
