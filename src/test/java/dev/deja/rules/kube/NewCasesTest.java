package dev.deja.rules.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.model.kube.IngressNginx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * IL-0053 and IL-0011: the controller version read from image tags (never guessed), and what the
 * four rules say on the shared corpus: the ingress-nginx deploy manifests (v1.15.1, webhook on, no
 * NetworkPolicy) get exactly one low finding each (the webhook is reachable from every pod, the
 * version is fixed), every other file none.
 */
class NewCasesTest {
    static final String RULES =
            "k8s-ingress-nginx-admission-rce,k8s-ingress-nginx-admission-exposed,"
                    + "k8s-haproxy-ingress-hot-pods,haproxy-roundrobin-same-start";

    @Test
    void versionsComeFromReleaseTagsOnly() {
        IngressNginx.Version v =
                IngressNginx.version(
                        "registry.k8s.io/ingress-nginx/controller:v1.11.3@sha256:d56f135b6462cfc476447cfe564b83a45e8bb7da2774963b00d12161112270b7");
        assertTrue(v.known() && v.vulnerable(), v.toString());
        assertEquals("v1.11.3", v.text());
        for (String fixed : List.of("v1.11.5", "v1.12.1", "1.13.0", "v1.15.1", "v2.0.0")) {
            IngressNginx.Version f =
                    IngressNginx.version("registry.k8s.io/ingress-nginx/controller:" + fixed);
            assertTrue(f.known() && !f.vulnerable(), fixed);
        }
        for (String vuln :
                List.of("v1.11.4", "v1.12.0", "v1.10.6", "v1.9.0", "0.49.3", "v1.12.0-beta.0")) {
            IngressNginx.Version f =
                    IngressNginx.version("registry.k8s.io/ingress-nginx/controller:" + vuln);
            assertTrue(f.known() && f.vulnerable(), vuln);
        }
        // a digest without a tag, no tag, a tag that is not a release, a pre-release of a fixed
        // version: unknown
        for (String unknown :
                List.of(
                        "registry.k8s.io/ingress-nginx/controller@sha256:d56f135b6462cfc476447cfe564b83a45e8bb7da2774963b00d12161112270b7",
                        "registry.k8s.io/ingress-nginx/controller",
                        "registry.k8s.io/ingress-nginx/controller:latest",
                        "registry.k8s.io/ingress-nginx/controller:v1.12",
                        "localhost:5000/ingress-nginx/controller",
                        "registry.k8s.io/ingress-nginx/controller:v1.12.1-beta.0")) {
            IngressNginx.Version f = IngressNginx.version(unknown);
            assertFalse(f.known(), unknown);
            assertFalse(f.vulnerable(), unknown);
        }
        assertNull(IngressNginx.tag("localhost:5000/ingress-nginx/controller"));
        assertEquals(8443, IngressNginxAdmission.port(":8443"));
        assertEquals(8443, IngressNginxAdmission.port("[::]:8443"));
    }

    /** rule id -> count of findings per severity, for one scan of one file. */
    static Map<String, String> verdicts(Path file) {
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        file.toString(),
                        "--rules",
                        RULES,
                        "--format",
                        "json",
                        "--fail-on",
                        "none");
        assertEquals(0, r.code(), file + ": " + r.err());
        JsonNode report = JsonMapper.builder().build().readTree(r.out());
        Map<String, String> out = new TreeMap<>();
        for (JsonNode f : report.path("findings")) {
            out.merge(
                    f.path("ruleId").asString() + " " + f.path("severity").asString(),
                    "1",
                    (a, b) -> String.valueOf(Integer.parseInt(a) + 1));
        }
        return out;
    }

    @Test
    void corpusIngressNginxManifestsGetOneLowExposedFindingAndOthersNone() throws IOException {
        Path kube = TestSupport.shared("corpus/kubernetes");
        Path real = TestSupport.shared("corpus/kubernetes-real");
        List<String> wrong = new ArrayList<>();
        int files = 0;
        for (Path dir : List.of(kube, real)) {
            List<Path> list;
            try (Stream<Path> s = Files.walk(dir)) {
                list =
                        s.filter(Files::isRegularFile)
                                .filter(
                                        p ->
                                                p.toString().endsWith(".yaml")
                                                        || p.toString().endsWith(".yml"))
                                .sorted()
                                .toList();
            }
            for (Path f : list) {
                files++;
                Map<String, String> expected =
                        f.getFileName().toString().startsWith("ingress-nginx_")
                                ? Map.of("k8s-ingress-nginx-admission-exposed low", "1")
                                : Map.of();
                Map<String, String> got = verdicts(f);
                if (!expected.equals(got)) {
                    wrong.add(f + ": expected " + expected + ", got " + got);
                }
            }
        }
        assertTrue(files > 40, "files " + files);
        assertEquals(List.of(), wrong);
    }

    @Test
    void corpusExposedFindingSaysWhyAndTheBlastRadius() {
        Path aws = TestSupport.shared("corpus/kubernetes/ingress-nginx_aws_deploy.yaml");
        TestSupport.Run r =
                TestSupport.run(
                        "scan", aws.toString(), "--rules", "k8s-ingress-nginx-admission-exposed");
        assertTrue(
                r.out()
                        .contains(
                                "no NetworkPolicy that governs ingress selects its pods (none among the objects read)"),
                r.out());
        assertTrue(r.out().contains("v1.15.1 has the CVE-2025-1974 fix"), r.out());
        assertTrue(
                r.out()
                        .contains(
                                "its ServiceAccount ingress-nginx/ingress-nginx can list, watch secrets in every"
                                        + " namespace (ClusterRole ingress-nginx via ClusterRoleBinding ingress-nginx)"),
                r.out());
    }
}
