package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.deja.TestSupport;
import io.fabric8.mockwebserver.http.MockResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Partial access, throttling, unreachable servers and rejected credentials, against a real HTTP
 * mock server.
 */
class KubeLiveFailureTest {
    static final Path FIXTURES = Path.of("src/test/resources/fixtures");
    @TempDir Path tmp;

    @Test
    void forbiddenKindIsReportedAsNotCheckedAndTheScanGoesOn() throws IOException {
        try (MockCluster c =
                new MockCluster(
                        req ->
                                req.getPath().contains("/poddisruptionbudgets")
                                        ? MockCluster.status(
                                                403,
                                                "Forbidden",
                                                "poddisruptionbudgets.policy is forbidden: User \\\"deja\\\" cannot list")
                                        : null)) {
            c.apply(
                    FIXTURES.resolve("k8s-lb-probe-fails-fast/ingress-nginx-default-timeout.yaml"),
                    null);
            Path kc = c.kubeconfig(tmp);
            TestSupport.Run r =
                    TestSupport.run(
                            "scan", "--cluster", "--kubeconfig", kc.toString(), "--format", "json");
            assertEquals(3, r.code(), r.err());
            assertTrue(r.err().contains("scan incomplete"), r.err());
            JsonNode report = KubeLiveSourceTest.json(r.out());
            assertFalse(report.path("coverage").path("complete").asBoolean());
            JsonNode denied = null;
            int read = 0;
            for (JsonNode e : report.path("coverage").path("entries")) {
                if (e.path("status").asString().equals("denied")) {
                    denied = e;
                } else if (e.path("status").asString().equals("read")) {
                    read++;
                }
            }
            assertTrue(denied != null, r.out());
            assertEquals("PodDisruptionBudget in all namespaces", denied.path("scope").asString());
            assertTrue(denied.path("detail").asString().contains("403"), denied.toString());
            assertEquals(13, read, r.out()); // the thirteen other kinds the rules read were read
            // (etcd's Pods in kube-system among them)
            // findings from what could be read are still reported
            assertTrue(
                    KubeLiveSourceTest.findings(report, "ingress-nginx", "k8s-lb-probe-fails-fast")
                                    .size()
                            == 1,
                    r.out());
            // a rule that needs the unread kind is not run ("no PodDisruptionBudget selects its
            // pods" would be false)
            assertTrue(
                    KubeLiveSourceTest.findings(report, null, "k8s-lb-no-disruption-headroom")
                            .isEmpty(),
                    r.out());
            JsonNode notRun = null;
            for (JsonNode e : report.path("coverage").path("entries")) {
                if (e.path("source").asString().equals("rules")) {
                    notRun = e;
                }
            }
            assertTrue(
                    notRun != null
                            && notRun.path("scope")
                                    .asString()
                                    .equals("k8s-lb-no-disruption-headroom")
                            && notRun.path("detail")
                                    .asString()
                                    .equals(
                                            "not run: it needs PodDisruptionBudget and"
                                                    + " PodDisruptionBudget in all namespaces could not be read"),
                    String.valueOf(notRun));
            assertTrue(
                    !report.path("summary")
                            .path("rulesRun")
                            .toString()
                            .contains("k8s-lb-no-disruption-headroom"),
                    report.path("summary").toString());
            TestSupport.Run text =
                    TestSupport.run("scan", "--cluster", "--kubeconfig", kc.toString());
            assertEquals(3, text.code());
            assertTrue(
                    text.out()
                            .contains(
                                    "Not checked:\n  - kubernetes: PodDisruptionBudget in all namespaces: denied (403"),
                    text.out());
            TestSupport.Run partial =
                    TestSupport.run(
                            "scan",
                            "--cluster",
                            "--kubeconfig",
                            kc.toString(),
                            "--allow-partial",
                            "--fail-on",
                            "none");
            assertEquals(0, partial.code(), partial.err());
        }
    }

