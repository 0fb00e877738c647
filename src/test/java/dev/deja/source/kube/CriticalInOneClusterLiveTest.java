package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * k8s-critical-in-one-cluster on a live fleet: Fabric8 mock API servers in CRUD mode, one per
 * cluster, reached through one real kubeconfig with a context each. The rule compares what the
 * clusters run; a cluster that cannot be read turns a lone critical workload into "not checked".
 */
class CriticalInOneClusterLiveTest {
    static final String RULE = "k8s-critical-in-one-cluster";

    @TempDir Path tmp;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private MockCluster cluster(String manifest) throws IOException {
        MockCluster c = new MockCluster();
        open.add(c);
        Path m = Files.createTempFile(tmp, "manifest", ".yaml");
        Files.writeString(m, manifest);
        c.apply(m, null);
        return c;
    }

    static String deployment(
            String ns, String name, Map<String, String> labels, Map<String, String> annotations) {
        return deployment("Deployment", ns, name, labels, annotations);
    }

    static String deployment(
            String kind,
            String ns,
            String name,
            Map<String, String> labels,
            Map<String, String> annotations) {
        return """
                apiVersion: apps/v1
                kind: %s
                metadata:
                  name: %s
                  namespace: %s
                  labels: %s
                  annotations: %s
                spec:
                  replicas: 2
                  selector: {matchLabels: {app: %s}}
                  template:
                    metadata: {labels: {app: %s}}
                    spec:
                      containers: [{name: app, image: registry.example/%s:1}]
                ---
                """
                .formatted(kind, name, ns, flow(labels), flow(annotations), name, name, name);
    }

    static String flow(Map<String, String> m) {
        StringBuilder b = new StringBuilder("{");
        m.forEach(
                (k, v) ->
                        b.append(b.length() > 1 ? ", " : "")
                                .append(k)
                                .append(": \"")
                                .append(v)
                                .append('"'));
        return b.append('}').toString();
    }

    /** "cluster namespace/name" of this rule's findings. */
    static Set<String> found(JsonNode report) {
        Set<String> out = new TreeSet<>();
        for (JsonNode f : report.path("findings")) {
            if (f.path("ruleId").asString().equals(RULE)) {
                out.add(
                        f.path("target").path("cluster").asString("-")
                                + " "
                                + f.path("location").path("namespace").asString()
                                + "/"
                                + f.path("location").path("name").asString());
            }
        }
        return out;
    }

    static final Map<String, String> CRITICAL = Map.of("deja.dev/critical", "true");

    private Path fleet(String... extra) throws IOException {
        MockCluster eu =
                cluster(
                        deployment(
                                        "shop",
                                        "checkout",
                                        Map.of(
                                                "deja.dev/critical",
                                                "true",
                                                "app.kubernetes.io/name",
                                                "checkout"),
                                        Map.of())
                                + deployment("shop", "cart", Map.of(), CRITICAL)
                                + deployment("shop", "reviews", Map.of("tier", "1"), Map.of())
                                + """
                                apiVersion: v1
                                kind: Namespace
                                metadata:
                                  name: search
                                  annotations: {deja.dev/critical: "true"}
                                ---
                                """
                                + deployment("StatefulSet", "search", "index", Map.of(), Map.of()));
        MockCluster us =
                cluster(
                        deployment("shop", "cart", Map.of(), Map.of())
                                + deployment(
                                        "shop",
                                        "checkout-v2",
                                        Map.of("app.kubernetes.io/name", "checkout"),
                                        Map.of()));
        Map<String, String> ctx = new TreeMap<>();
        ctx.put("prod-eu", eu.url());
        ctx.put("prod-us", us.url());
        for (String e : extra) {
            ctx.put(e, FleetScanTest.deadUrl());
        }
        return FleetScanTest.kubeconfig(tmp.resolve("kubeconfig"), ctx, "prod-eu");
    }

    @Test
    void aCriticalWorkloadInOneClusterOfTwoIsAFinding() throws Exception {
        Path kc = fleet();
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--all-contexts",
                        "--kubeconfig",
                        kc.toString(),
                        "--rules",
                        RULE,
                        "--format",
                        "json",
                        "--fail-on",
                        "medium");
        assertEquals(1, r.code(), r.err() + r.out());
        JsonNode report = TestSupport.json(r.out());
        // checkout by its label, search/index by its Namespace's annotation; cart runs in both
        // clusters; reviews is not critical (no selector given)
        assertEquals(Set.of("prod-eu shop/checkout", "prod-eu search/index"), found(report));
        String msg = report.path("findings").get(0).path("message").asString();
        assertTrue(
                msg.contains(
                        "runs in 1 of the 2 clusters scanned: only in prod-eu, not in prod-us"),
                msg);

        // --critical-selector adds shop/reviews; --fleet-identity by the app label finds checkout
        // in prod-us as checkout-v2
        TestSupport.Run tuned =
                TestSupport.run(
                        "scan",
                        "--all-contexts",
                        "--kubeconfig",
                        kc.toString(),
                        "--rules",
                        RULE,
                        "--critical-selector",
                        "tier=1",
                        "--fleet-identity",
                        "label:app.kubernetes.io/name",
                        "--format",
                        "json",
                        "--fail-on",
                        "none");
        assertEquals(0, tuned.code(), tuned.err());
        assertEquals(
                Set.of("prod-eu search/index", "prod-eu shop/reviews"),
                found(TestSupport.json(tuned.out())));

