package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.collect.Collector;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.KubeRaw;
import dev.deja.model.kube.Workload;
import dev.deja.source.ScanRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Rules of one's own see a Kubernetes object as the API returns it ({@code object.spec...}, as
 * ValidatingAdmissionPolicy sees {@code object}) from all three ways objects reach deja: manifest
 * files (multi-document, a Helm chart, a kustomization, with their locations), a live cluster
 * (Fabric8's mock server in CRUD mode through a real kubeconfig) and saved snapshots; the objects
 * are kept only when a loaded rule reads them so, and within bounds.
 */
class KubeRawObjectsTest {
    static final String RULES = "examples/custom-rules";
    static final String RULE = "acme-gateway-slow-readiness";
    static final String GATEWAY = RULES + "/" + RULE + "/gateway.yaml";
    static final String MESSAGE =
            "Deployment api-gateway (2 replicas) has its first readiness check after envoy 45s"
                    + " (limit 20s)";

    static List<JsonNode> findings(JsonNode report, String rule) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode f : report.path("findings")) {
            if (f.path("ruleId").asString().equals(rule)) {
                out.add(f);
            }
        }
        return out;
    }

    static List<String> notChecked(JsonNode report) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (e.path("scope").asString().startsWith("rule ")) {
                out.add(e.path("scope").asString() + ": " + e.path("detail").asString());
            }
        }
        return out;
    }

    @Test
    void aManifestFiresWithValuesFromTheObjectAtItsLineAndTheFixedOneDoesNot() {
        TestSupport.Run r =
                TestSupport.run(
                        "scan", "--rules-dir", RULES, "--rules", RULE, GATEWAY, "--format", "json");
        assertEquals(1, r.code(), r.out() + r.err());
        List<JsonNode> got = findings(r.json(), RULE);
        assertEquals(1, got.size(), r.out());
        JsonNode f = got.get(0);
        // the values in the message come from object.spec (replicas, the container's probe)
        assertTrue(f.path("message").asString().startsWith(MESSAGE), f.toString());
        // the second document of the file, at its first line (line 11)
        assertEquals(GATEWAY, f.path("location").path("file").asString());
        assertEquals(11, f.path("location").path("line").asInt());
        TestSupport.Run ok =
                TestSupport.run(
                        "scan",
                        "--rules-dir",
                        RULES,
                        "--rules",
                        RULE,
                        RULES + "/" + RULE + "/gateway_ok.yaml",
                        "--format",
                        "json");
        assertEquals(0, ok.code(), ok.out() + ok.err());
        assertTrue(findings(ok.json(), RULE).isEmpty(), ok.out());
    }

    /** The example docs/writing-rules.md shows for {@code object} is the rule's own text. */
    @Test
    void theDocsShowTheExampleRulesOwnCheck() throws IOException {
        String doc = Files.readString(Path.of("docs/writing-rules.md"));
        int start = doc.indexOf("```yaml\ncheck:\n  for: [Deployment, StatefulSet]\n");
        assertTrue(start >= 0, "docs/writing-rules.md shows the example's check");
        String shown = doc.substring(start + "```yaml\n".length(), doc.indexOf("```", start + 7));
        assertTrue(
                Files.readString(Path.of(RULES + "/" + RULE + ".yaml")).contains(shown),
                "the check docs/writing-rules.md shows is in " + RULE + ".yaml:\n" + shown);
    }

    @Test
    void aLiveClusterFiresAndItsSnapshotCarriesTheObjects(@TempDir Path dir) throws IOException {
        try (MockCluster cluster = new MockCluster()) {
            Path kubeconfig = cluster.kubeconfig(dir);
            cluster.apply(Path.of(GATEWAY), null);
            Path snap = dir.resolve("snap.json");
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--cluster",
                            "--kubeconfig",
                            kubeconfig.toString(),
                            "-A",
                            "--rules-dir",
                            RULES,
                            "--rules",
                            RULE,
                            "--format",
                            "json",
                            "--snapshot-out",
                            snap.toString());
            assertEquals(1, r.code(), r.out() + r.err());
            List<JsonNode> got = findings(r.json(), RULE);
            assertEquals(1, got.size(), r.out());
            String message = got.get(0).path("message").asString();
            assertTrue(message.startsWith(MESSAGE), message);
            assertTrue(notChecked(r.json()).isEmpty(), r.out());
            // the snapshot holds the Deployment as the API returned it, and a later scan of it
            // with the same rule gives the same finding
            JsonNode part =
                    TestSupport.json(Files.readString(snap)).path("parts").path("kubernetes");
            assertEquals(
                    45,
                    part.path("raw")
                            .path("workloads")
                            .path(0)
                            .path("spec")
                            .path("template")
                            .path("spec")
                            .path("containers")
                            .path(0)
                            .path("readinessProbe")
                            .path("initialDelaySeconds")
                            .asInt(),
                    part.toString());
            assertEquals("Deployment", part.path("rawKinds").path(0).asString(), part.toString());
            TestSupport.Run offline =
                    TestSupport.run(
                            "scan",
                            snap.toString(),
                            "--rules-dir",
                            RULES,
                            "--rules",
                            RULE,
                            "--format",
                            "json");
            assertEquals(1, offline.code(), offline.out() + offline.err());
            List<JsonNode> again = findings(offline.json(), RULE);
            assertEquals(1, again.size(), offline.out());
            assertEquals(message, again.get(0).path("message").asString());
        }
    }

    @Test
    void aSnapshotSavedWithoutTheObjectsSaysSoAndOldSnapshotsStayReadable(@TempDir Path dir)
            throws IOException {
        Path rules = dir.resolve("rules");
        Files.createDirectories(rules);
        Files.writeString(
                rules.resolve("acme-spec.yaml"),
                "id: acme-spec\ntitle: Test rule\nseverity: medium\nsource: kubernetes\n"
                        + "cases: [IL-0495]\ndescription: A rule for the tests.\n"
                        + "remediation: Fix it.\ncheck:\n  for: [Deployment]\n"
                        + "  when: object.spec.replicas > 0\n"
                        + "  message: '{{ object.metadata.name }}'\n");
        Files.writeString(
                rules.resolve("acme-view.yaml"),
                "id: acme-view\ntitle: Test rule\nseverity: medium\nsource: kubernetes\n"
                        + "cases: [IL-0495]\ndescription: A rule for the tests.\n"
                        + "remediation: Fix it.\ncheck:\n  for: [Deployment]\n"
                        + "  when: object.kind == 'Deployment' && object.meta.name != ''\n"
                        + "  message: '{{ object.apiVersion }} {{ object.meta.name }}'\n");
        // a snapshot from before this change: views only
        String old =
                "src/test/resources/fixtures/lb-connections-near-capacity/cpu-limit-workers.json";
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        old,
                        "--rules-dir",
                        rules.toString(),
                        "--rules",
                        "acme-spec,acme-view",
                        "--format",
                        "json");
        assertEquals(3, r.code(), r.out() + r.err());
        // the rule that reads deja's fields judges the three Deployments
        assertEquals(3, findings(r.json(), "acme-view").size(), r.out());
        assertTrue(
                findings(r.json(), "acme-view")
                        .get(0)
                        .path("message")
                        .asString()
                        .startsWith("apps/v1 ingress-nginx-controller"),
                r.out());
        // the rule that reads object.spec is not checked on them, and says why, once
        assertTrue(findings(r.json(), "acme-spec").isEmpty(), r.out());
        List<String> notes = notChecked(r.json());
        assertEquals(1, notes.size(), notes.toString());
        String note = notes.get(0);
        assertTrue(
                note.startsWith(
                        "rule acme-spec on Deployment ingress-nginx/ingress-nginx-controller and 2"
                                + " more: "),
                note);
        assertTrue(
                note.contains(
                        "snapshot "
                                + old
                                + " holds no Deployment as the API returned it (it holds none)"),
                note);
        assertTrue(note.contains("save it again with those rules (--rules-dir)"), note);
        TestSupport.Run partial =
                TestSupport.run(
                        "scan",
                        old,
                        "--rules-dir",
                        rules.toString(),
                        "--rules",
                        "acme-spec",
                        "--allow-partial");
        assertEquals(0, partial.code(), partial.out() + partial.err());
    }

    @Test
    void aScanWithoutSuchRulesKeepsNoObjectAndOneWithThemKeepsOnlyTheirKinds() {
        ScanRequest.Builder b = ScanRequest.builder();
        b.paths = List.of(GATEWAY);
        b.processEnv = Map.of();
        Snapshot without = Collector.collect(b.build());
        assertTrue(without.part(KubeRaw.class).isEmpty(), "no KubeRaw part without such rules");
        b.kubeRawKinds = Set.of("Deployment");
        Snapshot with = Collector.collect(b.build());
        KubeRaw raw = with.part(KubeRaw.class).orElseThrow();
        KubeInventory inv = with.part(KubeInventory.class).orElseThrow();
        assertEquals(1, raw.size());
        Workload w = inv.workloads().get(0);
        Map<String, Object> o = raw.of(w.meta());
        assertNotNull(o);
        assertEquals("apps/v1", o.get("apiVersion"));
        assertEquals(2L, ((Map<?, ?>) o.get("spec")).get("replicas"), "a YAML int is a long");
        assertNull(raw.of(inv.services().get(0).meta()), "a Service is not kept");
        // the views are the same either way
        assertEquals(without.part(KubeInventory.class).orElseThrow().workloads(), inv.workloads());
    }

    @Test
    void anObjectPastTheBoundsIsNotKeptAndTheRuleSaysWhy(@TempDir Path dir) throws IOException {
        StringBuilder big = new StringBuilder();
        big.append("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: big}\n");
        big.append("spec:\n  replicas: 1\n  template:\n    metadata:\n      annotations:\n");
        for (int i = 0; i <= KubeRaw.MAX_VALUES / 2; i++) {
            big.append("        k").append(i).append(": v\n");
        }
        big.append("    spec: {containers: [{name: c, image: nginx}]}\n");
        big.append("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: small}\n");
        big.append("spec: {replicas: 1}\n");
        Path manifest = dir.resolve("big.yaml");
        Files.writeString(manifest, big.toString());
        Path rules = dir.resolve("rules");
        Files.createDirectories(rules);
        Files.writeString(
                rules.resolve("acme-spec.yaml"),
                "id: acme-spec\ntitle: Test rule\nseverity: medium\nsource: kubernetes\n"
                        + "cases: [IL-0495]\ndescription: A rule for the tests.\n"
                        + "remediation: Fix it.\ncheck:\n  for: [Deployment]\n"
                        + "  when: object.spec.replicas == 1\n"
                        + "  message: '{{ object.metadata.name }} has one replica'\n");
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        manifest.toString(),
                        "--rules-dir",
                        rules.toString(),
                        "--rules",
                        "acme-spec",
                        "--format",
                        "json");
        assertEquals(3, r.code(), r.out() + r.err());
        List<JsonNode> got = findings(r.json(), "acme-spec");
        assertEquals(1, got.size(), r.out());
        assertEquals("small has one replica", got.get(0).path("message").asString());
        List<String> notes = notChecked(r.json());
        assertEquals(1, notes.size(), notes.toString());
        assertTrue(notes.get(0).startsWith("rule acme-spec on Deployment big: "), notes.get(0));
        assertTrue(
                notes.get(0).contains("too large to keep as the API returns it (more than 100000"),
                notes.get(0));
    }

    @Test
    void aWholeListItemHasJsonTypesAndGivesTheSameView() {
        String page =
                "{\"metadata\":{},\"items\":[{\"metadata\":{\"name\":\"a\",\"namespace\":\"n\","
                        + "\"managedFields\":[{\"manager\":\"kubectl\"}]},"
                        + "\"spec\":{\"replicas\":3,\"paused\":false,\"template\":{\"spec\":"
                        + "{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\","
                        + "\"env\":[{\"name\":\"X\",\"value\":\"1\"}],"
                        + "\"resources\":{\"limits\":{\"cpu\":0.5}}}]}}},"
                        + "\"status\":{\"readyReplicas\":2}}]}";
        List<Map<String, Object>> viewItems = new ArrayList<>();
        List<Map<String, Object>> wholeItems = new ArrayList<>();
        byte[] body = page.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ListPageParser.parse(body, t -> {}, viewItems::add);
        ListPageParser.parse(body, t -> {}, wholeItems::add, true);
        Map<String, Object> whole = wholeItems.get(0);
        Map<?, ?> spec = (Map<?, ?>) whole.get("spec");
        assertEquals(3L, spec.get("replicas"));
        assertEquals(Boolean.FALSE, spec.get("paused"));
        assertEquals(2L, ((Map<?, ?>) whole.get("status")).get("readyReplicas"));
        assertFalse(((Map<?, ?>) whole.get("metadata")).containsKey("managedFields"));
        assertFalse(viewItems.get(0).containsKey("status"), "the view's item skips status");
        Object a =
                dev.deja.model.kube.ViewReader.read(
                        new dev.deja.model.kube.MapTree(viewItems.get(0))
                                .withKind("Deployment", "apps/v1"),
                        null);
        Object b =
                dev.deja.model.kube.ViewReader.read(
                        new dev.deja.model.kube.MapTree(whole).withKind("Deployment", "apps/v1"),
                        null);
        assertEquals(a, b);
    }

    @Test
    void aChartAndAKustomizationFireAtTheLocationsTheBuiltInRulesName(@TempDir Path dir)
            throws Exception {
        Path rules = dir.resolve("rules");
        Files.createDirectories(rules);
        Files.writeString(
                rules.resolve("acme-any.yaml"),
                "id: acme-any\ntitle: Test rule\nseverity: medium\nsource: kubernetes\n"
                        + "cases: [IL-0495]\ndescription: A rule for the tests.\n"
                        + "remediation: Fix it.\ncheck:\n  for: [Deployment]\n"
                        + "  when: has(object.spec.template.spec.containers)\n"
                        + "  message: '{{ object.metadata.name }}:"
                        + " {{ object.spec.template.spec.containers[0].image }}'\n");
        String chart = "src/test/resources/helm/risky-ingress";
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        chart,
                        "--rules-dir",
                        rules.toString(),
                        "--rules",
                        "acme-any,k8s-lb-probe-fails-fast",
                        "--format",
                        "json",
                        "--fail-on",
                        "none");
        assertEquals(0, r.code(), r.out() + r.err());
        // the chart's Deployment is made by template logic: the template, without a line, as
        // the built-in rule names it
        JsonNode mine = sameObject(r.json());
        assertEquals(
                chart + "/templates/controller-deployment.yaml",
                mine.path("location").path("file").asString());
        assertTrue(mine.path("location").path("line").isMissingNode(), mine.toString());
        Path kubectl = Path.of("/usr/bin/kubectl");
        org.junit.jupiter.api.Assumptions.assumeTrue(
                Files.isExecutable(kubectl), "kubectl is not installed: no kustomize build");
        String overlay = "src/test/resources/kustomize/risky-ingress/overlay";
        TestSupport.Run k =
                TestSupport.runWith(
                        new java.io.ByteArrayInputStream(new byte[0]),
                        Map.of("PATH", "/usr/bin:/bin"),
                        "scan",
                        overlay,
                        "--rules-dir",
                        rules.toString(),
                        "--rules",
                        "acme-any,k8s-lb-probe-fails-fast",
                        "--format",
                        "json",
                        "--fail-on",
                        "none");
        assertEquals(0, k.code(), k.out() + k.err());
        JsonNode built = sameObject(k.json());
        assertEquals("<kustomize " + overlay + ">", built.path("location").path("file").asString());
        Process p = new ProcessBuilder(kubectl.toString(), "kustomize", overlay).start();
        String out =
                new String(
                        p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS));
        List<String> lines = out.lines().toList();
        int line = built.path("location").path("line").asInt();
        // the Deployment's first line in kustomize's output (its keys sorted: apiVersion, kind)
        assertEquals("apiVersion: apps/v1", lines.get(line - 1), out);
        assertEquals("kind: Deployment", lines.get(line), out);
    }

    /**
     * acme-any's finding on the object the built-in rule fires on, in the same file; its message
     * shows the image read from object.spec.
     */
    private static JsonNode sameObject(JsonNode report) {
        List<JsonNode> builtIn = findings(report, "k8s-lb-probe-fails-fast");
        assertFalse(builtIn.isEmpty(), report.toString());
        JsonNode b = builtIn.get(0);
        JsonNode m =
                findings(report, "acme-any").stream()
                        .filter(
                                x ->
                                        x.path("location")
                                                .path("name")
                                                .equals(b.path("location").path("name")))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError(report.toString()));
        assertEquals(
                b.path("location").path("file").asString(),
                m.path("location").path("file").asString());
        assertTrue(m.path("message").asString().matches("[a-z0-9-]+: \\S+"), m.toString());
        return m;
    }
}
