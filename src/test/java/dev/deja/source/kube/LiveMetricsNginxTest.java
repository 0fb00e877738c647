package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.collect.Collector;
import dev.deja.engine.Coverage;
import dev.deja.engine.Snapshot;
import dev.deja.model.prometheus.PodMetrics;
import dev.deja.model.prometheus.PrometheusPeaks;
import dev.deja.source.ScanRequest;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code --live-metrics} on ingress-nginx controller pods: the controller's own /metrics (port
 * 10254, where it serves /healthz) read through the API server's pod proxy of Fabric8's mock API
 * server in CRUD mode, the active-connections gauge judged by lb-connections-near-capacity against
 * max-worker-connections x worker-processes of the ConfigMap the controller's --configmap names.
 */
class LiveMetricsNginxTest {
    @TempDir Path tmp;

    static final String NS = "ingress-nginx";
    static final String RULE = "lb-connections-near-capacity";

    /**
     * What an ingress-nginx 1.x controller answers on :10254/metrics, cut down (Go runtime, the
     * controller's own counters, the stub_status series with their HELP text, label order and state
     * order as the controller's own test expects them,
     * internal/ingress/metric/collectors/nginx_status_test.go; a request histogram), with {@code
     * active} active connections and the given pod name as its const label.
     */
    static String metrics(String pod, int active) {
        String l =
                "controller_class=\"k8s.io/ingress-nginx\",controller_namespace=\"ingress-nginx\",controller_pod=\""
                        + pod
                        + "\"";
        int waiting = Math.max(0, active - 45);
        return "# HELP go_goroutines Number of goroutines that currently exist.\n"
                + "# TYPE go_goroutines gauge\n"
                + "go_goroutines 97\n"
                + "# HELP nginx_ingress_controller_config_hash Running configuration hash actually running\n"
                + "# TYPE nginx_ingress_controller_config_hash gauge\n"
                + "nginx_ingress_controller_config_hash{"
                + l
                + "} 1.2877845316044896e+19\n"
                + "# HELP nginx_ingress_controller_nginx_process_connections current number of client connections"
                + " with state {active, reading, writing, waiting}\n"
                + "# TYPE nginx_ingress_controller_nginx_process_connections gauge\n"
                + "nginx_ingress_controller_nginx_process_connections{"
                + l
                + ",state=\"active\"} "
                + active
                + "\n"
                + "nginx_ingress_controller_nginx_process_connections{"
                + l
                + ",state=\"reading\"} 0\n"
                + "nginx_ingress_controller_nginx_process_connections{"
                + l
                + ",state=\"waiting\"} "
                + waiting
                + "\n"
                + "nginx_ingress_controller_nginx_process_connections{"
                + l
                + ",state=\"writing\"} "
                + (active - waiting)
                + "\n"
                + "# HELP nginx_ingress_controller_nginx_process_connections_total total number of connections with"
                + " state {accepted, handled}\n"
                + "# TYPE nginx_ingress_controller_nginx_process_connections_total counter\n"
                + "nginx_ingress_controller_nginx_process_connections_total{"
                + l
                + ",state=\"accepted\"} 4118930\n"
                + "nginx_ingress_controller_nginx_process_connections_total{"
                + l
                + ",state=\"handled\"} 4118930\n"
                + "# HELP nginx_ingress_controller_nginx_process_requests_total total number of client requests\n"
                + "# TYPE nginx_ingress_controller_nginx_process_requests_total counter\n"
                + "nginx_ingress_controller_nginx_process_requests_total{"
                + l
                + "} 9731250\n"
                + "# HELP nginx_ingress_controller_nginx_process_num_procs number of processes\n"
                + "# TYPE nginx_ingress_controller_nginx_process_num_procs gauge\n"
                + "nginx_ingress_controller_nginx_process_num_procs{"
                + l
                + "} 4\n"
                + "# HELP nginx_ingress_controller_request_duration_seconds The request processing time in"
                + " milliseconds\n"
                + "# TYPE nginx_ingress_controller_request_duration_seconds histogram\n"
                + "nginx_ingress_controller_request_duration_seconds_bucket{canary=\"\","
                + l
                + ",host=\"shop.example.com\","
                + "ingress=\"shop\",method=\"GET\",namespace=\"shop\",path=\"/\",service=\"shop\",status=\"200\","
                + "le=\"0.005\"} 19876\n"
                + "nginx_ingress_controller_request_duration_seconds_bucket{canary=\"\","
                + l
                + ",host=\"shop.example.com\","
                + "ingress=\"shop\",method=\"GET\",namespace=\"shop\",path=\"/\",service=\"shop\",status=\"200\","
                + "le=\"+Inf\"} 20411\n"
                + "nginx_ingress_controller_request_duration_seconds_sum{canary=\"\","
                + l
                + ",host=\"shop.example.com\","
                + "ingress=\"shop\",method=\"GET\",namespace=\"shop\",path=\"/\",service=\"shop\",status=\"200\"}"
                + " 98.12\n"
                + "nginx_ingress_controller_request_duration_seconds_count{canary=\"\","
                + l
                + ",host=\"shop.example.com\","
                + "ingress=\"shop\",method=\"GET\",namespace=\"shop\",path=\"/\",service=\"shop\",status=\"200\"} 20411\n";
    }

