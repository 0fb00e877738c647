package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.report.sink.LoopbackServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code --report-configmap} and {@code --baseline configmap:NS/NAME} end to end: the CLI
 * in-process against Fabric8's mock API server in CRUD mode, through a real kubeconfig file.
 */
class ConfigMapReportTest {
    static final String RISKY = "examples/kubernetes/il-0495-risky-ingress.yaml";
    static final JsonMapper MAPPER = JsonMapper.builder().build();
    @TempDir Path tmp;

    static ConfigMap report(MockCluster c) {
        return c.client.configMaps().inNamespace("deja").withName("deja-report").get();
    }

    static JsonNode json(String s) {
        return MAPPER.readTree(s);
    }

    @Test
    void keepsTheReportThenServesAsTheBaselineOfTheNextRun() throws IOException {
        try (MockCluster c = new MockCluster()) {
            String kc = c.kubeconfig(tmp).toString();
            assertNull(report(c), "no ConfigMap before the first run");

            TestSupport.Run first =
                    TestSupport.run(
                            "scan",
                            RISKY,
                            "--kubeconfig",
                            kc,
                            "--format",
                            "json",
                            "--report-configmap",
                            "deja/deja-report");
            assertEquals(1, first.code(), first.err());
            assertEquals("", first.err());
            JsonNode printed = json(first.out());
            int total = printed.path("findings").size();
            assertTrue(total >= 5, "the risky example fires every IL-0495 rule: " + total);

            ConfigMap cm = report(c);
            assertNotNull(cm, "created when absent");
            assertEquals(Set.of("deja.json", "summary.txt"), cm.getData().keySet());
            JsonNode kept = json(cm.getData().get("deja.json"));
            assertEquals(total, kept.path("findings").size());
            assertEquals(total, kept.path("summary").path("total").asInt());
            assertEquals(
                    printed.path("findings"),
                    kept.path("findings"),
                    "the same report as --format json");
            assertFalse(kept.has("truncated"));
            String summary = cm.getData().get("summary.txt");
            assertTrue(summary.startsWith(total + " findings ("), summary);
            int bySeverity = 0;
            for (String sev : List.of("critical", "high", "medium", "low", "info")) {
                String line =
                        summary.lines()
                                .filter(l -> l.startsWith(sev + ": "))
                                .findFirst()
                                .orElseThrow(
                                        () ->
                                                new AssertionError(
                                                        "no count for " + sev + " in " + summary));
                int n = Integer.parseInt(line.substring(sev.length() + 2));
                assertEquals(printed.path("summary").path("bySeverity").path(sev).asInt(), n, sev);
                bySeverity += n;
            }
            assertEquals(total, bySeverity);
            assertEquals("deja", cm.getMetadata().getLabels().get("app.kubernetes.io/managed-by"));
            Instant at = Instant.parse(cm.getMetadata().getAnnotations().get("deja.dev/last-scan"));
            assertTrue(
                    Math.abs(at.getEpochSecond() - Instant.now().getEpochSecond()) < 120,
                    at.toString());
            assertEquals(
                    Integer.toString(total),
                    cm.getMetadata().getAnnotations().get("deja.dev/findings"));
            String version = cm.getMetadata().getResourceVersion();

            // the next run: nothing new against the ConfigMap, so --fail-on (default medium) does
            // not fail
            TestSupport.Run second =
                    TestSupport.run(
                            "scan",
                            RISKY,
                            "--kubeconfig",
                            kc,
                            "--format",
                            "json",
                            "--baseline",
                            "configmap:deja/deja-report",
                            "--report-configmap",
                            "deja/deja-report");
            assertEquals(0, second.code(), second.err());
            JsonNode again = json(second.out());
            assertEquals(total, again.path("findings").size());
            assertEquals(
                    "configmap:deja/deja-report", again.path("baseline").path("source").asString());
            assertTrue(again.path("baseline").path("found").asBoolean());
            assertEquals(0, again.path("baseline").path("new").asInt());
            assertEquals(total, again.path("baseline").path("unchanged").asInt());
            for (JsonNode f : again.path("findings")) {
                assertFalse(f.path("new").asBoolean(true), "not new: " + f.path("ruleId"));
            }
            ConfigMap updated = report(c);
            assertNotEquals(version, updated.getMetadata().getResourceVersion(), "replaced");
            assertEquals(
                    0,
                    json(updated.getData().get("deja.json")).path("baseline").path("new").asInt());
            assertTrue(
                    updated.getData()
                            .get("summary.txt")
                            .contains(
                                    "new: 0 (against configmap:deja/deja-report: "
                                            + total
                                            + " unchanged, 0 fixed)"),
                    updated.getData().get("summary.txt"));

            // a finding that is not in the baseline counts again
            TestSupport.Run third =
                    TestSupport.run(
                            "scan",
                            RISKY,
                            "examples/kubernetes/il-0081-serial-reloads.yaml",
                            "--kubeconfig",
                            kc,
                            "--format",
                            "json",
                            "--baseline",
                            "configmap:deja/deja-report");
            assertEquals(1, third.code(), third.err());
            JsonNode fresh = json(third.out());
            assertTrue(fresh.path("baseline").path("new").asInt() > 0);
            for (JsonNode f : fresh.path("findings")) {
                assertEquals(
                        f.path("ruleId").asString().equals("k8s-ingress-nginx-serial-reloads"),
                        f.path("new").asBoolean(),
                        f.toString());
            }
        }
    }