    @Test
    void throttlingIsRetriedWithBackOff() throws IOException {
        AtomicInteger calls = new AtomicInteger();
        try (MockCluster c =
                new MockCluster(
                        req ->
                                req.getPath().contains("/services")
                                                && "GET".equals(req.getMethod())
                                                && calls.incrementAndGet() <= 2
                                        ? MockCluster.status(429, "TooManyRequests", "slow down")
                                        : null)) {
            c.apply(
                    FIXTURES.resolve("k8s-nlb-service-single-zone-risk/nlb-no-cross-zone.yaml"),
                    null);
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--cluster",
                            "--kubeconfig",
                            c.kubeconfig(tmp).toString(),
                            "--rules",
                            "k8s-nlb-service-single-zone-risk");
            assertEquals(1, r.code(), r.err());
            assertEquals(3, calls.get());
            assertTrue(r.out().contains("everything requested was read"), r.out());
        }
    }

    /**
     * A page of NLB Services in namespace edge, with a continue token when {@code token} is not
     * null.
     */
    static MockResponse servicePage(String token, String... names) {
        List<String> items = new ArrayList<>();
        for (String n : names) {
            items.add(
                    "{\"metadata\":{\"name\":\""
                            + n
                            + "\",\"namespace\":\"edge\",\"annotations\":"
                            + "{\"service.beta.kubernetes.io/aws-load-balancer-type\":\"nlb\"}},\"spec\":{\"type\":\"LoadBalancer\"}}");
        }
        String body =
                "{\"kind\":\"ServiceList\",\"apiVersion\":\"v1\",\"metadata\":{"
                        + (token == null ? "" : "\"continue\":\"" + token + "\"")
                        + "},\"items\":["
                        + String.join(",", items)
                        + "]}";
        return new MockResponse()
                .setResponseCode(200)
                .setHeader("Content-Type", "application/json")
                .setBody(body);
    }

    @Test
    void listsArePagedWithContinueTokens() throws IOException {
        List<String> paths = Collections.synchronizedList(new ArrayList<>());
        try (MockCluster c =
                new MockCluster(
                        req -> {
                            if (!req.getPath().startsWith("/api/v1/services")) {
                                return null;
                            }
                            paths.add(req.getPath());
                            boolean second = req.getPath().contains("continue=");
                            return servicePage(
                                    second ? null : "next+page/1", second ? "second" : "first");
                        })) {
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--cluster",
                            "--kubeconfig",
                            c.kubeconfig(tmp).toString(),
                            "--rules",
                            "k8s-nlb-service-single-zone-risk",
                            "--format",
                            "json");
            assertEquals(1, r.code(), r.err());
            assertEquals(
                    List.of(
                            "/api/v1/services?limit=500",
                            "/api/v1/services?limit=500&continue=next%2Bpage%2F1"),
                    paths);
            JsonNode report = KubeLiveSourceTest.json(r.out());
            assertEquals(
                    Set.of(
                            "k8s-nlb-service-single-zone-risk Service edge/first",
                            "k8s-nlb-service-single-zone-risk Service edge/second"),
                    KubeLiveSourceTest.findings(report, null, null));
            assertEquals(2, report.path("coverage").path("entries").get(0).path("count").asInt());
        }
    }

    @Test
    void anExpiredContinueTokenReadsTheListWholeOnce() throws IOException {
        List<String> paths = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger expired = new AtomicInteger();
        boolean[] pagesWhole = {false};
        try (MockCluster c =
                new MockCluster(
                        req -> {
                            if (!req.getPath().startsWith("/api/v1/services")) {
                                return null;
                            }
                            paths.add(req.getPath());
                            boolean paged = req.getPath().contains("limit=") || pagesWhole[0];
                            boolean second = req.getPath().contains("continue=");
                            if (second) {
                                expired.incrementAndGet();
                                return MockCluster.status(
                                        410,
                                        "Expired",
                                        "The provided continue parameter is too old");
                            }
                            return paged
                                    ? servicePage("tok", "first")
                                    : servicePage(null, "first", "second");
                        })) {
            Path kc = c.kubeconfig(tmp);
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--cluster",
                            "--kubeconfig",
                            kc.toString(),
                            "--rules",
                            "k8s-nlb-service-single-zone-risk",
                            "--format",
                            "json");
            assertEquals(1, r.code(), r.err());
            assertEquals(
                    List.of(
                            "/api/v1/services?limit=500",
                            "/api/v1/services?limit=500&continue=tok",
                            "/api/v1/services"),
                    paths);
            JsonNode report = KubeLiveSourceTest.json(r.out());
            assertEquals(
                    2,
                    report.path("coverage").path("entries").get(0).path("count").asInt(),
                    r.out());
            assertEquals(2, report.path("findings").size(), r.out()); // "first" once, not twice
            // a server that pages the whole list too, and lets that token expire: not checked, no
            // half list used
            paths.clear();
            pagesWhole[0] = true;
            TestSupport.Run twice =
                    TestSupport.run(
                            "scan",
                            "--cluster",
                            "--kubeconfig",
                            kc.toString(),
                            "--rules",
                            "k8s-nlb-service-single-zone-risk",
                            "--format",
                            "json");
            assertEquals(3, twice.code(), twice.err());
            JsonNode rep = KubeLiveSourceTest.json(twice.out());
            JsonNode entry = rep.path("coverage").path("entries").get(0);
            assertEquals("failed", entry.path("status").asString());
            assertTrue(entry.path("detail").asString().startsWith("410 Gone"), entry.toString());
            assertEquals(0, rep.path("findings").size(), twice.out());
        }
    }

    @Test
    void redirectsAreNotFollowedSoTheTokenStaysWithTheApiServer() throws IOException {
        HttpServer other =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        List<String> leaked = Collections.synchronizedList(new ArrayList<>());
        other.createContext(
                "/",
                x -> {
                    leaked.add(String.valueOf(x.getRequestHeaders().getFirst("Authorization")));
                    x.sendResponseHeaders(200, 2);
                    x.getResponseBody().write("{}".getBytes(StandardCharsets.UTF_8));
                    x.close();
                });
        other.start();
        String elsewhere = "http://127.0.0.1:" + other.getAddress().getPort() + "/api/v1/services";
        try (MockCluster c =
                new MockCluster(
                        req ->
                                new MockResponse()
                                        .setResponseCode(302)
                                        .setHeader("Location", elsewhere))) {
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--cluster",
                            "--kubeconfig",
                            c.kubeconfig(tmp).toString(),
                            "--rules",
                            "k8s-nlb-service-single-zone-risk",
                            "--format",
                            "json");
            assertEquals(3, r.code(), r.err());
            assertEquals(List.of(), leaked);
            JsonNode entry =
                    KubeLiveSourceTest.json(r.out()).path("coverage").path("entries").get(0);
            assertEquals("failed", entry.path("status").asString());
            assertTrue(
                    entry.path("detail")
                            .asString()
                            .contains("HTTP 302 (a redirect to " + elsewhere + ")"),
                    entry.toString());
        } finally {
            other.stop(0);
        }
    }

    @Test
    void aServerThatIsNotAnApiServerIsNotACleanScan() throws IOException {
        for (String[] answer :
                new String[][] {
                    {"{\"hello\":\"world\"}", "without \"items\""},
                    {
                        "<html><body>Sign in</body></html>",
                        "the server answered HTML, not a Kubernetes list"
                    }
                }) {
            try (MockCluster c =
                    new MockCluster(
                            req ->
                                    new MockResponse()
                                            .setResponseCode(200)
                                            .setHeader("Content-Type", "text/html")
                                            .setBody(answer[0]))) {
                TestSupport.Run r =
                        TestSupport.run(
                                "scan",
                                "--cluster",
                                "--kubeconfig",
                                c.kubeconfig(tmp).toString(),
                                "--rules",
                                "k8s-nlb-service-single-zone-risk",
                                "--format",
                                "json");
                assertEquals(3, r.code(), r.err());
                JsonNode entry =
                        KubeLiveSourceTest.json(r.out()).path("coverage").path("entries").get(0);
                assertEquals("failed", entry.path("status").asString(), answer[0]);
                assertTrue(entry.path("detail").asString().contains(answer[1]), entry.toString());
            }
        }
    }

    @Test
    void anUntrustedServerCertificateIsOneClearLine() throws IOException {
        try (MockCluster c = new MockCluster(null, true)) {
            Path kc =
                    MockCluster.writeKubeconfig(
                            tmp.resolve("kc-tls"), "tls", c.url()); // no CA, no skip: untrusted
            // the connection timeout covers the TLS handshake, which an in-JVM mock server on a
            // busy 2-core machine
            // may take more than the default 5 s to finish: give it a minute (the variable users
            // set for slow links)
            TestSupport.Run r =
                    TestSupport.runWith(
                            new ByteArrayInputStream(new byte[0]),
                            Map.of(KubeClients.CONNECT_TIMEOUT_ENV, "60"),
                            "scan",
                            "--cluster",
                            "--kubeconfig",
                            kc.toString());
            assertEquals(3, r.code(), r.err());
            String first = r.err().lines().findFirst().orElse("");
            assertTrue(
                    first.startsWith("deja: kubernetes: TLS with the API server https://")
                            && first.endsWith(
                                    "failed: its certificate is not signed by the kubeconfig's certificate-authority (nor by a CA this"
                                            + " Java trusts)"),
                    r.err());
        }
    }

    @Test
    void rejectedCredentialsFailWithOneLine() throws IOException {
        try (MockCluster c =
                new MockCluster(req -> MockCluster.status(401, "Unauthorized", "Unauthorized"))) {
            TestSupport.Run r =
                    TestSupport.run(
                            "scan", "--cluster", "--kubeconfig", c.kubeconfig(tmp).toString());
            assertEquals(3, r.code(), r.err());
            String first = r.err().lines().findFirst().orElse("");
            assertTrue(
                    first.startsWith("deja: kubernetes: the API server http://")
                            && first.endsWith(
                                    "rejected the credentials of context mock (401 Unauthorized)"),
                    r.err());
        }
    }

    @Test
    void unreachableServerFailsWithOneLine() throws IOException {
        // no wall-clock bound (a busy CI host may be slow): the one-line error and exit code are
        // what a user sees
        Path kc =
                MockCluster.writeKubeconfig(
                        tmp.resolve("kc"),
                        "gone",
                        "http://127.0.0.1:" + KubeLiveSourceTest.freePort());
        TestSupport.Run r = TestSupport.run("scan", "--cluster", "--kubeconfig", kc.toString());
        assertEquals(3, r.code(), r.err());
        String[] lines = r.err().strip().split("\n");
        assertTrue(
                lines[0].matches(
                        "deja: kubernetes: cannot reach the API server http://127\\.0\\.0\\.1:\\d+/? \\(context gone\\): connection refused"),
                r.err());
        assertFalse(r.err().contains("Exception"), r.err());
        assertTrue(r.out().contains("kubernetes: all of kubernetes: failed"), r.out());
        // the rules not run say why: nothing was read, not that other rules were selected
        assertTrue(r.out().contains("and the cluster could not be read)"), r.out());
        assertFalse(r.out().contains("taken with other rules selected"), r.out());
        // --allow-partial accepts a partial scan, not one that read nothing at all
        TestSupport.Run partial =
                TestSupport.run(
                        "scan", "--cluster", "--kubeconfig", kc.toString(), "--allow-partial");
        assertEquals(3, partial.code(), partial.err());
        assertTrue(partial.err().contains("nothing was read"), partial.err());
    }

    @Test
    void noKubeconfigAnywhereIsAnInputError() {
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of("HOME", tmp.toString()),
                        "scan",
                        "--cluster");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("deja: --cluster: no kubeconfig"), r.err());
        assertEquals(1, r.err().strip().lines().count());
    }
}