    /**
     * ingress-nginx as its static deploy.yaml declares it (no metrics container port), 2 workers of
     * 1024.
     */
    static String manifest(String workerProcesses) {
        return manifest("worker-processes: \"" + workerProcesses + "\"", "{}");
    }

    /**
     * The same with a ConfigMap entry (or a comment) for worker-processes and the controller's
     * resources.
     */
    static String manifest(String workerProcessesLine, String resources) {
        return """
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
                data:
                  %s
                  max-worker-connections: "1024"
                ---
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
                spec:
                  replicas: 3
                  selector: {matchLabels: {app.kubernetes.io/name: ingress-nginx, app.kubernetes.io/component: controller}}
                  template:
                    metadata: {labels: {app.kubernetes.io/name: ingress-nginx, app.kubernetes.io/component: controller}}
                    spec:
                      containers:
                        - name: controller
                          image: registry.k8s.io/ingress-nginx/controller:v1.12.1
                          args:
                            - /nginx-ingress-controller
                            - --publish-service=$(POD_NAMESPACE)/ingress-nginx-controller
                            - --election-id=ingress-nginx-leader
                            - --controller-class=k8s.io/ingress-nginx
                            - --ingress-class=nginx
                            - --configmap=$(POD_NAMESPACE)/ingress-nginx-controller
                          ports:
                            - {name: http, containerPort: 80}
                            - {name: https, containerPort: 443}
                            - {name: webhook, containerPort: 8443}
                          readinessProbe:
                            httpGet: {path: /healthz, port: 10254}
                          resources: %s
                """
                .formatted(workerProcessesLine, resources);
    }

    static final List<String> PODS =
            List.of(
                    "ingress-nginx-controller-7c9f5-aaaaa",
                    "ingress-nginx-controller-7c9f5-bbbbb",
                    "ingress-nginx-controller-7c9f5-ccccc");

    static String proxyPath(String pod) {
        return "/api/v1/namespaces/ingress-nginx/pods/" + pod + ":10254/proxy/metrics";
    }

    /**
     * The mock with the controller, its ConfigMap and three running pods; {@code proxy} answers the
     * pod proxy paths.
     */
    private MockCluster cluster(
            String workerProcesses, Function<String, MockResponse> proxy, Set<String> seen)
            throws IOException {
        return clusterOf(manifest(workerProcesses), proxy, seen);
    }

    private MockCluster clusterOf(
            String manifest, Function<String, MockResponse> proxy, Set<String> seen)
            throws IOException {
        return clusterOf(manifest, proxy, seen, null);
    }

    /**
     * The same with the pods on node {@code node} (none when null); {@code proxy} also answers the
     * Node reads ({@code /api/v1/nodes/...}) when it returns a response for them.
     */
    private MockCluster clusterOf(
            String manifest, Function<String, MockResponse> proxy, Set<String> seen, String node)
            throws IOException {
        MockCluster c =
                new MockCluster(
                        (RecordedRequest r) -> {
                            seen.add(r.getPath());
                            return r.getPath().contains("/proxy/")
                                            || r.getPath().startsWith("/api/v1/nodes/")
                                    ? proxy.apply(r.getPath())
                                    : null;
                        });
        Path m = tmp.resolve("ingress-nginx.yaml");
        Files.writeString(m, manifest);
        c.apply(m, null);
        for (String pod : PODS) {
            c.pod(
                    NS,
                    pod,
                    Map.of(
                            "app.kubernetes.io/name",
                            "ingress-nginx",
                            "app.kubernetes.io/component",
                            "controller"),
                    "controller",
                    "x",
                    node,
                    "Running");
        }
        return c;
    }