    @Test
    void theShippedEmptyConfigMapIsNoBaselineYetAndIsFilledKeepingItsLabels() throws IOException {
        try (MockCluster c = new MockCluster()) {
            String kc = c.kubeconfig(tmp).toString();
            c.apply(Path.of("examples/kubernetes/cronjob/report-configmap.yaml"), null);
            assertTrue(report(c).getData() == null || report(c).getData().isEmpty());
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            RISKY,
                            "--kubeconfig",
                            kc,
                            "--fail-on",
                            "none",
                            "--baseline",
                            "configmap:deja/deja-report",
                            "--report-configmap",
                            "deja/deja-report");
            assertEquals(0, r.code(), r.err());
            // the ConfigMap is there (empty): not "not found"
            assertEquals(
                    "deja: baseline configmap:deja/deja-report holds no report yet (no deja.json key: a first run):"
                            + " every finding counts as new\n",
                    r.err());
            assertTrue(r.out().contains("No baseline at configmap:deja/deja-report yet"), r.out());
            ConfigMap cm = report(c);
            assertEquals(
                    "deja", cm.getMetadata().getLabels().get("app.kubernetes.io/name"), "kept");
            assertEquals("deja", cm.getMetadata().getLabels().get("app.kubernetes.io/managed-by"));
            JsonNode kept = json(cm.getData().get("deja.json"));
            assertFalse(kept.path("baseline").path("found").asBoolean(true));
            assertTrue(
                    cm.getData()
                            .get("summary.txt")
                            .contains(
                                    "new: "
                                            + kept.path("findings").size()
                                            + " (no baseline at configmap:deja/deja-report yet"),
                    cm.getData().get("summary.txt"));
        }
    }

    @Test
    void aMissingConfigMapIsNotFound() throws IOException {
        try (MockCluster c = new MockCluster()) {
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            RISKY,
                            "--kubeconfig",
                            c.kubeconfig(tmp).toString(),
                            "--fail-on",
                            "none",
                            "--baseline",
                            "configmap:deja/deja-report");
            assertEquals(0, r.code(), r.err());
            assertEquals(
                    "deja: baseline configmap:deja/deja-report not found: every finding counts as new\n",
                    r.err());
        }
    }

    @Test
    void aRefusedWriteIsOneLineAndTheOtherOutputsAreStillWritten() throws IOException {
        try (MockCluster c =
                        new MockCluster(
                                req -> {
                                    boolean write = !req.getMethod().equals("GET");
                                    return write
                                                    && req.getPath()
                                                            .startsWith(
                                                                    "/api/v1/namespaces/deja/configmaps")
                                            ? MockCluster.status(
                                                    403,
                                                    "Forbidden",
                                                    "configmaps \\\"deja-report\\\" is forbidden: User"
                                                            + " \\\"system:serviceaccount:deja:deja\\\" cannot update resource \\\"configmaps\\\"")
                                            : null;
                                });
                LoopbackServer hook = new LoopbackServer()) {
            String kc = c.kubeconfig(tmp).toString();
            Path file = tmp.resolve("out/deja.json");
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            RISKY,
                            "--kubeconfig",
                            kc,
                            "--report-configmap",
                            "deja/deja-report",
                            "--output",
                            "json=" + file,
                            "--notify",
                            hook.url());
            assertEquals(2, r.code(), r.err());
            List<String> lines = r.err().lines().toList();
            assertEquals(1, lines.size(), r.err());
            assertTrue(
                    lines.get(0)
                            .startsWith(
                                    "deja: configmap deja/deja-report: cannot write report: forbidden"),
                    lines.get(0));
            assertTrue(lines.get(0).contains("cannot update resource"), lines.get(0));
            // stdout, the file and the notification are all there
            assertTrue(r.out().contains("k8s-lb-probe-fails-fast"), r.out());
            assertTrue(json(Files.readString(file)).path("findings").size() >= 5);
            assertEquals(1, hook.requests.size(), "the notification is still sent");
            assertNull(report(c));
        }
    }

    @Test
    void anUnreachableApiServerIsOneLine() throws IOException {
        Path kc =
                MockCluster.writeKubeconfig(tmp.resolve("kc"), "gone", LoopbackServer.refusedUrl());
        Path file = tmp.resolve("deja.json");
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        RISKY,
                        "--kubeconfig",
                        kc.toString(),
                        "--report-configmap",
                        "deja/deja-report",
                        "-o",
                        file.toString(),
                        "--format",
                        "json");
        assertEquals(2, r.code(), r.err());
        List<String> lines = r.err().lines().toList();
        assertEquals(1, lines.size(), r.err());
        assertTrue(
                lines.get(0)
                        .startsWith(
                                "deja: configmap deja/deja-report: cannot write report: cannot reach the API"
                                        + " server http://127.0.0.1:"),
                lines.get(0));
        assertTrue(lines.get(0).endsWith(": connection refused"), lines.get(0));
        assertTrue(Files.size(file) > 0);
    }

    @Test
    void aRefusedBaselineReadIsAnInputErrorBeforeTheScan() throws IOException {
        try (MockCluster c =
                new MockCluster(
                        req ->
                                req.getPath().startsWith("/api/v1/namespaces/deja/configmaps")
                                        ? MockCluster.status(
                                                403, "Forbidden", "configmaps is forbidden")
                                        : null)) {
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            RISKY,
                            "--kubeconfig",
                            c.kubeconfig(tmp).toString(),
                            "--baseline",
                            "configmap:deja/deja-report");
            assertEquals(2, r.code(), r.err());
            assertEquals(
                    "deja: configmap:deja/deja-report: cannot read baseline: forbidden: configmaps is forbidden\n",
                    r.err());
            assertEquals("", r.out());
        }
    }

    @Test
    void badReferencesAndKubeconfigsAreInputErrors() {
        TestSupport.Run r = TestSupport.run("scan", RISKY, "--report-configmap", "deja");
        assertEquals(2, r.code());
        assertEquals(
                "deja: --report-configmap deja: expected NAMESPACE/NAME, e.g. deja/deja-report\n",
                r.err());
        TestSupport.Run k =
                TestSupport.run(
                        "scan",
                        RISKY,
                        "--report-configmap",
                        "deja/r",
                        "--kubeconfig",
                        tmp.resolve("missing").toString());
        assertEquals(2, k.code());
        assertEquals(
                "deja: --report-configmap deja/r: --kubeconfig "
                        + tmp.resolve("missing")
                        + ": no such file\n",
                k.err());
        assertEquals("", k.out(), "checked before the scan");
    }

    @Test
    void theConfigFileKeyWorksAndTheFlagOverridesIt() throws IOException {
        try (MockCluster c = new MockCluster()) {
            String kc = c.kubeconfig(tmp).toString();
            Path cfg = tmp.resolve("deja.yaml");
            Files.writeString(cfg, "reportConfigMap: deja/from-file\nfailOn: none\n");
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            Path.of(RISKY).toAbsolutePath().toString(),
                            "--kubeconfig",
                            kc,
                            "--config",
                            cfg.toString());
            assertEquals(0, r.code(), r.err());
            assertNotNull(c.client.configMaps().inNamespace("deja").withName("from-file").get());
            TestSupport.Run o =
                    TestSupport.run(
                            "scan",
                            Path.of(RISKY).toAbsolutePath().toString(),
                            "--kubeconfig",
                            kc,
                            "--config",
                            cfg.toString(),
                            "--report-configmap",
                            "deja/deja-report");
            assertEquals(0, o.code(), o.err());
            assertNotNull(report(c));
            Files.writeString(cfg, "failOn: none\nreportConfigMap: deja\n");
            TestSupport.Run bad = TestSupport.run("scan", RISKY, "--config", cfg.toString());
            assertEquals(2, bad.code());
            assertEquals(
                    "deja: " + cfg + ":2: reportConfigMap 'deja' is not NAMESPACE/NAME\n",
                    bad.err());
        }
    }

    @Test
    void aConflictingChangeAndAPassingServerErrorAreRetried() throws IOException {
        AtomicInteger puts = new AtomicInteger();
        try (MockCluster c =
                new MockCluster(
                        req -> {
                            if (!req.getMethod().equals("PUT")) {
                                return null;
                            }
                            return switch (puts.incrementAndGet()) {
                                case 1 ->
                                        MockCluster.status(
                                                409, "Conflict", "the object has been modified");
                                case 2 ->
                                        MockCluster.status(
                                                503, "ServiceUnavailable", "etcd leader changed");
                                default -> null;
                            };
                        })) {
            c.apply(Path.of("examples/kubernetes/cronjob/report-configmap.yaml"), null);
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            RISKY,
                            "--kubeconfig",
                            c.kubeconfig(tmp).toString(),
                            "--fail-on",
                            "none",
                            "--report-configmap",
                            "deja/deja-report");
            assertEquals(0, r.code(), r.err());
            assertEquals("", r.err());
            assertEquals(
                    3,
                    puts.get(),
                    "409: read again and update; 503: deja's retry (ConfigMapReportSink.RETRY)");
            assertTrue(json(report(c).getData().get("deja.json")).path("findings").size() >= 5);
        }
    }

    @Test
    void aServerErrorThatLastsEndsAfterThreeAttempts() throws IOException {
        AtomicInteger puts = new AtomicInteger();
        try (MockCluster c =
                new MockCluster(
                        req -> {
                            if (!req.getMethod().equals("PUT")) {
                                return null;
                            }
                            puts.incrementAndGet();
                            return MockCluster.status(
                                    503, "ServiceUnavailable", "etcd leader changed");
                        })) {
            c.apply(Path.of("examples/kubernetes/cronjob/report-configmap.yaml"), null);
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            RISKY,
                            "--kubeconfig",
                            c.kubeconfig(tmp).toString(),
                            "--fail-on",
                            "none",
                            "--report-configmap",
                            "deja/deja-report");
            assertEquals(2, r.code(), r.err());
            assertEquals(3, puts.get(), "ConfigMapReportSink.RETRY: 3 attempts");
            List<String> lines = r.err().lines().toList();
            assertEquals(1, lines.size(), r.err());
            assertTrue(
                    lines.get(0).contains("cannot write report: HTTP 503: etcd leader changed"),
                    lines.get(0));
        }
    }
}
