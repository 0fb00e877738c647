package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.collect.Collector;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.ConfigMap;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.Meta;
import dev.deja.model.kube.Workload;
import dev.deja.source.ScanRequest;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

class ManifestLoaderTest {
    @TempDir Path tmp;

    static KubeInventory load(Path... files) {
        ScanRequest.Builder reqB = ScanRequest.builder();
        reqB.paths = Arrays.stream(files).map(Path::toString).toList();
        reqB.processEnv = Map.of();
        ScanRequest req = reqB.build();
        Snapshot s = Collector.collect(req);
        return s.part(KubeInventory.class).orElseThrow();
    }

    @Test
    void multiDocumentListsJsonAndUnknownKindsKeepFileAndLine() throws Exception {
        Path y = tmp.resolve("all.yaml");
        Files.writeString(
                y,
                """
                # leading comment
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
                data:
                  enable-serial-reloads: "true"
                  haproxy.cfg: |
                    global
                      maxconn 100
                ---
                apiVersion: v1
                kind: List
                items:
                  - apiVersion: apps/v1
                    kind: Deployment
                    metadata: {name: web, namespace: prod}
                    spec:
                      replicas: 2
                      template:
                        spec:
                          containers:
                            - name: web
                              image: nginx
                  - apiVersion: example.com/v1
                    kind: Widget
                    metadata: {name: w1}
                ---
                """);
        Path j = tmp.resolve("svc.json");
        Files.writeString(
                j,
                """
                {"apiVersion": "v1", "kind": "ServiceList", "items": [
                  {"apiVersion": "v1", "kind": "Service",
                   "metadata": {"name": "lb", "namespace": "prod"},
                   "spec": {"type": "LoadBalancer", "selector": {"app": "web"}}}]}
                """);
        KubeInventory inv = load(y, j);
        ConfigMap cm = inv.configMap("ingress-nginx", "ingress-nginx-controller").orElseThrow();
        assertEquals(2, cm.meta().line());
        assertEquals(y.toString(), cm.meta().file());
        assertEquals(6, cm.lineOf("enable-serial-reloads"));
        assertEquals("global\n  maxconn 100\n", cm.data().get("haproxy.cfg"));
        Workload w = inv.workloads().get(0);
        assertEquals("web", w.name());
        assertEquals(14, w.meta().line());
        assertEquals(18, w.replicasLine());
        assertEquals(22, w.containers().get(0).line());
        Meta widget = inv.others().get(0);
        assertEquals("Widget", widget.kind());
        assertEquals(24, widget.line());
        assertEquals("LoadBalancer", inv.services().get(0).type());
        assertEquals(j.toString(), inv.services().get(0).meta().file());
        assertEquals(2, inv.services().get(0).meta().line());
    }