    /** deja scan --cluster --live-metrics of this rule only, as JSON. */
    private TestSupport.Run scanLive(MockCluster c) throws IOException {
        return LiveScans.liveJson(c, tmp, RULE);
    }

    /** A controller whose capacity is unknown: exit 0, a note, and no pod asked. */
    private static void assertNotJudged(TestSupport.Run r, Set<String> seen) {
        assertEquals(0, r.code(), r.err() + r.out());
        assertTrue(r.out().contains("--live-metrics: its capacity is not known"), r.out());
        assertEquals(0, seen.stream().filter(p -> p.contains("/proxy/")).count(), seen.toString());
    }

    private static MockResponse ok(String body) {
        return new MockResponse()
                .setResponseCode(200)
                .setHeader("Content-Type", "text/plain; version=0.0.4;" + " charset=utf-8")
                .setBody(body);
    }

    /** Each pod's answer by its proxy path, active connections per pod. */
    private static Function<String, MockResponse> answers(int... active) {
        return path -> {
            for (int i = 0; i < PODS.size(); i++) {
                if (path.equals(proxyPath(PODS.get(i)))) {
                    return ok(metrics(PODS.get(i), active[i]));
                }
            }
            return null;
        };
    }

    private static List<String> messages(JsonNode report) {
        return LiveScans.messages(report, RULE);
    }

    /**
     * A live scan saving its snapshot to {@code file} in the test's folder that fires once, high,
     * with everything read, and gives the same finding when the saved snapshot is scanned with no
     * cluster; its JSON report.
     */
    private JsonNode firesOnceAndAgainFromItsSnapshot(MockCluster c, String file)
            throws IOException {
        Path saved = tmp.resolve(file);
        JsonNode report =
                oneFinding(LiveScans.liveJson(c, tmp, RULE, "--snapshot-out", saved.toString()));
        assertTrue(report.path("coverage").path("complete").asBoolean(), report.toString());
        assertEquals(
                "high",
                report.path("findings").get(0).path("severity").asString(),
                report.toString());
        TestSupport.Run again =
                TestSupport.run("scan", saved.toString(), "--rules", RULE, "--format", "json");
        assertEquals(1, again.code(), again.err() + again.out());
        assertEquals(messages(report), messages(KubeLiveSourceTest.json(again.out())));
        return report;
    }

    /** A live scan that fires once (exit 1): the finding's message. */
    private String firesOnce(MockCluster c) throws IOException {
        return messages(oneFinding(scanLive(c))).get(0);
    }

    /** The JSON report of a scan that exited 1 with one finding. */
    private static JsonNode oneFinding(TestSupport.Run r) {
        assertEquals(1, r.code(), r.err() + r.out());
        JsonNode report = KubeLiveSourceTest.json(r.out());
        List<String> messages = messages(report);
        assertEquals(1, messages.size(), messages.toString());
        return report;
    }

    @Test
    void aHotControllerPodAmongIdleOnesFiresWithItsCurrentFigure() throws IOException {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        try (MockCluster c = cluster("2", answers(1980, 150, 120), seen)) {
            // the saved snapshot holds the pods' figures: scanning it gives the same finding, with
            // no cluster
            JsonNode report = firesOnceAndAgainFromItsSnapshot(c, "snap.json");
            assertEquals(
                    "ingress-nginx pod ingress-nginx/ingress-nginx-controller-7c9f5-aaaaa holds 1980 active client"
                            + " connections (reading 0, writing 45, waiting 1935), 96% of 1024 (max-worker-connections) x 2"
                            + " worker processes = 2048 connections (ConfigMap ingress-nginx/ingress-nginx-controller named by"
                            + " --configmap of Deployment ingress-nginx/ingress-nginx-controller; worker_connections counts"
                            + " upstream connections too); across the 3 pods read of Deployment"
                            + " ingress-nginx/ingress-nginx-controller: 96%, 7%, 5% (the others' median 7%): one hot instance"
                            + " among idle ones, the IL-0011 hot-pod shape: look at how load is spread (the same server order"
                            + " and round robin on every instance, sticky or long-lived connections) before adding capacity"
                            + " (read from pod ingress-nginx/ingress-nginx-controller-7c9f5-aaaaa:10254 via API server:"
                            + " nginx_ingress_controller_nginx_process_connections{state=\"active\"}, the value at the moment of"
                            + " the scan, not a peak: a busier moment is not seen; --prometheus gives the peak over a window)",
                    messages(report).get(0));
            // the three pods' metrics port was asked, each once, and each is a read coverage entry
            for (String pod : PODS) {
                assertTrue(seen.contains(proxyPath(pod)), seen.toString());
            }
            assertEquals(
                    3, seen.stream().filter(p -> p.contains("/proxy/")).count(), seen.toString());
            assertEquals(
                    3,
                    LiveScans.entries(report, "read").stream()
                            .filter(
                                    e ->
                                            e.path("scope")
                                                    .asString()
                                                    .startsWith(
                                                            "live metrics of pod ingress-nginx/"))
                            .count(),
                    report.toString());
        }
    }

