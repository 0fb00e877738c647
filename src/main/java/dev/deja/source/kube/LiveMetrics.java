package dev.deja.source.kube;

import dev.deja.engine.Coverage;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.HaproxyConfigs;
import dev.deja.model.haproxy.HaproxyRuntime;
import dev.deja.model.haproxy.Section;
import dev.deja.model.kube.Container;
import dev.deja.model.kube.IngressNginx;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.LoadBalancers;
import dev.deja.model.kube.Selector;
import dev.deja.model.kube.Workload;
import dev.deja.model.prometheus.PodMetrics;
import dev.deja.model.prometheus.PrometheusPeaks;
import dev.deja.source.ScanRequest;
import dev.deja.source.haproxy.HttpStats;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.http.HttpClient;
import java.net.URLEncoder;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code deja scan --cluster --live-metrics}: reads HAProxy's live figures from the proxy pods
 * themselves, through the API server's pod proxy ({@code GET
 * /api/v1/namespaces/NS/pods/NAME:PORT/proxy/metrics}), so that a cluster scan judges sessions
 * against limits without a route to the pods. Which pods: those of the workloads {@link
 * LoadBalancers} counts as HAProxy (plain HAProxy and its two ingress controllers), listed by the
 * workload's selector, running; which ports: their proxy containers' ports named like a stats or
 * metrics port ({@code stat}, {@code stats}, {@code metrics}, {@code prometheus}, {@code
 * exporter}...), else the container ports on which a HAProxy configuration kept in a ConfigMap of
 * the same namespace binds a frontend serving the exporter ({@code http-request use-service
 * prometheus-exporter}, asked on the path of its condition). Each answer is read as {@code
 * --haproxy-runtime http://.../metrics} reads it ({@link HttpStats#parse}: the Prometheus
 * exporter's series or the stats page's CSV) and joins the {@link HaproxyRuntime} part as {@code
 * pod NS/NAME:PORT via API server}.
 *
 * <p>ingress-nginx controller pods: the controller's own endpoint, {@code /metrics} on the port it
 * serves /healthz on (cmd/nginx/main.go registers both on one mux served on {@code --healthz-port},
 * default 10254; the Helm chart declares it as the container port named {@code metrics} when
 * controller.metrics.enabled), read for the gauge {@code
 * nginx_ingress_controller_nginx_process_connections} into the {@link PodMetrics} part, judged by
 * lb-connections-near-capacity. Only pods whose capacity that rule can compute (the controller's
 * ConfigMap in the scan, a numeric worker-processes or one it counts) are read; the others are a
 * note. When the worker count is the CPU count of the pod's node (worker-processes "auto", or unset
 * without a CPU limit), the pod's Node is read for its status.capacity.cpu ({@code get} on nodes);
 * a Node that cannot be read (403) is a note naming the pods not judged, which are not asked.
 *
 * <p>RBAC beyond the default scan: {@code list} on pods and {@code get} on {@code pods/proxy}. A
 * pod that cannot be read (403, 404, the pod's port refusing, no answer within the bound) is a
 * coverage entry naming it (exit 3 unless --allow-partial); no HAProxy or ingress-nginx workload,
 * or a HAProxy one without such a port, is a note.
 */
public final class LiveMetrics {
    /** Container port names taken for a stats/metrics port. */
    static final Pattern PORT_NAME = Pattern.compile("(?i).*(stat|metric|prom|exporter).*");

    /** The path asked on that port: HAProxy's exporter as the HAProxy ingress charts serve it. */
    static final String PATH = "/metrics";

    static final String SOURCE = "kubernetes";

    /** The product name {@link LoadBalancers} gives ingress-nginx. */
    static final String NGINX = "ingress-nginx";

    /**
     * The ingress controllers' own process metrics (HAProxy Ingress's "ingress-stats",
     * ingress-nginx): Go metrics of the controller, not HAProxy's figures, so never read as
     * HAProxy's.
     */
    static final int CONTROLLER_METRICS_PORT = 10254;

    /** Pod reads sent at once. */
    static final int MAX_IN_FLIGHT = 8;

    /** The container port name ingress-nginx's Helm chart gives the controller's metrics port. */
    static final String NGINX_PORT_NAME = "metrics";

    private LiveMetrics() {}

    /**
     * A pod port to read; {@code nginx} is the ingress-nginx workload it was listed from, null for
     * HAProxy.
     */
    record Target(
            String namespace,
            String pod,
            int port,
            String path,
            String workload,
            Workload nginx,
            String node,
            int nodeCpus) {
        Target(
                String namespace,
                String pod,
                int port,
                String path,
                String workload,
                Workload nginx) {
            this(namespace, pod, port, path, workload, nginx, null, 0);
        }

        String address() {
            return "pod " + namespace + "/" + pod + ":" + port + " via API server";
        }

        String scope() {
            return "live metrics of " + address();
        }
    }

    /**
     * Called by the collector once the inventory is read; adds the instances read to the
     * HaproxyRuntime part.
     */
    public static void collect(Snapshot partial, ScanRequest req, SnapshotBuilder out) {
        KubeInventory inv = partial.part(KubeInventory.class).orElse(null);
        if (inv == null) {
            return;
        }
        Config cfg = KubeClients.config(req);
        String server = cfg.getMasterUrl();
        server = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
        String context =
                cfg.getCurrentContext() == null ? "in-cluster" : cfg.getCurrentContext().getName();
        List<HaproxyRuntime.Instance> read =
                new ArrayList<>(
                        partial.part(HaproxyRuntime.class)
                                .map(HaproxyRuntime::instances)
                                .orElse(List.of()));
        int before = read.size();
        List<LoadBalancers.Lb> lbs = LoadBalancers.of(inv);
        List<LoadBalancers.Lb> haproxy =
                lbs.stream()
                        .filter(lb -> lb.product() != null && lb.product().startsWith("HAProxy"))
                        .toList();
        List<LoadBalancers.Lb> nginx =
                lbs.stream().filter(lb -> NGINX.equals(lb.product())).toList();
        if (haproxy.isEmpty() && nginx.isEmpty()) {
            out.notRead(
                    SOURCE,
                    "live metrics",
                    Coverage.Status.NOTE,
                    "--live-metrics: no HAProxy or ingress-nginx"
                            + " workload in the cluster"
                            + (req.namespaces.isEmpty() ? "" : " namespaces read")
                            + ", so no pod was read");
            return;
        }
        List<PodMetrics.Pod> nginxRead =
                new ArrayList<>(
                        partial.part(PodMetrics.class).map(PodMetrics::pods).orElse(List.of()));
        int nginxBefore = nginxRead.size();
        try (HttpClient http = KubeClients.httpClient(cfg)) {
            List<Target> targets = new ArrayList<>();
            Api api = new Api(http, server, context, out);
            Map<String, NodeCpus> nodes = new HashMap<>();
            for (LoadBalancers.Lb lb : nginx) {
                nginxTargets(api, lb, inv, nodes, targets);
            }
            List<Exporter> exporters = haproxy.isEmpty() ? List.of() : exporters(partial);
            for (LoadBalancers.Lb lb : haproxy) {
                haproxyTargets(api, lb, exporters, targets);
            }
            read(api, req, targets, read, nginxRead);
            if (req.verbose) {
                req.err.println(
                        "deja: kubernetes: --live-metrics: "
                                + targets.size()
                                + " pod port(s) asked, "
                                + (read.size() - before + nginxRead.size() - nginxBefore)
                                + " read");
            }
        }
        if (!haproxy.isEmpty() || !read.isEmpty()) {
            out.put(HaproxyRuntime.class, new HaproxyRuntime(read));
        }
        if (!nginxRead.isEmpty()) {
            out.put(PodMetrics.class, new PodMetrics(nginxRead));
        }
    }

    /** What the pod reads go through: the API server's proxy, and where coverage is told. */
    private record Api(HttpClient http, String server, String context, SnapshotBuilder out) {}

    /** The pods of an ingress-nginx workload to read, or a coverage note saying why not. */
    private static void nginxTargets(
            Api api,
            LoadBalancers.Lb lb,
            KubeInventory inv,
            Map<String, NodeCpus> nodes,
            List<Target> targets) {
        SnapshotBuilder out = api.out();
        Workload w = lb.workload();
        String wl = w.kind() + " " + w.namespace() + "/" + w.name();
        if ("false".equalsIgnoreCase(flag(lb, "--enable-metrics"))) {
            out.notRead(
                    SOURCE,
                    "live metrics of " + wl,
                    Coverage.Status.NOTE,
                    "--live-metrics: the controller"
                            + " runs with --enable-metrics=false, so it serves no connection figures; its pods were"
                            + " not read");
            return;
        }
        boolean fromNode =
                IngressNginx.capacity(w, inv) == null && IngressNginx.workersFromNode(w, inv);
        if (IngressNginx.capacity(w, inv) == null && !fromNode) {
            out.notRead(
                    SOURCE,
                    "live metrics of " + wl,
                    Coverage.Status.NOTE,
                    "--live-metrics: its capacity is"
                            + " not known (the ConfigMap its --configmap names is not in the scan, or its"
                            + " worker-processes is not a number nor \"auto\", or is unset with a CPU limit on a"
                            + " controller before v1.10.4/v1.11.2 or of unknown version, or max-worker-connections"
                            + " is 0), so"
                            + " lb-connections-near-capacity could not judge its pods; they were not read");
            return;
        }
        Integer port = nginxPort(lb);
        if (port == null) {
            out.notRead(
                    SOURCE,
                    "live metrics of " + wl,
                    Coverage.Status.NOTE,
                    "--live-metrics: its"
                            + " --healthz-port (where the controller serves /metrics) is not a number: "
                            + flag(lb, "--healthz-port"));
            return;
        }
        Map<String, String> nodeOf = new HashMap<>();
        List<String> pods = pods(api, w.namespace(), w.selector(), wl, nodeOf);
        if (pods == null) {
            return;
        }
        // pod -> why its node's CPU count is not known
        Map<String, String> unknown = new TreeMap<>();
        boolean forbidden = false;
        for (String pod : pods) {
            if (!fromNode) {
                targets.add(new Target(w.namespace(), pod, port, PATH, wl, w));
                continue;
            }
            String node = nodeOf.get(pod);
            NodeCpus n = cpusOf(api, nodes, node);
            if (n.cpus() > 0) {
                targets.add(new Target(w.namespace(), pod, port, PATH, wl, w, node, n.cpus()));
            } else {
                forbidden |= n.forbidden();
                unknown.put(pod, node == null ? n.why() : "node " + node + ": " + n.why());
            }
        }
        if (!unknown.isEmpty()) {
            unknownCpus(api, wl, forbidden, unknown);
        }
    }

    /** The CPU count of the node a pod runs on, read once per node. */
    private static NodeCpus cpusOf(Api api, Map<String, NodeCpus> nodes, String node) {
        NodeCpus n =
                node == null ? new NodeCpus(0, false, "the pod names no node") : nodes.get(node);
        if (n == null) {
            n = nodeCpus(api.http(), api.server(), api.context(), node, api.out());
            nodes.put(node, n);
        }
        return n;
    }

    /**
     * The running pods of a workload (null when they could not be listed; a note when none runs).
     */
    private static List<String> pods(
            Api api, String namespace, Selector selector, String wl, Map<String, String> nodeOf) {
        List<String> pods =
                runningPods(
                        api.http(),
                        api.server(),
                        api.context(),
                        namespace,
                        selector,
                        wl,
                        api.out(),
                        nodeOf);
        if (pods != null && pods.isEmpty()) {
            api.out()
                    .notRead(
                            SOURCE,
                            "live metrics of " + wl,
                            Coverage.Status.NOTE,
                            "--live-metrics: no running pod");
        }
        return pods;
    }

    /**
     * The pods of an ingress-nginx workload whose node's CPU count (its worker count) is unknown.
     */
    private static void unknownCpus(
            Api api, String wl, boolean forbidden, Map<String, String> unknown) {
        String context = api.context();
        SnapshotBuilder out = api.out();
        out.notRead(
                SOURCE,
                "live metrics of " + wl,
                Coverage.Status.NOTE,
                "--live-metrics: its worker count is the CPU count of the node each pod"
                        + " runs on (worker-processes \"auto\", or unset without a CPU"
                        + " limit), and "
                        + (forbidden
                                ? "nodes: forbidden (the credentials of context "
                                        + context
                                        + " may not get nodes; RBAC: get on nodes,"
                                        + " core), worker count unknown"
                                : "it could not be read, worker count unknown")
                        + ", so lb-connections-near-capacity could not judge these"
                        + " pods; they were not read: "
                        + String.join(
                                "; ",
                                unknown.entrySet().stream()
                                        .map(e -> e.getKey() + " (" + e.getValue() + ")")
                                        .toList()));
    }

    /** The stats ports of a HAProxy workload's pods to read, or a coverage note saying why not. */
    private static void haproxyTargets(
            Api api, LoadBalancers.Lb lb, List<Exporter> exporters, List<Target> targets) {
        SnapshotBuilder out = api.out();
        String wl =
                lb.workload().kind() + " " + lb.workload().namespace() + "/" + lb.workload().name();
        Map<String, Integer> ports = new LinkedHashMap<>();
        for (Container c : lb.proxies()) {
            c.ports()
                    .forEach(
                            (name, port) -> {
                                if (port != null
                                        && port != CONTROLLER_METRICS_PORT
                                        && PORT_NAME.matcher(name).matches()) {
                                    ports.putIfAbsent(name, port);
                                }
                            });
        }
        // port -> path asked on it
        Map<Integer, String> asked = new TreeMap<>();
        ports.values().forEach(port -> asked.put(port, PATH));
        if (asked.isEmpty()) {
            // no port named so: a container port on which a HAProxy configuration kept in a
            // ConfigMap of the
            // workload's namespace binds a frontend serving the exporter
            for (Container c : lb.proxies()) {
                for (Integer port : c.ports().values()) {
                    for (Exporter x : exporters) {
                        if (port != null
                                && x.namespace().equals(lb.workload().namespace())
                                && x.port() == port) {
                            asked.putIfAbsent(port, x.path());
                        }
                    }
                }
            }
        }
        if (asked.isEmpty()) {
            out.notRead(
                    SOURCE,
                    "live metrics of " + wl,
                    Coverage.Status.NOTE,
                    "--live-metrics: no container"
                            + " port of its HAProxy container is named like a stats or metrics port (stat, metrics,"
                            + " prometheus, exporter), nor is one the port of a frontend serving 'http-request"
                            + " use-service prometheus-exporter' in a HAProxy configuration kept in a ConfigMap of "
                            + lb.workload().namespace()
                            + ", so its pods were not read");
            return;
        }
        List<String> pods =
                pods(api, lb.workload().namespace(), lb.workload().selector(), wl, null);
        if (pods == null) {
            return;
        }
        for (String pod : pods) {
            asked.forEach(
                    (port, path) ->
                            targets.add(
                                    new Target(
                                            lb.workload().namespace(), pod, port, path, wl, null)));
        }
    }

    /**
     * The targets read, at most MAX_IN_FLIGHT at a time, into {@code read} and {@code nginxRead}.
     */
    private static void read(
            Api api,
            ScanRequest req,
            List<Target> targets,
            List<HaproxyRuntime.Instance> read,
            List<PodMetrics.Pod> nginxRead) {
        HttpClient http = api.http();
        String server = api.server();
        String context = api.context();
        SnapshotBuilder out = api.out();
        // at most MAX_IN_FLIGHT pod reads at a time: the API server proxies each one
        for (int from = 0; from < targets.size(); from += MAX_IN_FLIGHT) {
            Map<Target, CompletableFuture<KubeLiveSource.Answer>> sent = new LinkedHashMap<>();
            for (Target t : targets.subList(from, Math.min(targets.size(), from + MAX_IN_FLIGHT))) {
                String url =
                        server
                                + "/api/v1/namespaces/"
                                + enc(t.namespace())
                                + "/pods/"
                                + enc(t.pod())
                                + ":"
                                + t.port()
                                + "/proxy"
                                + t.path();
                sent.put(
                        t,
                        KubeLiveSource.send(
                                http,
                                url,
                                "text/plain;version=0.0.4, */*;q=0.1",
                                req.liveMetricsTimeoutMillis));
            }
            for (Map.Entry<Target, CompletableFuture<KubeLiveSource.Answer>> e : sent.entrySet()) {
                Target t = e.getKey();
                try {
                    KubeLiveSource.Answer a =
                            answer(t, e.getValue(), context, req.liveMetricsTimeoutMillis, server);
                    String body = new String(a.body(), StandardCharsets.UTF_8);
                    String type = a.header("Content-Type") == null ? "" : a.header("Content-Type");
                    if (t.nginx() != null) {
                        if (type.toLowerCase(Locale.ROOT).startsWith("text/html")) {
                            throw new Failed(
                                    Coverage.Status.FAILED, "an HTML page, not Prometheus metrics");
                        }
                        List<PrometheusPeaks.Sample> samples = PodMetrics.nginxConnections(body);
                        nginxRead.add(
                                new PodMetrics.Pod(
                                        t.namespace(),
                                        t.pod(),
                                        t.port(),
                                        t.nginx().kind(),
                                        t.nginx().name(),
                                        samples,
                                        t.node(),
                                        t.nodeCpus()));
                        out.read(SOURCE, t.scope(), samples.size());
                        continue;
                    }
                    HaproxyRuntime.Instance in = HttpStats.parse(t.address(), type, body);
                    in.check();
                    read.add(in);
                    out.read(SOURCE, t.scope(), in.rows().size());
                } catch (Failed f) {
                    out.notRead(SOURCE, t.scope(), f.status, f.getMessage());
                } catch (IllegalArgumentException x) {
                    out.notRead(SOURCE, t.scope(), Coverage.Status.FAILED, x.getMessage());
                }
            }
        }
    }

    /** A pod port that could not be read, with its coverage status. */
    static final class Failed extends Exception {
        private static final long serialVersionUID = 1L;
        final Coverage.Status status;

        Failed(Coverage.Status status, String m) {
            super(m, null, false, false);
            this.status = status;
        }
    }

    /** A pod's 200 answer; any other outcome is {@link Failed} with its coverage status. */
    private static KubeLiveSource.Answer answer(
            Target t,
            CompletableFuture<KubeLiveSource.Answer> f,
            String context,
            long timeoutMillis,
            String server)
            throws Failed {
        KubeLiveSource.Answer a;
        try {
            a = f.get(timeoutMillis + 1_000L, TimeUnit.MILLISECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new Failed(Coverage.Status.FAILED, "interrupted");
        } catch (TimeoutException x) {
            f.cancel(true);
            throw new Failed(Coverage.Status.FAILED, "no answer within " + timeoutMillis + " ms");
        } catch (ExecutionException | RuntimeException x) {
            for (Throwable c = x; c != null; c = c.getCause() == c ? null : c.getCause()) {
                if (c instanceof HttpTimeoutException) {
                    throw new Failed(
                            Coverage.Status.FAILED, "no answer within " + timeoutMillis + " ms");
                }
            }
            throw new Failed(
                    Coverage.Status.FAILED,
                    KubeLiveSource.transport(x, server, context, KubeClients.CONNECT_TIMEOUT_MS));
        }
        if (a.over()) {
            throw new Failed(
                    Coverage.Status.FAILED,
                    "the answer was larger than "
                            + (KubeLiveSource.maxResponseBytes >> 20)
                            + " MiB: not read");
        }
        int code = a.code();
        if (code == 200) {
            return a;
        }
        String why = KubeLiveSource.statusMessage(a.body());
        String tail = why == null ? "" : ": " + why;
        if (code == 403) {
            throw new Failed(
                    Coverage.Status.DENIED,
                    "403 Forbidden: the credentials of context "
                            + context
                            + " may not get pods/proxy in "
                            + t.namespace()
                            + " (RBAC: get on pods/proxy, core; see the"
                            + " README, --live-metrics)"
                            + tail);
        }
        if (code == 401) {
            if (why != null) {
                // a Kubernetes Status: the API server itself refused deja's credentials
                throw new Failed(
                        Coverage.Status.DENIED,
                        "401 Unauthorized: the API server refused the credentials of context "
                                + context
                                + tail);
            }
            throw new Failed(
                    Coverage.Status.DENIED, podAsksForAuth(t, a.header("WWW-Authenticate")));
        }
        if (code >= 300 && code < 400) {
            throw new Failed(
                    Coverage.Status.FAILED,
                    "HTTP " + code + " (a redirect); deja does not follow redirects");
        }
        throw new Failed(
                Coverage.Status.FAILED,
                "HTTP "
                        + code
                        + (code == 404
                                ? " (no such pod, or the port does not" + " serve " + t.path() + ")"
                                : code == 503 || code == 502
                                        ? " (the API server could not reach the pod's port)"
                                        : "")
                        + tail);
    }

    /**
     * Why a pod's own 401 (HAProxy's {@code stats auth}, not a Kubernetes Status) cannot be
     * answered through the pod proxy: the API server deletes the Authorization header of every
     * request it has authenticated before handling it (k8s.io/apiserver
     * pkg/endpoints/filters/authentication.go, WithAuthentication: "On success, "Authorization"
     * header is removed from the request"), so a user and password for the pod can never reach it
     * that way.
     */
    static String podAsksForAuth(Target t, String wwwAuthenticate) {
        String asks =
                wwwAuthenticate == null
                        ? ""
                        : " (WWW-Authenticate: "
                                + (wwwAuthenticate.length() > 80
                                                ? wwwAuthenticate.substring(0, 77) + "..."
                                                : wwwAuthenticate)
                                        .replaceAll("\\p{Cntrl}", "?")
                                + ")";
        return "401 Unauthorized from the pod"
                + asks
                + ": its stats page asks for a user and password (HAProxy's 'stats auth'), which"
                + " cannot travel through the API server's pod proxy: the API server removes the"
                + " Authorization header of a request once it has authenticated it"
                + " (k8s.io/apiserver, filters WithAuthentication). Read it with kubectl"
                + " port-forward pod/"
                + t.pod()
                + " -n "
                + t.namespace()
                + " "
                + t.port()
                + " and --haproxy-runtime http://127.0.0.1:"
                + t.port()
                + t.path()
                + " --haproxy-runtime-auth FILE, or serve the Prometheus exporter (or a stats page"
                + " without 'stats auth') on a port of its own";
    }

    /**
     * A frontend serving HAProxy's Prometheus exporter ({@code http-request use-service
     * prometheus-exporter}) in a configuration kept in a ConfigMap: the ConfigMap's namespace, a
     * port it binds, and the path its condition asks for ({@code { path /metrics }}; /metrics when
     * the condition names none).
     */
    record Exporter(String namespace, int port, String path) {}

    /**
     * "ConfigMap NS/NAME#KEY", optionally prefixed by "[manifest] ": how {@link HaproxyConfigMaps}
     * names them.
     */
    private static final Pattern CONFIGMAP_FILE =
            Pattern.compile("^(?:\\[[^\\]]*\\] )?ConfigMap ([^/#]+)/.*");

    static List<Exporter> exporters(Snapshot partial) {
        List<Exporter> out = new ArrayList<>();
        HaproxyConfigs cfgs = partial.part(HaproxyConfigs.class).orElse(null);
        if (cfgs == null) {
            return out;
        }
        for (HaproxyConfig cfg : cfgs.configs()) {
            for (Section s : cfg.sections()) {
                if (!s.isProxy()) {
                    continue;
                }
                Directive ex = null;
                for (Directive d : s.directives()) {
                    if (d.is("http-request")
                            && "use-service".equals(d.word(1))
                            && d.word(2) != null
                            && d.word(2).startsWith("prometheus-exporter")) {
                        ex = d;
                        break;
                    }
                }
                Matcher m = CONFIGMAP_FILE.matcher(s.file() == null ? "" : s.file());
                if (ex == null || !m.matches()) {
                    continue;
                }
                String path = exporterPath(ex);
                for (Directive d : s.directives()) {
                    if (d.is("bind") && d.word(1) != null && !d.unresolved(1)) {
                        for (String addr : d.word(1).split(",")) {
                            int colon = addr.lastIndexOf(':');
                            String port = colon < 0 ? "" : addr.substring(colon + 1);
                            if (!addr.contains("@/") && port.matches("\\d{1,5}")) {
                                out.add(new Exporter(m.group(1), Integer.parseInt(port), path));
                            }
                        }
                    }
                }
            }
        }
        return out;
    }

    /**
     * The path in the exporter rule's condition ({@code if { path /metrics }}, path_beg too), else
     * /metrics.
     */
    static String exporterPath(Directive d) {
        for (int i = 3; i + 1 < d.size(); i++) {
            String w = d.word(i);
            if ((w.equals("path") || w.equals("path_beg")) && d.word(i + 1).startsWith("/")) {
                return d.word(i + 1);
            }
        }
        return PATH;
    }

    /**
     * The port an ingress-nginx controller serves /metrics on: the container port named {@code
     * metrics} (the Helm chart's), else its {@code --healthz-port}, else 10254 (the flag's
     * default); null when the flag is not a number.
     */
    static Integer nginxPort(LoadBalancers.Lb lb) {
        for (Container c : lb.proxies()) {
            Integer named = c.ports().get(NGINX_PORT_NAME);
            if (named != null) {
                return named;
            }
        }
        String flag = flag(lb, "--healthz-port");
        if (flag == null) {
            return CONTROLLER_METRICS_PORT;
        }
        return flag.strip().matches("\\d{1,5}") ? Integer.valueOf(flag.strip()) : null;
    }

    private static String flag(LoadBalancers.Lb lb, String name) {
        for (Container c : lb.proxies()) {
            String v = c.flag(name);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    /**
     * The running pods a workload's selector selects, putting each pod's {@code spec.nodeName} in
     * {@code nodeOf} when not null; null when they could not be listed (a coverage entry).
     */
    static List<String> runningPods(
            HttpClient http,
            String server,
            String context,
            String namespace,
            Selector selector,
            String workload,
            SnapshotBuilder out,
            Map<String, String> nodeOf) {
        String scope = "pods of " + workload;
        if (selector == null || selector.isEmpty()) {
            out.notRead(
                    SOURCE,
                    "live metrics of " + workload,
                    Coverage.Status.NOTE,
                    "--live-metrics: the workload"
                            + " has no selector, so its pods cannot be found");
            return null;
        }
        String url =
                server
                        + "/api/v1/namespaces/"
                        + enc(namespace)
                        + "/pods?labelSelector="
                        + enc(labelSelector(selector));
        KubeLiveSource.Answer a;
        CompletableFuture<KubeLiveSource.Answer> f =
                KubeLiveSource.send(http, url, "application/json", KubeClients.REQUEST_TIMEOUT_MS);
        try {
            a = f.get(KubeClients.AWAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            out.notRead(SOURCE, scope, Coverage.Status.FAILED, "interrupted");
            return null;
        } catch (TimeoutException | ExecutionException | RuntimeException x) {
            f.cancel(true);
            out.notRead(
                    SOURCE,
                    scope,
                    Coverage.Status.FAILED,
                    KubeLiveSource.transport(x, server, context, KubeClients.CONNECT_TIMEOUT_MS));
            return null;
        }
        if (a.code() != 200 || a.over()) {
            String why = KubeLiveSource.statusMessage(a.body());
            out.notRead(
                    SOURCE,
                    scope,
                    a.code() == 403 ? Coverage.Status.DENIED : Coverage.Status.FAILED,
                    (a.code() == 403
                                    ? "403 Forbidden: the credentials of context "
                                            + context
                                            + " may not list pods in "
                                            + namespace
                                            + " (RBAC: list on pods, core; needed by --live-metrics)"
                                    : a.over() ? "the pod list was too large" : "HTTP " + a.code())
                            + (why == null ? "" : ": " + why));
            return null;
        }
        List<String> pods;
        try {
            pods = running(a.body(), selector, nodeOf);
        } catch (RuntimeException x) {
            out.notRead(
                    SOURCE,
                    scope,
                    Coverage.Status.FAILED,
                    "the server's answer is not a JSON pod list");
            return null;
        }
        out.read(SOURCE, scope, pods.size());
        Collections.sort(pods);
        return pods;
    }

    /**
     * The names of the running pods of a pod list that {@code selector} selects, in the list's
     * order (see {@link #runningPods}).
     */
    private static List<String> running(
            byte[] body, Selector selector, Map<String, String> nodeOf) {
        List<String> pods = new ArrayList<>();
        JsonNode list = JsonMapper.builder().build().readTree(body);
        if (!list.path("items").isArray()) {
            throw new IllegalArgumentException("no items");
        }
        for (JsonNode item : list.path("items")) {
            JsonNode md = item.path("metadata");
            String name = md.path("name").asString(null);
            Map<String, String> labels = new LinkedHashMap<>();
            md.path("labels")
                    .properties()
                    .forEach(e -> labels.put(e.getKey(), e.getValue().asString()));
            // a pod the selector selects, not being deleted, running (a Pending pod has no port
            // to ask)
            if (name != null
                    && md.path("deletionTimestamp").isMissingNode()
                    && "Running".equals(item.path("status").path("phase").asString(null))
                    && selector.matches(labels)) {
                pods.add(name);
                String node = item.path("spec").path("nodeName").asString(null);
                if (nodeOf != null && node != null && !node.isEmpty()) {
                    nodeOf.put(name, node);
                }
            }
        }
        return pods;
    }

    /**
     * A node's CPU count ({@code status.capacity.cpu}, a whole number), or 0 with why it is not
     * known ({@code forbidden}: the API server answered 403).
     */
    record NodeCpus(int cpus, boolean forbidden, String why) {}

    /**
     * {@code GET /api/v1/nodes/NAME}: its {@code status.capacity.cpu}, the CPUs the kubelet found
     * on the machine. Not {@code allocatable}: that is capacity less what is reserved for the
     * system and the kubelet, a figure for the scheduler's accounting; a container's processes may
     * still run on every CPU of the node (the kubelet's default CPU manager policy, none, puts no
     * container on a CPU subset), so nginx's and Go's counts of the CPUs the process may run on
     * find them all.
     */
    static NodeCpus nodeCpus(
            HttpClient http, String server, String context, String node, SnapshotBuilder out) {
        String scope = "node " + node;
        KubeLiveSource.Answer a;
        CompletableFuture<KubeLiveSource.Answer> f =
                KubeLiveSource.send(
                        http,
                        server + "/api/v1/nodes/" + enc(node),
                        "application/json",
                        KubeClients.REQUEST_TIMEOUT_MS);
        try {
            a = f.get(KubeClients.AWAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            return new NodeCpus(0, false, "interrupted");
        } catch (TimeoutException | ExecutionException | RuntimeException x) {
            f.cancel(true);
            return new NodeCpus(
                    0,
                    false,
                    KubeLiveSource.transport(x, server, context, KubeClients.CONNECT_TIMEOUT_MS));
        }
        if (a.code() == 403) {
            return new NodeCpus(0, true, "forbidden (403)");
        }
        if (a.code() != 200 || a.over()) {
            String why = KubeLiveSource.statusMessage(a.body());
            return new NodeCpus(
                    0,
                    false,
                    (a.over() ? "the answer was too large" : "HTTP " + a.code())
                            + (why == null ? "" : ": " + why));
        }
        String cpu;
        try {
            cpu =
                    JsonMapper.builder()
                            .build()
                            .readTree(a.body())
                            .path("status")
                            .path("capacity")
                            .path("cpu")
                            .asString(null);
        } catch (RuntimeException x) {
            return new NodeCpus(0, false, "the server's answer is not a JSON Node");
        }
        int cpus = wholeCpus(cpu);
        if (cpus < 1) {
            return new NodeCpus(
                    0,
                    false,
                    cpu == null
                            ? "it has no status.capacity.cpu"
                            : "its status.capacity.cpu " + cpu + " is not a whole number of CPUs");
        }
        out.read(SOURCE, scope, 1);
        return new NodeCpus(cpus, false, null);
    }

    /** "4" or "4000m" is 4; anything else (fractions, other units) is 0. */
    static int wholeCpus(String q) {
        if (q == null) {
            return 0;
        }
        Matcher m = Pattern.compile("(\\d{1,6})(m?)").matcher(q.strip());
        if (!m.matches()) {
            return 0;
        }
        long v = Long.parseLong(m.group(1));
        if (m.group(2).isEmpty()) {
            return (int) v;
        }
        return v % 1000 == 0 ? (int) (v / 1000) : 0;
    }

    /** A selector as the API's labelSelector parameter writes it. */
    static String labelSelector(Selector s) {
        List<String> parts = new ArrayList<>();
        s.matchLabels().forEach((k, v) -> parts.add(k + "=" + v));
        for (Selector.Expression x : s.expressions()) {
            switch (x.operator() == null ? "" : x.operator()) {
                case "In" -> parts.add(x.key() + " in (" + String.join(",", x.values()) + ")");
                case "NotIn" ->
                        parts.add(x.key() + " notin (" + String.join(",", x.values()) + ")");
                case "Exists" -> parts.add(x.key());
                case "DoesNotExist" -> parts.add("!" + x.key());
                default -> {}
            }
        }
        return String.join(",", parts);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
