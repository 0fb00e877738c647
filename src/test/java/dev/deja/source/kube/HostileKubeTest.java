package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import io.fabric8.mockwebserver.http.MockResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Issue 17 (1): a Kubernetes API server that pages forever is stopped; the kind is failed and the
 * scan exits 3.
 */
class HostileKubeTest {
    @TempDir Path tmp;

    private static JsonNode failedEntry(TestSupport.Run r) {
        JsonNode report = KubeLiveSourceTest.json(r.out());
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (e.path("status").asString().equals("failed")) {
                return e;
            }
        }
        throw new AssertionError("no failed coverage entry: " + r.out());
    }

    private TestSupport.Run scan(MockCluster c, Map<String, String> env) throws IOException {
        return TestSupport.runWith(
                new ByteArrayInputStream(new byte[0]),
                env,
                "scan",
                "--cluster",
                "--kubeconfig",
                c.kubeconfig(tmp).toString(),
                "--rules",
                "k8s-nlb-service-single-zone-risk",
                "--format",
                "json");
    }

    @Test
    void theSameContinueTokenAgainStopsTheList() throws IOException {
        AtomicInteger calls = new AtomicInteger();
        try (MockCluster c =
                new MockCluster(
                        req ->
                                req.getPath().startsWith("/api/v1/services")
                                        ? countAnd(
                                                calls,
                                                KubeLiveFailureTest.servicePage(
                                                        "again", "svc-" + calls.get()))
                                        : null)) {
            TestSupport.Run r = scan(c, Map.of());
            assertEquals(3, r.code(), r.err());
            assertEquals(2, calls.get());
            JsonNode e = failedEntry(r);
            assertEquals("Service in all namespaces", e.path("scope").asString());
            assertTrue(
                    e.path("detail")
                            .asString()
                            .startsWith(
                                    "the API server sent the same continue token again (page 2)"),
                    e.toString());
            assertTrue(!r.out().contains("svc-0"), "nothing of a list that did not end is used");
        }
    }

    @Test
    void newContinueTokensForeverStopAtThePageCap() throws IOException {
        AtomicInteger calls = new AtomicInteger();
        try (MockCluster c =
                new MockCluster(
                        req ->
                                req.getPath().startsWith("/api/v1/services")
                                        ? countAnd(
                                                calls,
                                                KubeLiveFailureTest.servicePage("t" + calls.get()))
                                        : null)) {
            TestSupport.Run r = scan(c, Map.of());
            assertEquals(3, r.code(), r.err());
            // the page after the cap may already be on its way when the cap is seen; it is not read
            assertTrue(
                    calls.get() >= KubeLiveSource.MAX_PAGES
                            && calls.get() <= KubeLiveSource.MAX_PAGES + 1,
                    "calls: " + calls.get());
            assertTrue(
                    failedEntry(r)
                            .path("detail")
                            .asString()
                            .startsWith(
                                    "more than 2000 pages of 500 (the most deja"
                                            + " reads for one list)"),
                    failedEntry(r).toString());
        }
    }

    @Test
    void aSlowEndlessListStopsAtItsDeadline() throws IOException {
        AtomicInteger calls = new AtomicInteger();
        try (MockCluster c =
                new MockCluster(
                        req -> {
                            if (!req.getPath().startsWith("/api/v1/services")) {
                                return null;
                            }
                            return countAnd(
                                            calls,
                                            KubeLiveFailureTest.servicePage("t" + calls.get()))
                                    .setBodyDelay(200, TimeUnit.MILLISECONDS);
                        })) {
            TestSupport.Run r = scan(c, Map.of("DEJA_LIST_DEADLINE", "1"));
            assertEquals(3, r.code(), r.err());
            assertTrue(
                    calls.get() < KubeLiveSource.MAX_PAGES,
                    "stopped by the deadline: " + calls.get());
            assertTrue(
                    failedEntry(r)
                            .path("detail")
                            .asString()
                            .startsWith(
                                    "the list did not end within 1 s" + " (DEJA_LIST_DEADLINE) ("),
                    failedEntry(r).toString());
        }
    }

    /**
     * Issue 17 (4): an answer past the per-response cap (a whitespace stream) is cut, not buffered
     * whole.
     */
    @Test
    void anOversizedAnswerIsCutAtTheCap() throws IOException {
        int before = KubeLiveSource.maxResponseBytes;
        KubeLiveSource.maxResponseBytes = 1 << 20; // injected: the default is 128 MiB
        try (MockCluster c =
                new MockCluster(
                        req ->
                                req.getPath().startsWith("/api/v1/services")
                                        ? new MockResponse()
                                                .setResponseCode(200)
                                                .setHeader("Content-Type", "application/json")
                                                .setBody(" ".repeat(3 << 20) + "{}")
                                        : null)) {
            TestSupport.Run r = scan(c, Map.of());
            assertEquals(3, r.code(), r.err());
            assertEquals(
                    "an answer of the API server was larger than 1 MiB (the most deja reads in one answer):"
                            + " not read",
                    failedEntry(r).path("detail").asString());
        } finally {
            KubeLiveSource.maxResponseBytes = before;
        }
    }

    private static MockResponse countAnd(AtomicInteger n, MockResponse r) {
        n.incrementAndGet();
        return r;
    }
}
