package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Scope filters apply to everything (Fabric8's mock API server in CRUD mode, through a real
 * kubeconfig): a namespace that does not exist is not "everything requested was read", and {@code
 * -l} narrows the findings of every kind, not only the workloads.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScopeFilterTest {
    MockCluster cluster;
    Path kubeconfig;
    @TempDir Path tmp;

    /** ingress-nginx (labelled) beside another team's NLB Service and ConfigMap (not labelled). */
    static final String OBJECTS =
            """
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: ingress-nginx-controller
              namespace: shared
              labels: {app.kubernetes.io/name: ingress-nginx}
            spec:
              replicas: 1
              selector: {matchLabels: {app.kubernetes.io/name: ingress-nginx}}
              template:
                metadata: {labels: {app.kubernetes.io/name: ingress-nginx}}
                spec:
                  containers:
                    - name: controller
                      image: registry.k8s.io/ingress-nginx/controller:v1.12.1
                      args: [/nginx-ingress-controller, --configmap=$(POD_NAMESPACE)/ingress-nginx-controller]
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: ingress-nginx-controller
              namespace: shared
              labels: {app.kubernetes.io/name: ingress-nginx}
            data: {enable-serial-reloads: "true"}
            ---
            apiVersion: v1
            kind: Service
            metadata:
              name: ingress-nginx-controller
              namespace: shared
              labels: {app.kubernetes.io/name: ingress-nginx}
              annotations: {service.beta.kubernetes.io/aws-load-balancer-type: nlb}
            spec:
              type: LoadBalancer
              selector: {app.kubernetes.io/name: ingress-nginx}
              ports: [{port: 80}]
            ---
            apiVersion: v1
            kind: Service
            metadata:
              name: billing-api
              namespace: shared
              labels: {app.kubernetes.io/name: billing}
              annotations: {service.beta.kubernetes.io/aws-load-balancer-type: nlb}
            spec:
              type: LoadBalancer
              selector: {app.kubernetes.io/name: billing}
              ports: [{port: 443}]
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: other-ingress-nginx-controller
              namespace: shared
              labels: {app.kubernetes.io/name: other}
            data: {enable-serial-reloads: "true"}
            """;

    @BeforeAll
    void start(@TempDir Path dir) throws IOException {
        cluster = new MockCluster();
        kubeconfig = cluster.kubeconfig(dir);
        Path f = dir.resolve("objects.yaml");
        Files.writeString(f, OBJECTS);
        cluster.apply(f, null);
    }

    @AfterAll
    void stop() {
        cluster.close();
    }

    /** "rule Kind ns/name" of every finding. */
    static Set<String> findings(String json) {
        Set<String> out = new TreeSet<>();
        for (JsonNode f : KubeLiveSourceTest.json(json).path("findings")) {
            JsonNode l = f.path("location");
            out.add(
                    f.path("ruleId").asString()
                            + " "
                            + l.path("kind").asString()
                            + " "
                            + l.path("namespace").asString()
                            + "/"
                            + l.path("name").asString());
        }
        return out;
    }

    @Test
    void aNamespaceThatDoesNotExistIsNotEverythingRead() {
        TestSupport.Run r =
                TestSupport.run(
                        "scan", "--cluster", "--kubeconfig", kubeconfig.toString(), "-n", "nosuch");
        assertEquals(3, r.code(), r.out() + r.err());
        assertFalse(r.out().contains("everything requested was read"), r.out());
        assertTrue(
                r.out()
                        .contains(
                                "namespace nosuch: failed (namespace nosuch does not exist in context mock (404)"),
                r.out());
        // the rules it could not run say why: nothing was listed, not "a snapshot taken with other
        // rules"
        assertTrue(
                r.out().contains("and none was listed (namespace nosuch could not be read)"),
                r.out());
        assertFalse(r.out().contains("taken with other rules selected"), r.out());
        // beside one that exists: that one is read and judged, the scan is still incomplete
        TestSupport.Run both =
                TestSupport.run(
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "-n",
                        "shared",
                        "-n",
                        "nosuch",
                        "--format",
                        "json");
        assertEquals(3, both.code(), both.err());
        assertTrue(
                findings(both.out())
                        .contains("k8s-nlb-service-single-zone-risk Service shared/billing-api"),
                both.out());
        JsonNode report = KubeLiveSourceTest.json(both.out());
        assertFalse(report.path("coverage").path("complete").asBoolean());
        for (JsonNode e : report.path("coverage").path("entries")) {
            assertFalse(
                    e.path("scope").asString().endsWith("in namespace nosuch"), "not listed: " + e);
        }
        // an existing namespace alone: complete
        TestSupport.Run ok =
                TestSupport.run(
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "-n",
                        "shared",
                        "--fail-on",
                        "none");
        assertEquals(0, ok.code(), ok.out() + ok.err());
        assertTrue(ok.out().contains("everything requested was read"), ok.out());
    }

    @Test
    void theSelectorNarrowsTheFindingsOfEveryKind() throws IOException {
        Set<String> all =
                findings(
                        TestSupport.run(
                                        "scan",
                                        "--cluster",
                                        "--kubeconfig",
                                        kubeconfig.toString(),
                                        "--format",
                                        "json")
                                .out());
        // without -l the other team's objects are reported (the fixture is a real positive)
        assertTrue(
                all.contains("k8s-nlb-service-single-zone-risk Service shared/billing-api"),
                all.toString());
        assertTrue(
                all.contains(
                        "k8s-ingress-nginx-serial-reloads ConfigMap shared/other-ingress-nginx-controller"),
                all.toString());
        Path snap = tmp.resolve("narrow.json");
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "--format",
                        "json",
                        "-l",
                        "app.kubernetes.io/name=ingress-nginx",
                        "--snapshot-out",
                        snap.toString());
        Set<String> narrow = findings(r.out());
        Set<String> expected = new TreeSet<>();
        for (String f : all) {
            if (f.endsWith(" shared/ingress-nginx-controller")) {
                expected.add(f);
            }
        }
        assertTrue(
                expected.contains(
                        "k8s-ingress-nginx-serial-reloads ConfigMap shared/ingress-nginx-controller"),
                all.toString());
        assertTrue(
                expected.contains(
                        "k8s-nlb-service-single-zone-risk Service shared/ingress-nginx-controller"),
                all.toString());
        assertEquals(expected, narrow);
        // the same, offline from the snapshot
        assertEquals(
                expected,
                findings(TestSupport.run("scan", snap.toString(), "--format", "json").out()));
        // a baseline of the whole cluster: the other team's findings are not "fixed" by a narrowed
        // scan
        Path base = tmp.resolve("all.json");
        TestSupport.run(
                "scan",
                "--cluster",
                "--kubeconfig",
                kubeconfig.toString(),
                "--format",
                "json",
                "-o",
                base.toString());
        TestSupport.Run diff =
                TestSupport.run(
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "--format",
                        "json",
                        "-l",
                        "app.kubernetes.io/name=ingress-nginx",
                        "--baseline",
                        base.toString());
        JsonNode summary = KubeLiveSourceTest.json(diff.out()).path("baseline");
        assertEquals(0, summary.path("new").asInt(), summary.toString());
        assertEquals(expected.size(), summary.path("unchanged").asInt(), summary.toString());
        assertEquals(0, summary.path("fixed").asInt(), summary.toString());
        // set-based and negated requirements select as the API server does
        assertEquals(
                Set.of("k8s-nlb-service-single-zone-risk Service shared/billing-api"),
                findings(
                        TestSupport.run(
                                        "scan",
                                        "--cluster",
                                        "--kubeconfig",
                                        kubeconfig.toString(),
                                        "--format",
                                        "json",
                                        "--rules",
                                        "k8s-nlb-service-single-zone-risk",
                                        "-l",
                                        "app.kubernetes.io/name notin (ingress-nginx)")
                                .out()));
    }
}
