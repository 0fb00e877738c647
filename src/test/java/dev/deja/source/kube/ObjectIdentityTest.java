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
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * One object defined several times in a scan (a risky and a fixed version, providers' variants) is
 * never merged: each definition is judged with the numbers of that definition and the related
 * objects nearest to it (same file, then same folder, then the scan); a duplicate identity is noted
 * once.
 */
class ObjectIdentityTest {
    @TempDir Path tmp;

    static JsonNode scan(String... paths) {
        List<String> args =
                new ArrayList<>(List.of("scan", "--format", "json", "--fail-on", "none"));
        args.addAll(List.of(paths));
        TestSupport.Run r = TestSupport.run(args.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        return KubeLiveSourceTest.json(r.out());
    }

    /** "rule file: message" of every finding of a rule. */
    static List<String> messages(JsonNode report, String rule) {
        List<String> out = new ArrayList<>();
        for (JsonNode f : report.path("findings")) {
            if (f.path("ruleId").asString().equals(rule)) {
                out.add(
                        f.path("location").path("file").asString(null)
                                + ": "
                                + f.path("message").asString());
            }
        }
        return out;
    }

    @Test
    void riskyAndFixedVersionsInOneFolderDoNotMix() {
        String risky = "examples/kubernetes/il-0495-risky-ingress.yaml";
        JsonNode alone = scan(risky);
        JsonNode both = scan("examples/kubernetes/");
        // the risky Deployment: the same findings with or without the fixed version beside it
        for (String rule :
                List.of(
                        "k8s-lb-no-disruption-headroom",
                        "k8s-lb-probe-fails-fast",
                        "k8s-lb-not-spread",
                        "k8s-lb-liveness-same-as-readiness",
                        "k8s-lb-probe-on-admin-endpoint")) {
            assertEquals(
                    messages(alone, rule),
                    messages(both, rule).stream().filter(m -> m.startsWith(risky)).toList(),
                    rule);
        }
        List<String> headroom = messages(both, "k8s-lb-no-disruption-headroom");
        assertTrue(
                headroom.stream()
                        .anyMatch(m -> m.contains("no PodDisruptionBudget selects its pods")),
                headroom.toString());
        assertTrue(
                headroom.stream().anyMatch(m -> m.contains("50% of 4 rounded down = 2 pods of 4")),
                headroom.toString());
        // the fixed one stays silent, and nothing of it leaks into the risky one's numbers
        for (JsonNode f : both.path("findings")) {
            assertTrue(
                    !f.path("location")
                            .path("file")
                            .asString("")
                            .endsWith("il-0495-fixed-ingress.yaml"),
                    f.toString());
            assertTrue(!f.path("message").asString().contains(" of 6"), f.toString());
        }
        // noted once per identity
        List<String> notes = new ArrayList<>();
        for (JsonNode e : both.path("coverage").path("entries")) {
            if (e.path("status").asString().equals("note")) {
                notes.add(e.path("scope").asString());
            }
        }
        // (and the IL-0053 and IL-0463 risky/fixed pairs, which define the same objects)
        assertEquals(
                List.of(
                        "ClusterRole ingress-nginx",
                        "ClusterRoleBinding ingress-nginx",
                        "Deployment edge/internal-lb",
                        "Deployment ingress-nginx/ingress-nginx-controller",
                        "Deployment tunnel/artifacts",
                        "Deployment tunnel/secure-connect",
                        "NetworkPolicy ingress-nginx/ingress-nginx-controller",
                        "PodDisruptionBudget ingress-nginx/ingress-nginx-controller",
                        "PodDisruptionBudget tunnel/secure-connect",
                        "Service edge/internal-lb",
                        "Service ingress-nginx/ingress-nginx-controller-admission",
                        "Service tunnel/artifacts",
                        "Service tunnel/secure-connect",
                        "ValidatingWebhookConfiguration ingress-nginx-admission"),
                notes);
        assertTrue(both.path("coverage").path("complete").asBoolean());
    }

    /**
     * The risky and fixed examples side by side define the same objects: the report says so once,
     * folded into one line, and stderr stays quiet (the first screen is the findings); --verbose
     * lists each object on stderr.
     */
    @Test
    void duplicatesFoldedIntoOneNote() {
        TestSupport.Run r = TestSupport.run("scan", "examples/kubernetes/", "--fail-on", "none");
        assertFalse(r.err().contains("is defined"), r.err());
        assertEquals(1, r.out().lines().filter(l -> l.startsWith("Note: ")).count(), r.out());
        assertTrue(
                r.out().contains("Note: 14 objects defined 2 to 3 times in the files read"),
                r.out());
        assertTrue(r.out().contains("--verbose lists them"), r.out());
        TestSupport.Run v =
                TestSupport.run("scan", "examples/kubernetes/", "--fail-on", "none", "--verbose");
        assertEquals(
                14, v.err().lines().filter(l -> l.startsWith("deja: note: ")).count(), v.err());
        assertEquals(
                1,
                v.err()
                        .lines()
                        .filter(
                                l ->
                                        l.startsWith(
                                                "deja: note: Deployment edge/internal-lb is defined 2 times"))
                        .count(),
                v.err());
    }

    /**
     * Two Deployments without metadata.name (kube-linter's liveness-port.yml and readiness-port.yml
     * fixtures) are not one object defined twice: no "Deployment null is defined 2 times" note.
     */
    @Test
    void namelessObjectsAreNotDuplicates() throws Exception {
        String nameless =
                "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n"
                        + "      containers:\n        - name: app\n          image: nginx\n";
        Path a = tmp.resolve("a.yaml");
        Path b = tmp.resolve("b.yaml");
        Files.writeString(a, nameless);
        Files.writeString(b, nameless);
        TestSupport.Run r =
                TestSupport.run("scan", a.toString(), b.toString(), "--fail-on", "none");
        assertEquals(0, r.code(), r.err());
        assertFalse(r.err().contains("is defined"), r.err());
        assertFalse(r.out().contains("null"), r.out());
    }

    /**
     * A namespaced object without metadata.name is named "(no name)" in the finding's object and
     * message, never "edge/" or "edge/null".
     */
    @Test
    void aNamelessObjectIsShownAsHavingNoName() throws Exception {
        String nameless = DEPLOYMENT.formatted(1).replace("name: lb, ", "");
        assertFalse(nameless.contains("name: lb,"), nameless);
        Path a = tmp.resolve("a.yaml");
        Files.writeString(a, nameless);
        JsonNode report = scan(a.toString());
        List<String> objects = new ArrayList<>();
        for (JsonNode f : report.path("findings")) {
            objects.add(f.path("object").asString());
            assertFalse(f.path("message").asString().contains("edge/null"), f.toString());
            assertTrue(
                    f.path("message").asString().contains("Deployment edge/(no name)"),
                    f.toString());
        }
        assertFalse(objects.isEmpty(), report.toString());
        for (String o : objects) {
            assertTrue(o.startsWith("Deployment edge/(no name) ("), objects.toString());
        }
    }

    /**
     * A Deployment without metadata.name beside an HPA: the HPA's target was compared with
     * w.name().equals(..), an internal error (exit 4, NullPointerException) before.
     */
    @Test
    void aNamelessWorkloadBesideAnHpaIsJudged() throws Exception {
        String nameless = DEPLOYMENT.formatted(1).replace("name: lb, ", "");
        TestSupport.Run r = scannedWithoutInternalError(nameless + "---\n" + HPA.formatted(1));
        // the HPA names Deployment lb, which this one is not: judged without it
        List<String> headroom = messages(r.json(), "k8s-lb-no-disruption-headroom");
        assertEquals(1, headroom.size(), headroom.toString());
        assertTrue(
                headroom.get(0)
                        .contains("runs 1 replica and no HorizontalPodAutoscaler targets it"),
                headroom.get(0));
    }

    /**
     * A ConfigMap without metadata.name beside a named one, both holding haproxy.cfg: sorting the
     * HAProxy ConfigMaps by name was an internal error (exit 4, NullPointerException) before.
     */
    @Test
    void aNamelessHaproxyConfigMapIsRead() throws Exception {
        String cm =
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n%s  namespace: edge\ndata:\n"
                        + "  haproxy.cfg: |\n    global\n      maxconn 10\n";
        scannedWithoutInternalError(cm.formatted("") + "---\n" + cm.formatted("  name: b\n"));
    }

    /**
     * {@code deja scan --format json --fail-on none} of {@code manifest} written as a.yaml: exit 0
     * and no internal error.
     */
    private TestSupport.Run scannedWithoutInternalError(String manifest) throws Exception {
        Path a = tmp.resolve("a.yaml");
        Files.writeString(a, manifest);
        TestSupport.Run r =
                TestSupport.run("scan", "--format", "json", "--fail-on", "none", a.toString());
        assertEquals(0, r.code(), r.err());
        assertFalse(r.err().contains("internal error"), r.err());
        return r;
    }

    static final String DEPLOYMENT =
            """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: lb, namespace: edge}
            spec:
              replicas: %d
              selector: {matchLabels: {app: lb}}
              template:
                metadata: {labels: {app: lb}}
                spec:
                  topologySpreadConstraints:
                    - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: lb}}}
                    - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: lb}}}
                  containers:
                    - name: envoy
                      image: envoyproxy/envoy:v1.31.2
            """;
    static final String PDB =
            """
            apiVersion: policy/v1
            kind: PodDisruptionBudget
            metadata: {name: lb, namespace: edge}
            spec:
              maxUnavailable: 1
              selector: {matchLabels: {app: lb}}
            """;
    static final String HPA =
            """
            apiVersion: autoscaling/v2
            kind: HorizontalPodAutoscaler
            metadata: {name: lb, namespace: edge}
            spec:
              scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: lb}
              minReplicas: %d
              maxReplicas: 10
            """;

    static Set<String> headroom(JsonNode report) {
        Set<String> out = new TreeSet<>();
        for (String m : messages(report, "k8s-lb-no-disruption-headroom")) {
            out.add(
                    m.contains("no PodDisruptionBudget")
                            ? m.substring(0, m.indexOf(':')) + ": no PDB"
                            : m.contains("minReplicas")
                                    ? m.substring(0, m.indexOf(':')) + ": HPA floor"
                                    : m);
        }
        return out;
    }

    @Test
    void pdbInAnotherFileOfTheSameFolderStillRelates() throws IOException {
        Path app = Files.createDirectories(tmp.resolve("app"));
        Files.writeString(app.resolve("deployment.yaml"), DEPLOYMENT.formatted(3));
        Files.writeString(app.resolve("pdb.yaml"), PDB);
        assertEquals(Set.of(), headroom(scan(app.toString())));
        // and from a folder elsewhere in the scan, when nothing nearer says otherwise
        Path other = Files.createDirectories(tmp.resolve("policies"));
        Files.move(app.resolve("pdb.yaml"), other.resolve("pdb.yaml"));
        assertEquals(Set.of(), headroom(scan(tmp.toString())));
    }

    @Test
    void relatedObjectBesideAnotherDefinitionBelongsToThatOne() throws IOException {
        // providers' variants: aws/ has the PDB and an HPA with minReplicas 1, baremetal/ has
        // neither
        Path aws = Files.createDirectories(tmp.resolve("aws"));
        Path metal = Files.createDirectories(tmp.resolve("baremetal"));
        Files.writeString(
                aws.resolve("deploy.yaml"),
                DEPLOYMENT.formatted(3) + "---\n" + PDB + "---\n" + HPA.formatted(1));
        Files.writeString(metal.resolve("deploy.yaml"), DEPLOYMENT.formatted(3));
        String awsFile = aws.resolve("deploy.yaml").toString();
        String metalFile = metal.resolve("deploy.yaml").toString();
        assertEquals(
                Set.of(awsFile + ": HPA floor", metalFile + ": no PDB"),
                headroom(scan(tmp.toString())));
        // the PDB in a file of its own beside the aws variant: still that variant's only
        Files.writeString(aws.resolve("deploy.yaml"), DEPLOYMENT.formatted(3));
        Files.writeString(aws.resolve("pdb.yaml"), PDB);
        assertEquals(Set.of(metalFile + ": no PDB"), headroom(scan(tmp.toString())));
    }

    @Test
    void twoVersionsInOneFolderKeepTheirOwnHpa() throws IOException {
        Files.writeString(
                tmp.resolve("v1.yaml"),
                DEPLOYMENT.formatted(3) + "---\n" + PDB + "---\n" + HPA.formatted(1));
        Files.writeString(
                tmp.resolve("v2.yaml"),
                DEPLOYMENT.formatted(3) + "---\n" + PDB + "---\n" + HPA.formatted(3));
        assertEquals(
                Set.of(tmp.resolve("v1.yaml") + ": HPA floor"), headroom(scan(tmp.toString())));
    }

    @Test
    void aHaproxyConfigMapDefinedTwiceIsTwoNamedConfigurations() throws IOException {
        for (int maxconn : new int[] {800, 5000}) {
            Files.writeString(
                    tmp.resolve("cm-" + maxconn + ".yaml"),
                    """
                    apiVersion: v1
                    kind: ConfigMap
                    metadata: {name: haproxy, namespace: edge}
                    data:
                      haproxy.cfg: |
                        global
                            maxconn 800
                        defaults
                            mode http
                            timeout client 50s
                            timeout connect 5s
                            timeout server 50s
                            timeout http-request 5s
                        frontend fe
                            bind :80
                            maxconn %d
                            default_backend be
                        backend be
                            server s1 10.0.0.1:80
                    """
                            .formatted(maxconn));
        }
        List<String> headroom = messages(scan(tmp.toString()), "haproxy-maxconn-headroom");
        assertEquals(
                List.of(
                        "["
                                + tmp.resolve("cm-5000.yaml")
                                + "] ConfigMap edge/haproxy#haproxy.cfg: frontend fe"
                                + " maxconn 5000 (["
                                + tmp.resolve("cm-5000.yaml")
                                + "] ConfigMap edge/haproxy#haproxy.cfg:11)"),
                headroom.stream().map(m -> m.substring(0, m.indexOf(") is above") + 1)).toList());
    }

    @Test
    void ignoreAnnotationAppliesToItsOwnDefinitionOnly() throws IOException {
        String ignored =
                DEPLOYMENT
                        .formatted(1)
                        .replace(
                                "metadata: {name: lb, namespace: edge}",
                                "metadata: {name: lb, namespace: edge, annotations: {deja.dev/ignore: \"k8s-lb-no-disruption-headroom test only\"}}");
        Files.writeString(tmp.resolve("a.yaml"), ignored);
        Files.writeString(tmp.resolve("b.yaml"), DEPLOYMENT.formatted(1));
        Set<String> files = new TreeSet<>();
        for (String m : messages(scan(tmp.toString()), "k8s-lb-no-disruption-headroom")) {
            files.add(m.substring(0, m.indexOf(':')));
        }
        assertEquals(Set.of(tmp.resolve("b.yaml").toString()), files);
    }
}