    @Test
    void podsWellBelowTheirCapacityDoNotFire() throws IOException {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        try (MockCluster c = cluster("2", answers(1500, 1400, 900), seen)) {
            TestSupport.Run r = scanLive(c);
            assertEquals(0, r.code(), r.err() + r.out());
            JsonNode report = KubeLiveSourceTest.json(r.out());
            assertEquals(List.of(), messages(report), r.out()); // 73%, 68%, 43% of 2048
            assertTrue(report.path("coverage").path("complete").asBoolean(), r.out());
            assertEquals(
                    3, seen.stream().filter(p -> p.contains("/proxy/")).count(), seen.toString());
        }
    }

    @Test
    void aForbiddenPodProxyIsADeniedEntryPerPod() throws IOException {
        try (MockCluster c =
                cluster(
                        "2",
                        path ->
                                MockCluster.status(
                                        403,
                                        "Forbidden",
                                        "pods \\\"x\\\" is forbidden: User"
                                                + " \\\"deja\\\" cannot get resource \\\"pods/proxy\\\" in API group \\\"\\\" in the namespace"
                                                + " \\\"ingress-nginx\\\""),
                        ConcurrentHashMap.newKeySet())) {
            TestSupport.Run r = scanLive(c);
            assertEquals(3, r.code(), r.err() + r.out());
            JsonNode report = KubeLiveSourceTest.json(r.out());
            List<String> denied = new ArrayList<>();
            for (JsonNode e : LiveScans.entries(report, "denied")) {
                denied.add(e.path("scope").asString());
                assertTrue(
                        e.path("detail")
                                .asString()
                                .startsWith(
                                        "403 Forbidden: the credentials of context mock"
                                                + " may not get pods/proxy in ingress-nginx (RBAC: get on pods/proxy"),
                        e.toString());
            }
            assertEquals(
                    PODS.stream()
                            .map(
                                    p ->
                                            "live metrics of pod ingress-nginx/"
                                                    + p
                                                    + ":10254 via API server")
                            .toList(),
                    denied.stream().sorted().toList());
            assertEquals(0, report.path("findings").size(), r.out());
            TestSupport.Run partial = LiveScans.live(c, tmp, "--rules", RULE, "--allow-partial");
            assertEquals(0, partial.code(), partial.err() + partial.out());
        }
    }

    @Test
    void anAnswerThatIsNotTheControllersMetricsIsAFailedEntry() throws IOException {
        // the first pod answers with some other exporter's text, the second with text that is not
        // Prometheus's
        Function<String, MockResponse> odd =
                path ->
                        path.equals(proxyPath(PODS.get(0)))
                                ? ok(
                                        "# TYPE haproxy_process_current_connections gauge\nhaproxy_process_current_connections 3\n")
                                : path.equals(proxyPath(PODS.get(1)))
                                        ? ok(
                                                "Active connections: 3\nserver accepts handled requests\n")
                                        : ok(metrics(PODS.get(2), 100));
        try (MockCluster c = cluster("2", odd, ConcurrentHashMap.newKeySet())) {
            TestSupport.Run r = scanLive(c);
            assertEquals(3, r.code(), r.err() + r.out());
            JsonNode report = KubeLiveSourceTest.json(r.out());
            String first = LiveScans.entry(report, scope -> scope.contains(PODS.get(0)));
            String second = LiveScans.entry(report, scope -> scope.contains(PODS.get(1)));
            assertEquals(
                    "failed: not ingress-nginx's metrics (no nginx_ingress_controller_* series):"
                            + " # TYPE haproxy_process_current_connections gauge",
                    first,
                    r.out());
            assertTrue(second != null && second.startsWith("failed: metrics: line 1: "), r.out());
        }
    }

