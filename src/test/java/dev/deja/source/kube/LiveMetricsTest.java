package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code --live-metrics}: HAProxy's exporter read from the proxy pods through the API server's pod
 * proxy, against Fabric8's mock API server in CRUD mode (workloads and pods stored as created)
 * answering the pods/proxy path itself.
 */
class LiveMetricsTest {
    @TempDir Path tmp;

    /**
     * HAProxy 2.6's exporter, as a real one answers (names and labels as in HaproxyHttpStatsTest):
     * fe_main at 790/800.
     */
    static final String METRICS =
            "# HELP haproxy_process_max_connections Maximum number of concurrent connections\n"
                    + "# TYPE haproxy_process_max_connections gauge\n"
                    + "haproxy_process_max_connections 4000\n"
                    + "# HELP haproxy_process_current_connections Number of active sessions\n"
                    + "# TYPE haproxy_process_current_connections gauge\n"
                    + "haproxy_process_current_connections 812\n"
                    + "haproxy_process_current_connection_rate 40\n"
                    + "haproxy_process_max_connection_rate 350\n"
                    + "haproxy_process_uptime_seconds 86400\n"
                    + "haproxy_process_build_info{version=\"2.6.12-1+deb12u4\"} 1\n"
                    + "# HELP haproxy_frontend_current_sessions Number of current sessions on the frontend, backend or server\n"
                    + "# TYPE haproxy_frontend_current_sessions gauge\n"
                    + "haproxy_frontend_current_sessions{proxy=\"fe_main\"} 640\n"
                    + "haproxy_frontend_current_sessions{proxy=\"stats\"} 1\n"
                    + "# TYPE haproxy_frontend_max_sessions gauge\n"
                    + "haproxy_frontend_max_sessions{proxy=\"fe_main\"} 790\n"
                    + "haproxy_frontend_max_sessions{proxy=\"stats\"} 1\n"
                    + "# TYPE haproxy_frontend_limit_sessions gauge\n"
                    + "haproxy_frontend_limit_sessions{proxy=\"fe_main\"} 800\n"
                    + "haproxy_frontend_limit_sessions{proxy=\"stats\"} 4000\n"
                    + "haproxy_frontend_sessions_total{proxy=\"fe_main\"} 1234567\n"
                    + "haproxy_frontend_denied_connections_total{proxy=\"fe_main\"} 0\n"
                    + "haproxy_frontend_requests_denied_total{proxy=\"fe_main\"} 0\n"
                    + "haproxy_frontend_max_session_rate{proxy=\"fe_main\"} 300\n";

    static final String MANIFEST =
            """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: haproxy-ingress, namespace: edge}
            spec:
              replicas: 2
              selector: {matchLabels: {app: haproxy-ingress}}
              template:
                metadata: {labels: {app: haproxy-ingress}}
                spec:
                  containers:
                    - name: controller
                      image: haproxytech/kubernetes-ingress:1.11.3
                      ports:
                        - {name: http, containerPort: 8080}
                        - {name: stat, containerPort: 1024}
            ---
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: web, namespace: edge}
            spec:
              replicas: 1
              selector: {matchLabels: {app: web}}
              template:
                metadata: {labels: {app: web}}
                spec:
                  containers:
                    - name: web
                      image: example/web:1.0
                      ports:
                        - {name: metrics, containerPort: 9100}
            """;

    /**
     * The mock answering the pod proxy paths with {@code proxy}; every request path it saw goes
     * into {@code seen}.
     */
    private MockCluster cluster(Function<String, MockResponse> proxy, Set<String> seen)
            throws IOException {
        MockCluster c =
                new MockCluster(
                        (RecordedRequest r) -> {
                            seen.add(r.getPath());
                            return r.getPath().contains("/proxy/")
                                    ? proxy.apply(r.getPath())
                                    : null;
                        });
        Path m = tmp.resolve("manifest.yaml");
        Files.writeString(m, MANIFEST);
        c.apply(m, null);
        pod(c, "haproxy-ingress-6f7c9-abcde", "haproxy-ingress", "Running");
        pod(
                c,
                "haproxy-ingress-6f7c9-fghij",
                "haproxy-ingress",
                "Pending"); // not serving: not read
        pod(c, "web-5d4b8-klmno", "web", "Running"); // not a proxy: never read
        return c;
    }