    @Test
    void stdinIsReadAsManifests() {
        String doc =
                "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: a, annotations:"
                        + " {service.beta.kubernetes.io/aws-load-balancer-type: nlb}}\nspec: {type: LoadBalancer}\n";
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(doc.getBytes(StandardCharsets.UTF_8)),
                        Map.of(),
                        "scan",
                        "-",
                        "--rules",
                        "k8s-nlb-service-single-zone-risk");
        assertEquals(1, r.code(), r.err());
        assertTrue(r.out().contains("Service a/s (<stdin>:1)"), r.out());
    }

    @Test
    void yamlBombIsRefusedWithOneLine() throws Exception {
        StringBuilder sb =
                new StringBuilder("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\n");
        sb.append(
                "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        char prev = 'a';
        for (char c = 'b'; c <= 'l'; c++) {
            sb.append(c).append(": &").append(c).append(" [");
            for (int i = 0; i < 9; i++) {
                sb.append(i == 0 ? "" : ",").append('*').append(prev);
            }
            sb.append("]\n");
            prev = c;
        }
        assertRefused(sb.toString(), "aliases");
    }

    @Test
    void deepNestingIsRefusedWithOneLine() throws Exception {
        String deep =
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: "
                        + "[".repeat(5000)
                        + "]".repeat(5000)
                        + "\n";
        assertRefused(deep, "nested deeper than");
    }

    @Test
    void hugeDocumentIsRefusedWithOneLine() throws Exception {
        String big =
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n  blob: \""
                        + "x".repeat(5 * 1024 * 1024)
                        + "\"\n";
        assertRefused(big, "larger than 4 MiB");
    }

    @Test
    void invalidYamlNamesFileAndLine() throws Exception {
        assertRefused(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n", "bad.yaml:");
    }

    private void assertRefused(String text, String expected) throws Exception {
        Path f = tmp.resolve("bad.yaml");
        Files.writeString(f, text);
        long t0 = System.nanoTime();
        TestSupport.Run r = TestSupport.run("scan", f.toString());
        assertEquals(2, r.code(), r.out() + r.err());
        assertEquals("", r.out());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains(f.toString()) && r.err().contains(expected), r.err());
        assertFalse(r.err().contains("Exception"), r.err());
        assertTrue((System.nanoTime() - t0) / 1_000_000 < 10_000, "refused quickly");
    }

    @Test
    void annotationSuppressesNamedRulesUnlessDisabled() throws Exception {
        Path f = tmp.resolve("svc.yaml");
        Files.writeString(
                f,
                """
                apiVersion: v1
                kind: Service
                metadata:
                  name: edge
                  namespace: web
                  annotations:
                    service.beta.kubernetes.io/aws-load-balancer-type: nlb
                    deja.dev/ignore: "k8s-nlb-service-single-zone-risk,k8s-lb-not-spread single-zone test cluster"
                spec: {type: LoadBalancer}
                """);
        TestSupport.Run r = TestSupport.run("scan", f.toString(), "--format", "json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("single-zone test cluster"), r.out());
        TestSupport.Run off = TestSupport.run("scan", f.toString(), "--no-annotation-suppressions");
        assertEquals(1, off.code(), off.err());
        assertTrue(off.out().contains("k8s-nlb-service-single-zone-risk"), off.out());
    }

    @Test
    void snapshotRoundTripGivesTheSameFindings() throws Exception {
        Path snap = tmp.resolve("snap.json");
        String dir = "src/test/resources/fixtures";
        List<String> kube =
                List.of(
                        dir + "/k8s-lb-probe-fails-fast",
                        dir + "/k8s-lb-no-disruption-headroom",
                        dir + "/k8s-ingress-nginx-serial-reloads",
                        dir + "/k8s-nlb-service-single-zone-risk",
                        dir + "/k8s-lb-probe-on-admin-endpoint");
        List<String> args = new ArrayList<>(kube);
        args.add(0, "scan");
        args.addAll(List.of("--format", "json", "--snapshot-out", snap.toString()));
        String[] a = args.toArray(String[]::new);
        TestSupport.Run live = TestSupport.run(a);
        assertEquals(1, live.code(), live.err());
        assertTrue(Files.size(snap) > 0);
        TestSupport.Run again = TestSupport.run("scan", snap.toString(), "--format", "json");
        assertEquals(1, again.code(), again.err());
        JsonNode findings = live.json().path("findings");
        assertTrue(
                findings.size() >= kube.size(),
                "every fixture folder has a firing fixture: " + findings);
        assertEquals(findings, again.json().path("findings"));
    }

    @Test
    void valuesOfTheWrongTypeAreWarningsNamingTheLine() {
        String f = "src/test/resources/manifests-bad-values.yaml";
        TestSupport.Run r = TestSupport.run("scan", f);
        assertEquals(
                List.of(
                        "deja: warning: " + f + ":7: labels: not a mapping (read as empty)",
                        "deja: warning: "
                                + f
                                + ":9: replicas: 'two' is not a whole number (read as unset)",
                        "deja: warning: " + f + ":17: args: not a list (read as empty)",
                        "deja: warning: "
                                + f
                                + ":20: timeoutSeconds: 'abc' is not a whole number (read as unset)",
                        "deja: warning: " + f + ":28: containers: not a list (read as empty)"),
                r.err().lines().filter(l -> l.startsWith("deja: warning")).toList());
    }
}