    /** The node the pods run on in the tests that read nodes. */
    static final String NODE = "pool-a-1";

    /**
     * A Node as the kubelet reports it: {@code cpus} in status.capacity, and less allocatable (the
     * kubelet's reservations), which deja must not take for the CPUs nginx counts.
     */
    private static void node(MockCluster c, String name, String cpus, String allocatable) {
        Node n =
                new NodeBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .endMetadata()
                        .withNewStatus()
                        .addToCapacity("cpu", new Quantity(cpus))
                        .addToAllocatable("cpu", new Quantity(allocatable))
                        .endStatus()
                        .build();
        c.client.nodes().resource(n).create();
        if (c.client.nodes().withName(name).get().getStatus() == null
                || c.client.nodes().withName(name).get().getStatus().getCapacity() == null) {
            c.client.nodes().resource(n).updateStatus();
        }
    }

    /** The controller's pods on node {@link #NODE}, 4 CPUs (capacity 4, allocatable 3920m). */
    private MockCluster onFourCpuNode(
            String manifest, Function<String, MockResponse> proxy, Set<String> seen)
            throws IOException {
        MockCluster c = clusterOf(manifest, proxy, seen, NODE);
        node(c, NODE, "4", "3920m");
        return c;
    }

    @Test
    void withoutACpuLimitOrWithAutoTheWorkersAreTheNodesCpus() throws IOException {
        // worker-processes unset, no CPU limit: the controller's NumCPU is Go's runtime.NumCPU(),
        // the node's 4 CPUs (capacity 4, allocatable 3920m): 4 x 1024 = 4096 connections
        Set<String> seen = ConcurrentHashMap.newKeySet();
        String unset = manifest("# worker-processes unset", "{requests: {cpu: 500m}}");
        try (MockCluster c = onFourCpuNode(unset, answers(3900, 300, 200), seen)) {
            // the node's count is kept in the snapshot: judged again offline, the same finding
            String message = messages(firesOnceAndAgainFromItsSnapshot(c, "node.json")).get(0);
            assertTrue(
                    message.startsWith(
                            "ingress-nginx pod ingress-nginx/ingress-nginx-controller-7c9f5-aaaaa holds 3900"
                                    + " active client connections (reading 0, writing 45, waiting 3855), 95% of 1024"
                                    + " (max-worker-connections) x 4 worker processes (worker-processes unset and no"
                                    + " CPU limit: the controller starts one per CPU the pod may run on, here the 4"
                                    + " CPUs of node pool-a-1, status.capacity.cpu) = 4096 connections"),
                    message);
            assertTrue(seen.contains("/api/v1/nodes/" + NODE), seen.toString());
        }
        // "auto" is nginx's own count of the CPUs it may run on: the node's 4, CPU limit or not
        seen.clear();
        String auto = manifest("worker-processes: \"auto\"", "{limits: {cpu: \"1\"}}");
        try (MockCluster c = onFourCpuNode(auto, answers(3900, 300, 200), seen)) {
            String message = firesOnce(c);
            assertTrue(
                    message.contains(
                            "95% of 1024 (max-worker-connections) x 4 worker processes"
                                    + " (worker-processes auto: nginx starts one per CPU the pod may run on, here"
                                    + " the 4 CPUs of node pool-a-1, status.capacity.cpu) = 4096 connections"),
                    message);
        }
    }

    @Test
    void podsBelowTheirNodesCountDoNotFire() throws IOException {
        // 3000 of 4096 is 73%: no finding (against the 2 workers of a CPU limit it would be 146%)
        Set<String> seen = ConcurrentHashMap.newKeySet();
        String unset = manifest("# worker-processes unset", "{requests: {cpu: 500m}}");
        try (MockCluster c = onFourCpuNode(unset, answers(3000, 300, 200), seen)) {
            TestSupport.Run r = scanLive(c);
            assertEquals(0, r.code(), r.err() + r.out());
            JsonNode report = KubeLiveSourceTest.json(r.out());
            assertEquals(List.of(), messages(report), r.out());
            assertTrue(report.path("coverage").path("complete").asBoolean(), r.out());
            assertEquals(
                    3, seen.stream().filter(p -> p.contains("/proxy/")).count(), seen.toString());
        }
    }