    private static void pod(MockCluster c, String name, String app, String phase) {
        c.pod("edge", name, Map.of("app", app), "c", "x", null, phase);
    }

    static final String RULE = "haproxy-sessions-near-limit";

    /** The coverage scope of the running proxy pod's stats port. */
    static final String POD_SCOPE =
            "live metrics of pod edge/haproxy-ingress-6f7c9-abcde:1024 via API server";

    static final String PROXY_PATH =
            "/api/v1/namespaces/edge/pods/haproxy-ingress-6f7c9-abcde:1024/proxy/metrics";

    @Test
    void aFrontendAtItsLimitInAPodFiresThroughThePodProxy() throws IOException {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        try (MockCluster c =
                cluster(
                        path ->
                                path.equals(PROXY_PATH)
                                        ? new MockResponse()
                                                .setResponseCode(200)
                                                .setHeader(
                                                        "Content-Type", "text/plain; version=0.0.4")
                                                .setBody(METRICS)
                                        : null,
                        seen)) {
            TestSupport.Run r = LiveScans.liveJson(c, tmp, RULE);
            assertEquals(1, r.code(), r.err() + r.out());
            JsonNode report = KubeLiveSourceTest.json(r.out());
            assertTrue(report.path("coverage").path("complete").asBoolean(), r.out());
            List<String> messages = LiveScans.messages(report, RULE);
            assertEquals(1, messages.size(), r.out());
            String m = messages.get(0);
            assertTrue(
                    m.startsWith(
                            "frontend fe_main at pod edge/haproxy-ingress-6f7c9-abcde:1024 via API server"
                                    + " reached 790 of 800 sessions (99%"),
                    m);
            assertTrue(
                    report.path("findings").get(0).path("severity").asString().equals("high"),
                    r.out());
            // only the running proxy pod's stats port was asked; the Pending pod and the web app
            // were not
            assertTrue(seen.contains(PROXY_PATH), seen.toString());
            assertEquals(
                    1, seen.stream().filter(p -> p.contains("/proxy/")).count(), seen.toString());
            assertTrue(
                    LiveScans.entries(report, "read").stream()
                            .anyMatch(e -> e.path("scope").asString().equals(POD_SCOPE)),
                    r.out());
            // without --live-metrics the pods are never asked
            seen.clear();
            TestSupport.Run off = LiveScans.cluster(c, tmp, "--rules", RULE, "--format", "json");
            assertEquals(
                    0, seen.stream().filter(p -> p.contains("/pods")).count(), seen.toString());
            assertEquals(0, KubeLiveSourceTest.json(off.out()).path("findings").size(), off.out());
        }
    }

    @Test
    void moreProxyPodsThanReadAtOnceAreAllRead() throws IOException {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        try (MockCluster c =
                cluster(
                        path ->
                                new MockResponse()
                                        .setResponseCode(200)
                                        .setHeader("Content-Type", "text/plain; version=0.0.4")
                                        .setBody(METRICS),
                        seen)) {
            int extra = LiveMetrics.MAX_IN_FLIGHT + 3;
            for (int i = 0; i < extra; i++) {
                pod(c, "haproxy-ingress-6f7c9-x" + i, "haproxy-ingress", "Running");
            }
            TestSupport.Run r = LiveScans.liveJson(c, tmp, RULE);
            assertEquals(1, r.code(), r.err() + r.out());
            JsonNode report = KubeLiveSourceTest.json(r.out());
            Set<String> pods = new TreeSet<>();
            for (JsonNode f : report.path("findings")) {
                pods.add(
                        f.path("message")
                                .asString()
                                .replaceAll("^frontend fe_main at pod edge/(\\S+):1024 .*$", "$1"));
            }
            assertEquals(extra + 1, pods.size(), pods.toString());
            assertEquals(
                    extra + 1,
                    seen.stream().filter(p -> p.contains("/proxy/")).count(),
                    seen.toString());
        }
    }

