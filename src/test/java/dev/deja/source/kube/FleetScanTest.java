package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.deja.TestSupport;
import dev.deja.source.aws.FakeAws;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * One run, many clusters: Fabric8 kubernetes-server-mock servers in CRUD mode reached through one
 * real kubeconfig with several contexts, one of them at a dead port and one at a server that never
 * answers (cut by an injected --target-timeout). Each cluster is judged on its own objects, and the
 * report says which cluster each finding and coverage entry is about.
 */
class FleetScanTest {
    static final Path FIXTURES = Path.of("src/test/resources/fixtures");
    static final Path FLEET = Path.of("src/test/resources/fleet");
    static final String HEADROOM = "k8s-lb-no-disruption-headroom";
    static final String PROBE = "k8s-lb-probe-fails-fast";

    @TempDir Path tmp;

    private final List<AutoCloseable> open = new ArrayList<>();

    /** Released when the test ends: until then the slow server holds every request. */
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void close() throws Exception {
        release.countDown();
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private MockCluster cluster(Path... manifests) throws IOException {
        MockCluster c = new MockCluster();
        open.add(c);
        for (Path m : manifests) {
            c.apply(m, null);
        }
        return c;
    }

    /** A port nothing listens on (bound, then closed). */
    static String deadUrl() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return "http://127.0.0.1:" + s.getLocalPort();
        }
    }

    /** An API server that accepts connections and never answers until the test ends. */
    private String slowUrl() throws IOException {
        HttpServer s =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        var pool =
                Executors.newCachedThreadPool(
                        r -> {
                            Thread t = new Thread(r, "slow-apiserver");
                            t.setDaemon(true);
                            return t;
                        });
        s.setExecutor(pool);
        s.createContext(
                "/",
                ex -> {
                    try (ex) {
                        release.await(5, TimeUnit.MINUTES);
                        ex.sendResponseHeaders(503, -1);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
        s.start();
        open.add(
                () -> {
                    s.stop(0);
                    pool.shutdownNow();
                });
        return "http://" + s.getAddress().getHostString() + ":" + s.getAddress().getPort();
    }

    /**
     * One kubeconfig with a context (and cluster and user) per entry, context name -> server URL.
     */
    static Path kubeconfig(Path file, Map<String, String> contexts, String current)
            throws IOException {
        StringBuilder clusters = new StringBuilder();
        StringBuilder users = new StringBuilder();
        StringBuilder ctxs = new StringBuilder();
        contexts.forEach(
                (name, url) -> {
                    clusters.append("  - name: ")
                            .append(name)
                            .append("-cluster\n    cluster: {server: \"")
                            .append(url)
                            .append("\"}\n");
                    users.append("  - name: ")
                            .append(name)
                            .append("-user\n    user: {token: not-a-real-token}\n");
                    ctxs.append("  - name: ")
                            .append(name)
                            .append("\n    context: {cluster: ")
                            .append(name)
                            .append("-cluster, user: ")
                            .append(name)
                            .append("-user}\n");
                });
        Files.writeString(
                file,
                "apiVersion: v1\nkind: Config\nclusters:\n"
                        + clusters
                        + "users:\n"
                        + users
                        + "contexts:\n"
                        + ctxs
                        + (current == null ? "" : "current-context: " + current + "\n"));
        return file;
    }

    static JsonNode json(TestSupport.Run r) {
        return TestSupport.json(r.out());
    }

    /** "cluster rule namespace/name" of every finding. */
    static Set<String> findings(JsonNode report) {
        Set<String> out = new TreeSet<>();
        for (JsonNode f : report.path("findings")) {
            out.add(
                    f.path("target").path("cluster").asString("-")
                            + " "
                            + f.path("ruleId").asString()
                            + " "
                            + f.path("location").path("namespace").asString()
                            + "/"
                            + f.path("location").path("name").asString());
        }
        return out;
    }

    /** cluster -> the statuses of its coverage entries. */
    static Map<String, Set<String>> coverage(JsonNode report) {
        Map<String, Set<String>> out = new TreeMap<>();
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (e.path("source").asString().equals("kubernetes")) {
                out.computeIfAbsent(
                                e.path("target").path("cluster").asString("-"),
                                k -> new TreeSet<>())
                        .add(e.path("status").asString());
            }
        }
        return out;
    }

    static JsonNode failedEntry(JsonNode report, String cluster) {
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (cluster.equals(e.path("target").path("cluster").asString(null))
                    && e.path("status").asString().equals("failed")) {
                return e;
            }
        }
        return null;
    }

    @Test
    void twoClustersADeadOneAndASlowOneInOneRun() throws Exception {
        MockCluster prod =
                cluster(
                        FLEET.resolve("envoy-deployment.yaml"),
                        FIXTURES.resolve(PROBE + "/ingress-nginx-default-timeout.yaml"));
        MockCluster stage = cluster(FLEET.resolve("envoy-pdb.yaml"));
        Map<String, String> ctx = new TreeMap<>();
        ctx.put("prod", prod.url());
        ctx.put("stage", stage.url());
        ctx.put("dead", deadUrl());
        ctx.put("slow", slowUrl());
        Path kc = kubeconfig(tmp.resolve("kubeconfig"), ctx, "prod");

        // what mixing the two clusters would do: prod's Deployment would borrow stage's
        // PodDisruptionBudget
        JsonNode alone =
                json(
                        TestSupport.run(
                                "scan",
                                "--format",
                                "json",
                                "--fail-on",
                                "none",
                                FLEET.resolve("envoy-deployment.yaml").toString()));
        JsonNode mixed =
                json(
                        TestSupport.run(
                                "scan",
                                "--format",
                                "json",
                                "--fail-on",
                                "none",
                                FLEET.resolve("envoy-deployment.yaml").toString(),
                                FLEET.resolve("envoy-pdb.yaml").toString()));
        Set<String> aloneHeadroom = KubeLiveSourceTest.findings(alone, "ingress-nginx", HEADROOM);
        assertFalse(aloneHeadroom.isEmpty(), alone.toString());
        assertNotEquals(
                aloneHeadroom,
                KubeLiveSourceTest.findings(mixed, "ingress-nginx", HEADROOM),
                "precondition: the budget changes the verdict on the Deployment");

        TestSupport.Run r =
                Assertions.assertTimeoutPreemptively(
                        Duration.ofMinutes(3),
                        () ->
                                TestSupport.run(
                                        "scan",
                                        "--all-contexts",
                                        "--kubeconfig",
                                        kc.toString(),
                                        "--target-timeout",
                                        "3s",
                                        "--format",
                                        "json"));
        assertEquals(
                3,
                r.code(),
                "a cluster that could not be read makes the run incomplete: " + r.err());
        JsonNode report = json(r);
        Set<String> found = findings(report);
        // prod is judged on its own objects: its Deployment has no budget there
        for (String f : aloneHeadroom) {
            String[] p = f.split(" ");
            assertTrue(found.contains("prod " + p[0] + " " + p[2]), p[2] + " in prod: " + found);
        }
        assertTrue(
                found.contains("prod " + PROBE + " ingress-nginx/ingress-nginx-controller"),
                found.toString());
        assertTrue(
                found.stream().noneMatch(f -> f.startsWith("stage ") || f.startsWith("- ")),
                found.toString());

        Map<String, Set<String>> cov = coverage(report);
        assertEquals(
                Set.of("dead", "prod", "slow", "stage"),
                cov.keySet(),
                report.path("coverage").toString());
        assertEquals(Set.of("read"), cov.get("prod"));
        assertEquals(Set.of("read"), cov.get("stage"));
        assertEquals(Set.of("failed"), cov.get("dead"));
        assertEquals(Set.of("failed"), cov.get("slow"));
        assertTrue(
                failedEntry(report, "slow")
                        .path("detail")
                        .asString()
                        .contains("not read within 3s (--target-timeout)"),
                failedEntry(report, "slow").toString());
        assertTrue(
                failedEntry(report, "dead")
                        .path("detail")
                        .asString()
                        .contains(ctx.get("dead").substring(7)),
                failedEntry(report, "dead").toString());

        // the targets list: every cluster read, with its completeness and counts
        Map<String, JsonNode> targets = new TreeMap<>();
        report.path("targets").forEach(t -> targets.put(t.path("cluster").asString(), t));
        assertEquals(Set.of("dead", "prod", "slow", "stage"), targets.keySet());
        assertTrue(targets.get("prod").path("complete").asBoolean());
        assertFalse(targets.get("slow").path("complete").asBoolean());
        assertEquals(
                0,
                targets.get("stage").path("findings").path("bySeverity").path("high").asInt()
                        + targets.get("stage")
                                .path("findings")
                                .path("bySeverity")
                                .path("medium")
                                .asInt());
        // stderr names the cluster of each problem
        assertTrue(
                r.err().contains("[cluster dead]") && r.err().contains("[cluster slow]"), r.err());

        // --allow-partial: the clusters that were read decide the exit code; the HTML report is
        // grouped by cluster
        TestSupport.Run partial =
                TestSupport.run(
                        "scan",
                        "--all-contexts",
                        "--kubeconfig",
                        kc.toString(),
                        "--target-timeout",
                        "3s",
                        "--allow-partial",
                        "--format",
                        "html",
                        "--fail-on",
                        "none");
        assertEquals(0, partial.code(), partial.err());
        String html = partial.out();
        assertTrue(html.contains("<h2>Findings by cluster</h2>"), html);
        int dead = html.indexOf("<h3 class=\"target-title\">cluster dead</h3>");
        int prodAt = html.indexOf("<h3 class=\"target-title\">cluster prod</h3>");
        int slow = html.indexOf("<h3 class=\"target-title\">cluster slow</h3>");
        assertTrue(dead > 0 && dead < prodAt && prodAt < slow, html);
        assertTrue(
                html.substring(prodAt, slow).contains(PROBE), "prod's findings in prod's section");
    }

    @Test
    void fiveClustersFromKubeconfigFilesInKubeconfigVariable() throws Exception {
        Map<String, String> first = new TreeMap<>();
        Map<String, String> second = new TreeMap<>();
        for (int i = 1; i <= 3; i++) {
            MockCluster c =
                    cluster(FIXTURES.resolve(PROBE + "/ingress-nginx-default-timeout.yaml"));
            (i == 2 ? second : first).put("c" + i, c.url());
        }
        first.put("dead", deadUrl());
        second.put("slow", slowUrl());
        Path a = kubeconfig(tmp.resolve("a.yaml"), first, "c1");
        Path b = kubeconfig(tmp.resolve("b.yaml"), second, null);
        Map<String, String> env =
                new HashMap<>(
                        Map.of("KUBECONFIG", a + File.pathSeparator + b, "HOME", tmp.toString()));
        TestSupport.Run r =
                Assertions.assertTimeoutPreemptively(
                        Duration.ofMinutes(3),
                        () ->
                                TestSupport.runWith(
                                        InputStream.nullInputStream(),
                                        env,
                                        "scan",
                                        "--all-contexts",
                                        "--parallel",
                                        "2",
                                        "--target-timeout",
                                        "3s",
                                        "--format",
                                        "json"));
        assertEquals(3, r.code(), r.err());
        JsonNode report = json(r);
        Map<String, Set<String>> cov = coverage(report);
        assertEquals(
                Set.of("c1", "c2", "c3", "dead", "slow"),
                cov.keySet(),
                report.path("coverage").toString());
        for (String c : List.of("c1", "c2", "c3")) {
            assertEquals(Set.of("read"), cov.get(c), c);
            assertTrue(
                    findings(report)
                            .contains(c + " " + PROBE + " ingress-nginx/ingress-nginx-controller"),
                    findings(report).toString());
        }
        assertEquals(5, report.path("targets").size());
        // the same problem in three clusters: three findings, one fingerprint
        Set<String> fps = new TreeSet<>();
        int n = 0;
        for (JsonNode f : report.path("findings")) {
            if (f.path("ruleId").asString().equals(PROBE)) {
                fps.add(f.path("fingerprint").asString());
                n++;
            }
        }
        assertEquals(3, n);
        assertEquals(1, fps.size());
    }

    @Test
    void oneClusterIsATargetToo() throws Exception {
        MockCluster prod = cluster(FIXTURES.resolve(PROBE + "/ingress-nginx-default-timeout.yaml"));
        Path kc = prod.kubeconfig(tmp);
        JsonNode byContext =
                json(
                        TestSupport.run(
                                "scan",
                                "--cluster",
                                "--kubeconfig",
                                kc.toString(),
                                "--format",
                                "json"));
        assertTrue(
                findings(byContext)
                        .contains("mock " + PROBE + " ingress-nginx/ingress-nginx-controller"),
                findings(byContext).toString());
        JsonNode named =
                json(
                        TestSupport.run(
                                "scan",
                                "--cluster",
                                "--kubeconfig",
                                kc.toString(),
                                "--cluster-name",
                                "eu-prod",
                                "--format",
                                "json"));
        assertTrue(
                findings(named)
                        .contains("eu-prod " + PROBE + " ingress-nginx/ingress-nginx-controller"),
                findings(named).toString());
        assertEquals("eu-prod", named.path("targets").get(0).path("cluster").asString());
    }

    /**
     * The same Service in two clusters, one NLB tagged for it in cluster prod
     * (elbv2.k8s.aws/cluster): the NLB's findings and prod's findings point at each other; stage's
     * never do.
     */
    @Test
    void aLoadBalancerIsLinkedOnlyWithTheServiceOfItsOwnCluster() throws Exception {
        Path manifest = Path.of("src/test/resources/crosslinks/ingress-controllers.yaml");
        MockCluster prod = cluster(manifest);
        MockCluster stage = cluster(manifest);
        Path kc =
                kubeconfig(
                        tmp.resolve("kubeconfig"),
                        Map.of("prod", prod.url(), "stage", stage.url()),
                        "prod");
        try (FakeAws aws = FakeAws.start("eu-west-2")) {
            String nlb = aws.lb("ingress", "network", "eu-west-2a", "eu-west-2b");
            aws.tag(
                    nlb,
                    "service.k8s.aws/stack",
                    "ingress-controllers/nginx-ingress-default-controller");
            aws.tag(nlb, "elbv2.k8s.aws/cluster", "prod");
            Map<String, String> env = new HashMap<>();
            env.put("AWS_ACCESS_KEY_ID", "AKIDDEJATEST");
            env.put("AWS_SECRET_ACCESS_KEY", "deja-test-secret");
            env.put("AWS_CONFIG_FILE", tmp.resolve("no-config").toString());
            env.put("AWS_SHARED_CREDENTIALS_FILE", tmp.resolve("no-credentials").toString());
            TestSupport.Run r =
                    TestSupport.runWith(
                            InputStream.nullInputStream(),
                            env,
                            "scan",
                            "--all-contexts",
                            "--kubeconfig",
                            kc.toString(),
                            "--aws",
                            "--aws-endpoint",
                            aws.url(),
                            "--region",
                            "eu-west-2",
                            "--format",
                            "json",
                            "--fail-on",
                            "none");
            assertEquals(0, r.code(), r.err());
            JsonNode report = json(r);
            List<String> awsRelated = new ArrayList<>();
            int prodLinked = 0;
            for (JsonNode f : report.path("findings")) {
                List<String> rel = new ArrayList<>();
                f.path("related").forEach(x -> rel.add(x.asString()));
                String cluster = f.path("target").path("cluster").asString(null);
                if (f.path("location").has("arn")) {
                    assertEquals(FakeAws.ACCOUNT, f.path("target").path("account").asString());
                    awsRelated.addAll(
                            rel.stream().filter(x -> x.startsWith("Kubernetes finding")).toList());
                } else if ("stage".equals(cluster)) {
                    assertTrue(
                            rel.stream().noneMatch(x -> x.startsWith("AWS finding")), f.toString());
                } else if ("prod".equals(cluster)
                        && rel.stream().anyMatch(x -> x.startsWith("AWS finding"))) {
                    prodLinked++;
                }
            }
            assertFalse(awsRelated.isEmpty(), report.toString());
            assertTrue(
                    awsRelated.stream().allMatch(x -> x.endsWith(" in cluster prod")),
                    awsRelated.toString());
            assertTrue(prodLinked > 0, report.toString());
        }
    }

    @Test
    void usageErrors() throws Exception {
        MockCluster prod = cluster();
        Path kc = prod.kubeconfig(tmp);
        TestSupport.Run typo =
                TestSupport.run(
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        kc.toString(),
                        "--context",
                        "mock",
                        "--context",
                        "nope");
        assertEquals(2, typo.code(), typo.err());
        assertTrue(typo.err().contains("--context nope: no such context"), typo.err());
        TestSupport.Run twoNames =
                TestSupport.run(
                        "scan",
                        "--kubeconfig",
                        kc.toString(),
                        "--all-contexts",
                        "--cluster-name",
                        "x",
                        "--context",
                        "mock");
        assertEquals(2, twoNames.code(), twoNames.err());
        TestSupport.Run parallel =
                TestSupport.run(
                        "scan", "--all-contexts", "--kubeconfig", kc.toString(), "--parallel", "0");
        assertEquals(2, parallel.code(), parallel.err());
        TestSupport.Run timeout =
                TestSupport.run(
                        "scan",
                        "--all-contexts",
                        "--kubeconfig",
                        kc.toString(),
                        "--target-timeout",
                        "soon");
        assertEquals(2, timeout.code(), timeout.err());
        assertTrue(timeout.err().contains("--target-timeout soon"), timeout.err());
    }
}