    @Test
    void forbiddenNodesAreANoteAndThePodsAreNotAsked() throws IOException {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        Function<String, MockResponse> noNodes =
                path ->
                        path.startsWith("/api/v1/nodes/")
                                ? MockCluster.status(
                                        403,
                                        "Forbidden",
                                        "nodes \\\"pool-a-1\\\" is forbidden: User \\\"deja\\\" cannot get"
                                                + " resource \\\"nodes\\\" in API group \\\"\\\" at the cluster scope")
                                : answers(3900, 300, 200).apply(path);
        String unset = manifest("# worker-processes unset", "{requests: {cpu: 500m}}");
        try (MockCluster c = clusterOf(unset, noNodes, seen, NODE)) {
            TestSupport.Run r = scanLive(c);
            assertEquals(0, r.code(), r.err() + r.out());
            JsonNode report = KubeLiveSourceTest.json(r.out());
            assertEquals(List.of(), messages(report), r.out());
            String note =
                    LiveScans.entry(
                            report,
                            scope ->
                                    scope.equals(
                                            "live metrics of Deployment"
                                                    + " ingress-nginx/ingress-nginx-controller"));
            assertTrue(note != null, r.out());
            assertTrue(
                    note.startsWith(
                            "note: --live-metrics: its worker count is the CPU count of the node"
                                    + " each pod runs on (worker-processes \"auto\", or unset without"
                                    + " a CPU limit), and nodes: forbidden (the credentials of context"
                                    + " mock may not get nodes; RBAC: get on nodes, core), worker"
                                    + " count unknown"),
                    note);
            for (String pod : PODS) {
                assertTrue(note.contains(pod + " (node pool-a-1: forbidden (403))"), note);
            }
            assertEquals(
                    0, seen.stream().filter(p -> p.contains("/proxy/")).count(), seen.toString());
        }
    }

    @Test
    void unsetWorkerProcessesCountTheControllersCpuLimitRoundedUp() throws IOException {
        // v1.12.1 counts its cgroup's CPU quota on cgroup v1 and v2: a limit of 1500m is 2 workers
        // of 1024
        Set<String> seen = ConcurrentHashMap.newKeySet();
        String m =
                manifest(
                        "# worker-processes unset",
                        "{limits: {cpu: 1500m, memory: 512Mi}, requests: {cpu: 500m}}");
        try (MockCluster c = clusterOf(m, answers(1980, 150, 120), seen)) {
            String message = firesOnce(c);
            assertTrue(
                    message.contains(
                            "96% of 1024 (max-worker-connections) x 2 worker processes"
                                    + " (worker-processes unset: the controller counts the CPUs of its cgroup, here the CPU limit 1500m"
                                    + " rounded up, as v1.12.1 does on cgroup v1 and v2) = 2048 connections"),
                    message);
        }
        // before v1.10.4 NumCPU read cgroup v1 only (the node's CPUs on cgroup v2), and deja
        // cannot tell a node's cgroup version: a note, no pod asked
        seen.clear();
        try (MockCluster c =
                clusterOf(m.replace("v1.12.1", "v1.9.6"), answers(1980, 150, 120), seen)) {
            assertNotJudged(scanLive(c), seen);
        }
    }

    @Test
    void aPodThatDoesNotAnswerInTimeIsAFailedEntryAndTheOthersAreStillJudged() throws IOException {
        Function<String, MockResponse> slow =
                path ->
                        path.equals(proxyPath(PODS.get(0)))
                                ? ok(metrics(PODS.get(0), 1980)).setBodyDelay(3, TimeUnit.SECONDS)
                                : answers(1980, 150, 120).apply(path);
        try (MockCluster c = cluster("2", slow, ConcurrentHashMap.newKeySet())) {
            ScanRequest.Builder b = ScanRequest.builder();
            b.cluster = true;
            b.kubeconfig = c.kubeconfig(tmp);
            b.liveMetrics = true;
            b.kubeKinds =
                    Set.of(
                            "Deployment",
                            "StatefulSet",
                            "DaemonSet",
                            "ConfigMap"); // the rule's kinds
            b.liveMetricsTimeoutMillis = 300; // injected: the pod's answer comes 3 s late
            ScanRequest req = b.build();
            Snapshot s = Collector.collect(req);
            Coverage.Entry slowEntry =
                    s.coverage().entries().stream()
                            .filter(e -> e.scope().contains(PODS.get(0)))
                            .findFirst()
                            .orElseThrow(
                                    () -> new AssertionError(s.coverage().entries().toString()));
            assertEquals(Coverage.Status.FAILED, slowEntry.status(), slowEntry.toString());
            assertEquals("no answer within 300 ms", slowEntry.detail());
            // the two pods that answered are kept, and nothing is made up for the silent one
            PodMetrics read = s.part(PodMetrics.class).orElseThrow();
            assertEquals(
                    List.of(PODS.get(1), PODS.get(2)),
                    read.pods().stream().map(PodMetrics.Pod::name).sorted().toList());
        }
    }