    /** A real haproxy's stats page behind 'stats auth', asked without credentials. */
    private static HttpResponse<String> realStatsAuthAnswer(Path dir) throws Exception {
        String bin =
                Files.isExecutable(Path.of("/usr/sbin/haproxy"))
                        ? "/usr/sbin/haproxy"
                        : Files.isExecutable(Path.of("/usr/bin/haproxy"))
                                ? "/usr/bin/haproxy"
                                : null;
        Assumptions.assumeTrue(
                bin != null,
                "haproxy is not installed (apt-get install haproxy): skipping the real 'stats auth'"
                        + " answer relayed through the pod proxy");
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        Path cfg = dir.resolve("haproxy.cfg");
        Files.writeString(
                cfg,
                String.join(
                        "\n",
                        "defaults",
                        "    mode http",
                        "    timeout connect 5s",
                        "    timeout client 60s",
                        "    timeout server 60s",
                        "listen stats",
                        "    bind 127.0.0.1:" + port,
                        "    stats enable",
                        "    stats uri /",
                        "    stats auth admin:s3cret",
                        ""));
        Process p =
                new ProcessBuilder(bin, "-db", "-f", cfg.toString())
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("haproxy.log").toFile())
                        .start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            HttpRequest get =
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                            .timeout(Duration.ofSeconds(10))
                            .build();
            long deadline =
                    System.nanoTime() + 60_000_000_000L; // a busy machine, not a timing bound
            while (true) {
                try {
                    return http.send(get, HttpResponse.BodyHandlers.ofString());
                } catch (IOException notYet) {
                    if (!p.isAlive() || System.nanoTime() > deadline) {
                        throw new AssertionError(
                                "haproxy did not answer: "
                                        + Files.readString(dir.resolve("haproxy.log")),
                                notYet);
                    }
                    Thread.sleep(50);
                }
            }
        } finally {
            p.destroy();
            p.waitFor();
        }
    }

    @Test
    void aStatsPageBehindStatsAuthSaysWhyThePodProxyCannotCarryCredentials() throws Exception {
        // what a real haproxy answers on a stats page behind 'stats auth' when no user is sent,
        // relayed by the pod proxy as the API server relays a pod's answer (status, headers, body)
        HttpResponse<String> real = realStatsAuthAnswer(tmp);
        assertEquals(401, real.statusCode(), real.body());
        String realm = real.headers().firstValue("WWW-Authenticate").orElseThrow();
        MockResponse relayed =
                new MockResponse()
                        .setResponseCode(401)
                        .setHeader("WWW-Authenticate", realm)
                        .setHeader(
                                "Content-Type",
                                real.headers().firstValue("Content-Type").orElse("text/html"))
                        .setBody(real.body());
        try (MockCluster c = cluster(path -> relayed, ConcurrentHashMap.newKeySet())) {
            TestSupport.Run r = LiveScans.liveJson(c, tmp, RULE);
            assertEquals(3, r.code(), r.err() + r.out());
            JsonNode denied = deniedEntry(KubeLiveSourceTest.json(r.out()));
            assertEquals(
                    "401 Unauthorized from the pod (WWW-Authenticate: "
                            + realm
                            + "): its stats page asks for a user and password (HAProxy's 'stats"
                            + " auth'), which cannot travel through the API server's pod proxy: the"
                            + " API server removes the Authorization header of a request once it has"
                            + " authenticated it (k8s.io/apiserver, filters WithAuthentication). Read"
                            + " it with kubectl port-forward pod/haproxy-ingress-6f7c9-abcde -n edge"
                            + " 1024 and --haproxy-runtime http://127.0.0.1:1024/metrics"
                            + " --haproxy-runtime-auth FILE, or serve the Prometheus exporter (or a"
                            + " stats page without 'stats auth') on a port of its own",
                    denied.path("detail").asString());
        }
        // the API server's own 401 (a Kubernetes Status: deja's credentials were refused) says so
        try (MockCluster c =
                cluster(
                        path -> MockCluster.status(401, "Unauthorized", "Unauthorized"),
                        ConcurrentHashMap.newKeySet())) {
            TestSupport.Run r = LiveScans.liveJson(c, tmp, RULE);
            assertEquals(3, r.code(), r.err() + r.out());
            assertEquals(
                    "401 Unauthorized: the API server refused the credentials of context mock:"
                            + " Unauthorized",
                    deniedEntry(KubeLiveSourceTest.json(r.out())).path("detail").asString());
        }
    }

    /** The one denied coverage entry of the pod read. */
    private static JsonNode deniedEntry(JsonNode report) {
        List<JsonNode> denied = LiveScans.entries(report, "denied");
        assertEquals(1, denied.size(), report.toString());
        assertEquals(POD_SCOPE, denied.get(0).path("scope").asString());
        return denied.get(0);
    }

    @Test
    void aForbiddenPodProxyIsACoverageEntryNamingThePod() throws IOException {
        try (MockCluster c =
                cluster(
                        path ->
                                MockCluster.status(
                                        403,
                                        "Forbidden",
                                        "pods \\\"haproxy-ingress-6f7c9-abcde\\\""
                                                + " is forbidden: User \\\"deja\\\" cannot get resource \\\"pods/proxy\\\" in API group \\\"\\\" in the"
                                                + " namespace \\\"edge\\\""),
                        ConcurrentHashMap.newKeySet())) {
            TestSupport.Run r = LiveScans.liveJson(c, tmp, RULE);
            assertEquals(3, r.code(), r.err() + r.out());
            JsonNode report = KubeLiveSourceTest.json(r.out());
            JsonNode denied = deniedEntry(report);
            assertTrue(
                    denied.path("detail")
                            .asString()
                            .startsWith(
                                    "403 Forbidden: the credentials of context mock may"
                                            + " not get pods/proxy in edge"),
                    denied.toString());
            assertEquals(0, report.path("findings").size(), r.out());
            TestSupport.Run partial = LiveScans.live(c, tmp, "--rules", RULE, "--allow-partial");
            assertEquals(0, partial.code(), partial.err() + partial.out());
            // the same from deja.yaml (sources.cluster.liveMetrics), as the CronJob runs it
            Path cfg = tmp.resolve("deja.yaml");
            Files.writeString(
                    cfg,
                    "sources:\n  cluster:\n    kubeconfig: "
                            + c.kubeconfig(tmp)
                            + "\n    liveMetrics: true\n"
                            + "rules:\n  enabled: [haproxy-sessions-near-limit]\n");
            TestSupport.Run fromConfig = TestSupport.run("scan", "--config", cfg.toString());
            assertEquals(3, fromConfig.code(), fromConfig.err() + fromConfig.out());
            assertTrue(
                    fromConfig.out().contains(POD_SCOPE + ": denied (403 Forbidden"),
                    fromConfig.out());
        }
    }

    @Test
    void anUnreachablePodPortAndNoProxyWorkload() throws IOException {
        // the API server's own answer when the pod's port refuses: 503 with a Status
        try (MockCluster c =
                cluster(
                        path ->
                                MockCluster.status(
                                        503,
                                        "ServiceUnavailable",
                                        "error trying to reach service: dial tcp 10.0.0.7:1024: connect: connection refused"),
                        ConcurrentHashMap.newKeySet())) {
            TestSupport.Run r = LiveScans.liveJson(c, tmp, RULE);
            assertEquals(3, r.code(), r.err() + r.out());
            assertTrue(
                    r.out()
                            .contains(
                                    "HTTP 503 (the API server could not reach the pod's port): error trying to reach"
                                            + " service"),
                    r.out());
            // a namespace without any HAProxy workload: a note, not a gap
            c.ensureNamespace("quiet");
            TestSupport.Run none = LiveScans.live(c, tmp, "-n", "quiet", "--rules", RULE);
            assertEquals(0, none.code(), none.err() + none.out());
            assertTrue(
                    none.out()
                            .contains(
                                    "--live-metrics: no HAProxy or ingress-nginx workload in the cluster namespaces read"),
                    none.out());
        }
        TestSupport.Run usage = TestSupport.run("scan", "--live-metrics", "examples/");
        assertEquals(2, usage.code(), usage.err());
        assertTrue(usage.err().contains("--live-metrics: only with --cluster"), usage.err());
    }

    @Test
    void anUnnamedPortServingTheExporterInTheConfigMapsConfigurationIsRead() throws IOException {
        // plain HAProxy with its haproxy.cfg in a ConfigMap: the exporter frontend binds 8405, the
        // container port is
        // not named; the path asked is the one the rule's condition gives
        Set<String> seen = ConcurrentHashMap.newKeySet();
        String path = "/api/v1/namespaces/lb/pods/haproxy-7d8c9-pqrst:8405/proxy/prom";
        try (MockCluster c =
                new MockCluster(
                        (RecordedRequest r) -> {
                            seen.add(r.getPath());
                            return r.getPath().equals(path)
                                    ? new MockResponse()
                                            .setResponseCode(200)
                                            .setHeader("Content-Type", "text/plain; version=0.0.4")
                                            .setBody(METRICS)
                                    : null;
                        })) {
            Path m = tmp.resolve("haproxy.yaml");
            Files.writeString(
                    m,
                    """
                    apiVersion: v1
                    kind: ConfigMap
                    metadata: {name: haproxy, namespace: lb}
                    data:
                      haproxy.cfg: |
                        global
                          maxconn 4000
                        defaults
                          mode http
                          timeout connect 5s
                          timeout client 30s
                          timeout server 30s
                        frontend prometheus
                          bind :8405
                          http-request use-service prometheus-exporter if { path /prom }
                          no log
                        frontend fe_main
                          bind :8080
                          maxconn 800
                          default_backend be_app
                        backend be_app
                          server app1 10.0.0.5:8080 check
                    ---
                    apiVersion: apps/v1
                    kind: Deployment
                    metadata: {name: haproxy, namespace: lb}
                    spec:
                      replicas: 1
                      selector: {matchLabels: {app: haproxy}}
                      template:
                        metadata: {labels: {app: haproxy}}
                        spec:
                          containers:
                            - name: haproxy
                              image: haproxy:2.8
                              ports:
                                - {containerPort: 8080}
                                - {containerPort: 8405}
                    """);
            c.apply(m, null);
            c.pod(
                    "lb",
                    "haproxy-7d8c9-pqrst",
                    Map.of("app", "haproxy"),
                    "haproxy",
                    "haproxy:2.8",
                    null,
                    "Running");
            TestSupport.Run r = LiveScans.liveJson(c, tmp, RULE);
            assertEquals(1, r.code(), r.err() + r.out());
            JsonNode report = KubeLiveSourceTest.json(r.out());
            assertEquals(1, report.path("findings").size(), r.out());
            String msg = report.path("findings").get(0).path("message").asString();
            assertTrue(
                    msg.startsWith(
                            "frontend fe_main at pod lb/haproxy-7d8c9-pqrst:8405 via API server reached 790 of"
                                    + " 800 sessions (99%"),
                    msg);
            // only the exporter's port was asked, with its path; 8080 (unnamed too, no exporter
            // there) was not
            assertEquals(
                    List.of(path),
                    seen.stream().filter(x -> x.contains("/proxy/")).toList(),
                    seen.toString());
        }
    }
}
