package dev.deja.kube;

import dev.deja.engine.Coverage;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.haproxy.HaproxyRuntime;
import dev.deja.haproxy.HttpStats;
import dev.deja.kube.model.Container;
import dev.deja.kube.model.KubeInventory;
import dev.deja.kube.model.Selector;
import dev.deja.rules.kube.LoadBalancers;
import dev.deja.source.ScanRequest;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.http.HttpClient;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * {@code deja scan --cluster --live-metrics}: reads HAProxy's live figures from the proxy pods themselves, through
 * the API server's pod proxy ({@code GET /api/v1/namespaces/NS/pods/NAME:PORT/proxy/metrics}), so that a cluster
 * scan judges sessions against limits without a route to the pods. Which pods: those of the workloads
 * {@link LoadBalancers} counts as HAProxy (plain HAProxy and its two ingress controllers), listed by the workload's
 * selector, running; which ports: their proxy containers' ports named like a stats or metrics port ({@code stat},
 * {@code stats}, {@code metrics}, {@code prometheus}, {@code exporter}...). Each answer is read as
 * {@code --haproxy-runtime http://.../metrics} reads it ({@link HttpStats#parse}: the Prometheus exporter's series or
 * the stats page's CSV) and joins the {@link HaproxyRuntime} part as {@code pod NS/NAME:PORT via API server}.
 *
 * <p>RBAC beyond the default scan: {@code list} on pods and {@code get} on {@code pods/proxy}. A pod that cannot be
 * read (403, 404, the pod's port refusing, no answer within the bound) is a coverage entry naming it (exit 3 unless
 * --allow-partial); no HAProxy workload, or one without such a port, is a note. ingress-nginx's own metrics
 * (port 10254) are not read here (see the README).
 */
public final class LiveMetrics {
    /** Container port names taken for a stats/metrics port. */
    static final Pattern PORT_NAME = Pattern.compile("(?i).*(stat|metric|prom|exporter).*");
    /** The path asked on that port: HAProxy's exporter as the HAProxy ingress charts serve it. */
    static final String PATH = "/metrics";
    static final String SOURCE = "kubernetes";
    /**
     * The ingress controllers' own process metrics (HAProxy Ingress's "ingress-stats", ingress-nginx): Go metrics
     * of the controller, not HAProxy's figures, so never read as HAProxy's.
     */
    static final int CONTROLLER_METRICS_PORT = 10254;
    /** Pod reads sent at once. */
    static final int MAX_IN_FLIGHT = 8;

    private LiveMetrics() {
    }

    /** A pod port to read. */
    record Target(String namespace, String pod, int port, String workload) {
        String address() {
            return "pod " + namespace + "/" + pod + ":" + port + " via API server";
        }

        String scope() {
            return "live metrics of " + address();
        }
    }

    /** Called by the collector once the inventory is read; adds the instances read to the HaproxyRuntime part. */
    public static void collect(Snapshot partial, ScanRequest req, SnapshotBuilder out) {
        KubeInventory inv = partial.part(KubeInventory.class).orElse(null);
        if (inv == null) {
            return;
        }
        Config cfg = KubeClients.config(req);
        String server = cfg.getMasterUrl();
        server = server.endsWith("/") ? server.substring(0, server.length() - 1) : server;
        String context = cfg.getCurrentContext() == null ? "in-cluster" : cfg.getCurrentContext().getName();
        List<HaproxyRuntime.Instance> read = new ArrayList<>(partial.part(HaproxyRuntime.class)
                .map(HaproxyRuntime::instances).orElse(List.of()));
        int before = read.size();
        List<LoadBalancers.Lb> haproxy = LoadBalancers.of(inv).stream()
                .filter(lb -> lb.product() != null && lb.product().startsWith("HAProxy")).toList();
        if (haproxy.isEmpty()) {
            out.notRead(SOURCE, "live metrics", Coverage.Status.NOTE, "--live-metrics: no HAProxy workload in the"
                    + " cluster" + (req.namespaces.isEmpty() ? "" : " namespaces read") + ", so no pod was read");
            return;
        }
        try (HttpClient http = KubeClients.httpClient(cfg)) {
            List<Target> targets = new ArrayList<>();
            for (LoadBalancers.Lb lb : haproxy) {
                String wl = lb.workload().kind() + " " + lb.workload().namespace() + "/" + lb.workload().name();
                Map<String, Integer> ports = new LinkedHashMap<>();
                for (Container c : lb.proxies()) {
                    c.ports().forEach((name, port) -> {
                        if (port != null && port != CONTROLLER_METRICS_PORT && PORT_NAME.matcher(name).matches()) {
                            ports.putIfAbsent(name, port);
                        }
                    });
                }
                if (ports.isEmpty()) {
                    out.notRead(SOURCE, "live metrics of " + wl, Coverage.Status.NOTE, "--live-metrics: no container"
                            + " port of its HAProxy container is named like a stats or metrics port (stat, metrics,"
                            + " prometheus, exporter), so its pods were not read");
                    continue;
                }
                List<String> pods = runningPods(http, server, context, lb.workload().namespace(),
                        lb.workload().selector(), wl, out);
                if (pods == null) {
                    continue;
                }
                if (pods.isEmpty()) {
                    out.notRead(SOURCE, "live metrics of " + wl, Coverage.Status.NOTE, "--live-metrics: no running pod");
                }
                for (String pod : pods) {
                    for (int port : new java.util.TreeSet<>(ports.values())) {
                        targets.add(new Target(lb.workload().namespace(), pod, port, wl));
                    }
                }
            }
            // at most MAX_IN_FLIGHT pod reads at a time: the API server proxies each one
            for (int from = 0; from < targets.size(); from += MAX_IN_FLIGHT) {
                Map<Target, CompletableFuture<KubeLiveSource.Answer>> sent = new LinkedHashMap<>();
                for (Target t : targets.subList(from, Math.min(targets.size(), from + MAX_IN_FLIGHT))) {
                    String url = server + "/api/v1/namespaces/" + enc(t.namespace()) + "/pods/" + enc(t.pod()) + ":"
                            + t.port() + "/proxy" + PATH;
                    sent.put(t, KubeLiveSource.send(http, url, "text/plain;version=0.0.4, */*;q=0.1",
                            req.liveMetricsTimeoutMillis));
                }
                for (Map.Entry<Target, CompletableFuture<KubeLiveSource.Answer>> e : sent.entrySet()) {
                    Target t = e.getKey();
                    try {
                        HaproxyRuntime.Instance in = instance(t, e.getValue(), context, req.liveMetricsTimeoutMillis,
                                server);
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
            if (req.verbose) {
                req.err.println("deja: kubernetes: --live-metrics: " + targets.size() + " pod port(s) asked, "
                        + (read.size() - before) + " read");
            }
        }
        out.put(HaproxyRuntime.class, new HaproxyRuntime(read));
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

    private static HaproxyRuntime.Instance instance(Target t, CompletableFuture<KubeLiveSource.Answer> f,
                                                    String context, long timeoutMillis, String server) throws Failed {
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
                if (c instanceof java.net.http.HttpTimeoutException) {
                    throw new Failed(Coverage.Status.FAILED, "no answer within " + timeoutMillis + " ms");
                }
            }
            throw new Failed(Coverage.Status.FAILED, KubeLiveSource.transport(x, server, context,
                    KubeClients.CONNECT_TIMEOUT_MS));
        }
        if (a.over()) {
            throw new Failed(Coverage.Status.FAILED, "the answer was larger than "
                    + (KubeLiveSource.maxResponseBytes >> 20) + " MiB: not read");
        }
        int code = a.code();
        if (code == 200) {
            String type = a.header("Content-Type");
            return HttpStats.parse(t.address(), type == null ? "" : type,
                    new String(a.body(), StandardCharsets.UTF_8));
        }
        String why = KubeLiveSource.statusMessage(a.body());
        String tail = why == null ? "" : ": " + why;
        if (code == 403) {
            throw new Failed(Coverage.Status.DENIED, "403 Forbidden: the credentials of context " + context
                    + " may not get pods/proxy in " + t.namespace() + " (RBAC: get on pods/proxy, core; see the"
                    + " README, --live-metrics)" + tail);
        }
        if (code == 401) {
            throw new Failed(Coverage.Status.DENIED, "401 Unauthorized" + tail);
        }
        if (code >= 300 && code < 400) {
            throw new Failed(Coverage.Status.FAILED, "HTTP " + code + " (a redirect); deja does not follow redirects");
        }
        throw new Failed(Coverage.Status.FAILED, "HTTP " + code + (code == 404 ? " (no such pod, or the port does not"
                + " serve " + PATH + ")" : code == 503 || code == 502 ? " (the API server could not reach the pod's port)"
                : "") + tail);
    }

    /** The running pods a workload's selector selects; null when they could not be listed (a coverage entry). */
    static List<String> runningPods(HttpClient http, String server, String context, String namespace,
                                    Selector selector, String workload, SnapshotBuilder out) {
        String scope = "pods of " + workload;
        if (selector == null || selector.isEmpty()) {
            out.notRead(SOURCE, "live metrics of " + workload, Coverage.Status.NOTE, "--live-metrics: the workload"
                    + " has no selector, so its pods cannot be found");
            return null;
        }
        String url = server + "/api/v1/namespaces/" + enc(namespace) + "/pods?labelSelector=" + enc(labelSelector(selector));
        KubeLiveSource.Answer a;
        CompletableFuture<KubeLiveSource.Answer> f = KubeLiveSource.send(http, url, "application/json",
                KubeClients.REQUEST_TIMEOUT_MS);
        try {
            a = f.get(KubeClients.REQUEST_TIMEOUT_MS + 5_000L, TimeUnit.MILLISECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            out.notRead(SOURCE, scope, Coverage.Status.FAILED, "interrupted");
            return null;
        } catch (TimeoutException | ExecutionException | RuntimeException x) {
            f.cancel(true);
            out.notRead(SOURCE, scope, Coverage.Status.FAILED, KubeLiveSource.transport(x, server, context,
                    KubeClients.CONNECT_TIMEOUT_MS));
            return null;
        }
        if (a.code() != 200 || a.over()) {
            String why = KubeLiveSource.statusMessage(a.body());
            out.notRead(SOURCE, scope, a.code() == 403 ? Coverage.Status.DENIED : Coverage.Status.FAILED,
                    (a.code() == 403 ? "403 Forbidden: the credentials of context " + context + " may not list pods in "
                            + namespace + " (RBAC: list on pods, core; needed by --live-metrics)"
                            : a.over() ? "the pod list was too large" : "HTTP " + a.code())
                            + (why == null ? "" : ": " + why));
            return null;
        }
        List<String> pods = new ArrayList<>();
        try {
            tools.jackson.databind.JsonNode list = tools.jackson.databind.json.JsonMapper.builder().build()
                    .readTree(a.body());
            if (!list.path("items").isArray()) {
                throw new IllegalArgumentException("no items");
            }
            for (tools.jackson.databind.JsonNode item : list.path("items")) {
                tools.jackson.databind.JsonNode md = item.path("metadata");
                String name = md.path("name").asString(null);
                Map<String, String> labels = new LinkedHashMap<>();
                md.path("labels").properties().forEach(e -> labels.put(e.getKey(), e.getValue().asString()));
                // a pod the selector selects, not being deleted, running (a Pending pod has no port to ask)
                if (name != null && md.path("deletionTimestamp").isMissingNode()
                        && "Running".equals(item.path("status").path("phase").asString(null)) && selector.matches(labels)) {
                    pods.add(name);
                }
            }
        } catch (RuntimeException x) {
            out.notRead(SOURCE, scope, Coverage.Status.FAILED, "the server's answer is not a JSON pod list");
            return null;
        }
        out.read(SOURCE, scope, pods.size());
        java.util.Collections.sort(pods);
        return pods;
    }

    /** A selector as the API's labelSelector parameter writes it. */
    static String labelSelector(Selector s) {
        List<String> parts = new ArrayList<>();
        s.matchLabels().forEach((k, v) -> parts.add(k + "=" + v));
        for (Selector.Expression x : s.expressions()) {
            switch (x.operator() == null ? "" : x.operator()) {
                case "In" -> parts.add(x.key() + " in (" + String.join(",", x.values()) + ")");
                case "NotIn" -> parts.add(x.key() + " notin (" + String.join(",", x.values()) + ")");
                case "Exists" -> parts.add(x.key());
                case "DoesNotExist" -> parts.add("!" + x.key());
                default -> { }
            }
        }
        return String.join(",", parts);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