    @Test
    void thePerPodBoundIsAnOptionAndADejaYamlKey() throws IOException {
        Function<String, MockResponse> slow =
                path ->
                        path.equals(proxyPath(PODS.get(0)))
                                ? ok(metrics(PODS.get(0), 1980)).setBodyDelay(3, TimeUnit.SECONDS)
                                : answers(1980, 150, 120).apply(path);
        try (MockCluster c = cluster("2", slow, ConcurrentHashMap.newKeySet())) {
            String kubeconfig = c.kubeconfig(tmp).toString();
            TestSupport.Run r =
                    LiveScans.live(c, tmp, "--live-metrics-timeout", "300ms", "--rules", RULE);
            assertEquals(3, r.code(), r.err() + r.out());
            assertTrue(
                    r.out()
                            .contains(
                                    "live metrics of pod ingress-nginx/"
                                            + PODS.get(0)
                                            + ":10254 via API server:"
                                            + " failed (no answer within 300 ms)"),
                    r.out());
            Path cfg = tmp.resolve("deja.yaml");
            Files.writeString(
                    cfg,
                    "sources:\n  cluster:\n    kubeconfig: "
                            + kubeconfig
                            + "\n    liveMetrics: true\n"
                            + "    liveMetricsTimeout: 250ms\nrules:\n  enabled: ["
                            + RULE
                            + "]\n");
            TestSupport.Run fromConfig = TestSupport.run("scan", "--config", cfg.toString());
            assertEquals(3, fromConfig.code(), fromConfig.err() + fromConfig.out());
            assertTrue(
                    fromConfig.out().contains("failed (no answer within 250 ms)"),
                    fromConfig.out());
        }
        TestSupport.Run bad =
                TestSupport.run(
                        "scan", "--cluster", "--live-metrics", "--live-metrics-timeout", "soon");
        assertEquals(2, bad.code(), bad.err());
        assertTrue(
                bad.err()
                        .contains(
                                "--live-metrics-timeout soon: expected a time such as 90s, 10m or 1h"),
                bad.err());
        TestSupport.Run alone =
                TestSupport.run("scan", "--cluster", "--live-metrics-timeout", "5s");
        assertEquals(2, alone.code(), alone.err());
        assertTrue(
                alone.err().contains("--live-metrics-timeout: only with --live-metrics"),
                alone.err());
    }

    @Test
    void theGaugeIsReadFromTheControllersText() {
        List<PrometheusPeaks.Sample> s = PodMetrics.nginxConnections(metrics("p-1", 7));
        assertEquals(4, s.size());
        assertEquals(
                Set.of("active", "reading", "writing", "waiting"),
                new HashSet<>(s.stream().map(x -> x.labels().get("state")).toList()));
        assertTrue(
                s.stream()
                        .anyMatch(
                                x ->
                                        x.labels().get("state").equals("active")
                                                && x.value() == 7
                                                && x.labels().get("controller_pod").equals("p-1")));
        // an older controller's text (active under the _total counter) or one with metrics off: not
        // silently zero
        IllegalArgumentException old =
                assertThrows(
                        IllegalArgumentException.class,
                        () ->
                                PodMetrics.nginxConnections(
                                        "nginx_ingress_controller_nginx_process_connections_total{state=\"active\"} 5\n"));
        assertTrue(
                old.getMessage()
                        .startsWith(
                                "ingress-nginx's metrics hold no"
                                        + " nginx_ingress_controller_nginx_process_connections{state=\"active\"} series"),
                old.getMessage());
        assertEquals(
                "empty answer",
                assertThrows(IllegalArgumentException.class, () -> PodMetrics.nginxConnections(""))
                        .getMessage());
    }
}
