package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The bundled Kubernetes examples and the ingress-nginx AWS manifest of the shared corpus report
 * what they should.
 */
class KubeExamplesTest {
    static Set<String> rules(String... args) {
        TestSupport.Run r = TestSupport.run(args);
        JsonNode report = KubeLiveSourceTest.json(r.out());
        Set<String> ids = new TreeSet<>();
        report.path("findings").forEach(f -> ids.add(f.path("ruleId").asString()));
        return ids;
    }

    /**
     * The rules of the examples' cases, read from the catalog: a rule from another case never
     * changes these tests.
     */
    static final String IL_0495 = TestSupport.rulesOf("IL-0495");

    static final String KUBE_CASES = TestSupport.rulesOf("IL-0495", "IL-0081");
    static final String IL_0053 = TestSupport.rulesOf("IL-0053");

    @Test
    void riskyIngressFiresEveryIl0495Rule() {
        assertEquals(
                Set.of(
                        "k8s-lb-liveness-same-as-readiness",
                        "k8s-lb-no-disruption-headroom",
                        "k8s-lb-not-spread",
                        "k8s-lb-probe-fails-fast",
                        "k8s-lb-probe-on-admin-endpoint"),
                rules(
                        "scan",
                        "examples/kubernetes/il-0495-risky-ingress.yaml",
                        "--format",
                        "json",
                        "--rules",
                        IL_0495));
    }

    @Test
    void fixedIngressFiresNothing() {
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "examples/kubernetes/il-0495-fixed-ingress.yaml",
                        "--rules",
                        IL_0495);
        assertEquals(0, r.code(), r.out());
        assertEquals(
                Set.of(),
                rules(
                        "scan",
                        "examples/kubernetes/il-0495-fixed-ingress.yaml",
                        "--format",
                        "json",
                        "--rules",
                        KUBE_CASES));
    }

    @Test
    void serialReloadsExampleFiresOnlyIl0081() {
        assertEquals(
                Set.of("k8s-ingress-nginx-serial-reloads"),
                rules(
                        "scan",
                        "examples/kubernetes/il-0081-serial-reloads.yaml",
                        "--format",
                        "json",
                        "--rules",
                        KUBE_CASES));
    }

    @Test
    void il0053RiskyFiresBothIngressNightmareRulesAndFixedNothing() {
        assertEquals(
                Set.of("k8s-ingress-nginx-admission-rce", "k8s-ingress-nginx-admission-exposed"),
                rules(
                        "scan",
                        "examples/kubernetes/il-0053-risky-ingress-nginx.yaml",
                        "--format",
                        "json",
                        "--rules",
                        IL_0053));
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "examples/kubernetes/il-0053-risky-ingress-nginx.yaml",
                        "--rules",
                        IL_0053);
        assertEquals(1, r.code(), r.err());
        assertTrue(
                r.out()
                        .contains(
                                "v1.11.3 is below the fixed releases (v1.11.5 on the 1.11 line, v1.12.1 on the 1.12"
                                        + " line)"),
                r.out());
        assertTrue(
                r.out()
                        .contains(
                                "NetworkPolicy ingress-nginx/ingress-nginx-controller admits port 8443 (webhook) from"
                                        + " every source (an ingress rule with neither ports nor from)"),
                r.out());
        assertTrue(
                r.out()
                        .contains(
                                "Service ingress-nginx/ingress-nginx-controller-admission is of type NodePort"),
                r.out());
        assertTrue(
                r.out()
                        .contains(
                                "its ServiceAccount ingress-nginx/ingress-nginx can list, watch secrets in every"
                                        + " namespace (ClusterRole ingress-nginx via ClusterRoleBinding ingress-nginx)"),
                r.out());
        TestSupport.Run fixed =
                TestSupport.run(
                        "scan",
                        "examples/kubernetes/il-0053-fixed-ingress-nginx.yaml",
                        "--rules",
                        IL_0053);
        assertEquals(0, fixed.code(), fixed.out());
        assertTrue(fixed.out().startsWith("No findings."), fixed.out());
        // both in one scan define the same objects: each definition is judged with its own
        // NetworkPolicy, Services and
        // RBAC (the fixed file's policy does not protect the risky Deployment, nor does the risky
        // one's leak into it)
        TestSupport.Run both =
                TestSupport.run(
                        "scan",
                        "examples/kubernetes/il-0053-risky-ingress-nginx.yaml",
                        "examples/kubernetes/il-0053-fixed-ingress-nginx.yaml",
                        "--format",
                        "json",
                        "--rules",
                        "k8s-ingress-nginx-admission-rce,k8s-ingress-nginx-admission-exposed");
        JsonNode report = KubeLiveSourceTest.json(both.out());
        int risky = 0;
        for (JsonNode f : report.path("findings")) {
            assertTrue(
                    f.path("location")
                            .path("file")
                            .asString("")
                            .endsWith("il-0053-risky-ingress-nginx.yaml"),
                    f.toString());
            assertTrue(f.path("message").asString().contains("NodePort"), f.toString());
            risky++;
        }
        assertEquals(2, risky, both.out());
    }

    @Test
    void corpusIngressNginxAwsManifest() {
        Path aws = TestSupport.shared("corpus/kubernetes/ingress-nginx_aws_deploy.yaml");
        // 1s probe timeouts, one replica (its missing PDB and spread are the same root cause,
        // reported once); cross-zone already on; v1.15.1 with its admission webhook on and no
        // NetworkPolicy: the webhook is reachable from every pod (low: the version is fixed).
        // Liveness probes readiness's endpoint with a higher failureThreshold (51s against 31s),
        // as Kubernetes advises: not reported
        assertEquals(
                Set.of(
                        "k8s-lb-no-disruption-headroom",
                        "k8s-lb-probe-fails-fast",
                        "k8s-ingress-nginx-admission-exposed"),
                rules(
                        "scan",
                        aws.toString(),
                        "--format",
                        "json",
                        "--rules",
                        TestSupport.rulesOf("IL-0495", "IL-0081", "IL-0053")));
    }

    @Test
    void wholeCorpusLoads() {
        Path dir = TestSupport.shared("corpus/kubernetes");
        TestSupport.Run r = TestSupport.run("scan", dir.toString(), "--fail-on", "none");
        assertEquals(0, r.code(), r.err());
    }
}