        // --snapshot-out: the fleet view is saved as the target "fleet", and judged again offline
        TestSupport.Run saved =
                TestSupport.run(
                        "scan",
                        "--all-contexts",
                        "--kubeconfig",
                        kc.toString(),
                        "--rules",
                        RULE,
                        "--snapshot-out",
                        tmp.resolve("snap-{target}.json").toString(),
                        "--format",
                        "json",
                        "--fail-on",
                        "none");
        assertEquals(0, saved.code(), saved.err());
        Path fleetSnapshot = tmp.resolve("snap-fleet.json");
        assertTrue(Files.exists(fleetSnapshot), saved.err());
        TestSupport.Run offline =
                TestSupport.run(
                        "scan", fleetSnapshot.toString(), "--format", "json", "--fail-on", "none");
        assertEquals(found(report), found(TestSupport.json(offline.out())), offline.err());

        // one cluster is not a fleet: the rule does not run
        TestSupport.Run one =
                TestSupport.run(
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        kc.toString(),
                        "--context",
                        "prod-eu",
                        "--rules",
                        RULE,
                        "--format",
                        "json",
                        "--fail-on",
                        "none");
        JsonNode oneReport = TestSupport.json(one.out());
        assertEquals(Set.of(), found(oneReport));
        assertFalse(oneReport.path("rulesRun").toString().contains(RULE), oneReport.toString());
    }

    @Test
    void theIgnoreAnnotationOnTheWorkloadSuppressesItsFleetFinding() throws Exception {
        MockCluster eu =
                cluster(
                        deployment(
                                        "shop",
                                        "checkout",
                                        CRITICAL,
                                        Map.of(
                                                "deja.dev/ignore",
                                                RULE + " the second region opens in March"))
                                + deployment("shop", "cart", CRITICAL, Map.of()));
        MockCluster us = cluster(deployment("shop", "reviews", Map.of(), Map.of()));
        Map<String, String> ctx = new TreeMap<>();
        ctx.put("prod-eu", eu.url());
        ctx.put("prod-us", us.url());
        Path kc = FleetScanTest.kubeconfig(tmp.resolve("kubeconfig"), ctx, "prod-eu");
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--all-contexts",
                        "--kubeconfig",
                        kc.toString(),
                        "--rules",
                        RULE,
                        "--format",
                        "json",
                        "--fail-on",
                        "medium");
        assertEquals(1, r.code(), r.err() + r.out());
        JsonNode report = TestSupport.json(r.out());
        assertEquals(Set.of("prod-eu shop/cart"), found(report));
        JsonNode sup = report.path("suppressed");
        assertEquals(1, sup.size(), sup.toString());
        assertEquals(RULE, sup.get(0).path("ruleId").asString());
        assertEquals("checkout", sup.get(0).path("location").path("name").asString());
        assertEquals(
                "the second region opens in March",
                sup.get(0).path("suppressionReason").asString());
        assertEquals(
                "annotation deja.dev/ignore on Deployment shop/checkout in cluster prod-eu",
                sup.get(0).path("suppressedBy").asString());
    }

    @Test
    void aClusterThatCannotBeReadMakesALoneCriticalWorkloadNotChecked() throws Exception {
        Path kc = fleet("dr-site");
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--all-contexts",
                        "--kubeconfig",
                        kc.toString(),
                        "--rules",
                        RULE,
                        "--format",
                        "json");
        assertEquals(3, r.code(), r.err());
        JsonNode report = TestSupport.json(r.out());
        assertEquals(Set.of(), found(report), "it may run in dr-site");
        Set<String> notChecked = new TreeSet<>();
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (e.path("scope").asString().startsWith("rule " + RULE)) {
                notChecked.add(e.path("scope").asString() + " | " + e.path("detail").asString());
            }
        }
        assertEquals(2, notChecked.size(), notChecked.toString());
        assertTrue(
                notChecked.stream()
                        .anyMatch(
                                s ->
                                        s.startsWith(
                                                        "rule "
                                                                + RULE
                                                                + " on Deployment shop/checkout in cluster prod-eu")
                                                && s.contains(
                                                        "the workloads of dr-site (not read: ")),
                notChecked.toString());
    }

    @Test
    void theFleetExampleFiresAndItsFixDoesNot() {
        TestSupport.Run risky =
                TestSupport.run(
                        "scan",
                        "examples/fleet/il-0072-tier1-one-cluster.json",
                        "--format",
                        "json");
        assertEquals(1, risky.code(), risky.err());
        assertEquals(
                Set.of("k8s-main checkout/checkout-api", "k8s-main checkout/payments"),
                found(TestSupport.json(risky.out())));
        TestSupport.Run fixed =
                TestSupport.run(
                        "scan",
                        "examples/fleet/il-0072-tier1-two-clusters.json",
                        "--format",
                        "json");
        assertEquals(0, fixed.code(), fixed.err());
        assertEquals(Set.of(), found(TestSupport.json(fixed.out())));
    }

    @Test
    void badOptionsAreUsageErrors() {
        TestSupport.Run r =
                TestSupport.run(
                        "scan", "--all-contexts", "--critical-selector", "tier in (1", "x.yaml");
        assertEquals(2, r.code(), r.err());
        assertTrue(
                r.err().contains("--critical-selector tier in (1: not a label selector"), r.err());
        TestSupport.Run i = TestSupport.run("scan", "--fleet-identity", "uid", "x.yaml");
        assertEquals(2, i.code(), i.err());
        assertTrue(i.err().contains("--fleet-identity uid: expected namespace/kind/name"), i.err());
    }
}
