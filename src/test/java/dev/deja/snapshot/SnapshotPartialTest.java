package dev.deja.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A snapshot with one bad value in one list: without {@code --allow-partial} exit 2 and one line
 * (as before); with it, that list is "not checked" with the line, the other lists and parts are
 * used, and the rules that need what the list held are not run. A list is never used in part: the
 * PodDisruptionBudgets with one left out would make k8s-lb-no-disruption-headroom say "no
 * PodDisruptionBudget" of a workload that has one.
 */
class SnapshotPartialTest {
    @TempDir Path tmp;

    /** deja's own snapshot of examples/kubernetes, written as kube.json in {@code dir}. */
    static Path writeKubeSnapshot(Path dir) {
        Path kube = dir.resolve("kube.json");
        TestSupport.Run w =
                TestSupport.run(
                        "scan",
                        "--fail-on",
                        "none",
                        "--snapshot-out",
                        kube.toString(),
                        "examples/kubernetes");
        assertEquals(0, w.code(), w.err());
        return kube;
    }

    /** The AWS snapshot of examples/aws (IL-0364). */
    private static JsonNode awsSnapshot() throws Exception {
        return TestSupport.json(Files.readString(Path.of("examples/aws/il-0364-snapshot.json")));
    }

    /** Without --allow-partial: exit 2, nothing on stdout, and {@code line} alone on stderr. */
    private static void strictIsOneLine(Path bad, String line) {
        TestSupport.Run strict = TestSupport.run("scan", bad.toString());
        assertEquals(2, strict.code(), strict.out() + strict.err());
        assertEquals("", strict.out());
        assertEquals("deja: " + line, strict.err().strip());
    }

    private Path write(String name, JsonNode snapshot) throws Exception {
        Path f = tmp.resolve(name);
        Files.writeString(f, snapshot.toString());
        return f;
    }

    /** "ruleId location" of each finding of a JSON report. */
    private static List<String> findings(JsonNode report) {
        List<String> out = new ArrayList<>();
        for (JsonNode f : report.path("findings")) {
            out.add(f.path("ruleId").asString("") + " " + f.path("location").toString());
        }
        return out;
    }

    /** The JSON report of {@code deja scan --allow-partial --format json ARGS...}. */
    private static JsonNode partialJson(String... args) {
        List<String> all = new ArrayList<>(List.of("scan", "--allow-partial", "--format", "json"));
        all.addAll(List.of(args));
        return TestSupport.run(all.toArray(String[]::new)).json();
    }

    /** The rule of each finding of a JSON report. */
    private static List<String> ruleIds(JsonNode report) {
        List<String> out = new ArrayList<>();
        report.path("findings").forEach(f -> out.add(f.path("ruleId").asString("")));
        return out;
    }

    private static int indexOf(JsonNode list, String name) {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i).path("meta").path("name").asString("").equals(name)) {
                return i;
            }
        }
        throw new AssertionError("no " + name + " in " + list);
    }

    @Test
    void oneBadKubernetesObjectLeavesItsListOutAndTheRulesThatNeedIt() throws Exception {
        JsonNode snap = TestSupport.json(Files.readString(writeKubeSnapshot(tmp)));
        Path good = write("good.json", snap);
        JsonNode pdbs = snap.path("parts").path("kubernetes").path("pdbs");
        int i = indexOf(pdbs, "internal-lb"); // the PDB of the fixed edge/internal-lb
        ((ObjectNode) pdbs.get(i).path("meta")).putNull("kind");
        Path bad = write("bad.json", snap);
        String line =
                "snapshot malformed: "
                        + bad
                        + ": kubernetes.pdbs["
                        + i
                        + "]: meta without kind or name";

        strictIsOneLine(bad, line);

        TestSupport.Run r = TestSupport.run("scan", "--allow-partial", bad.toString());
        assertEquals(1, r.code(), r.err());
        String scope = "pdbs (PodDisruptionBudget) of snapshot " + bad;
        assertTrue(
                r.out().contains("  - kubernetes: " + scope + ": failed (" + line + ")"), r.out());
        assertTrue(
                r.out()
                        .contains(
                                "Skipped (not run: it needs PodDisruptionBudget and "
                                        + scope
                                        + " could not be read): k8s-internal-lb-no-drain-headroom,"
                                        + " k8s-lb-no-disruption-headroom"),
                r.out());
        assertTrue(r.err().contains("deja: " + line), r.err());

        // the other lists are used whole: every other finding of the intact snapshot is there
        // deja reads back what it wrote (its nameless Kustomization of examples/kubernetes/cronjob
        // was refused as 'meta without kind or name' before)
        TestSupport.Run intact =
                TestSupport.run("scan", "--format", "json", "--fail-on", "none", good.toString());
        assertEquals(0, intact.code(), intact.err());
        JsonNode whole = intact.json();
        JsonNode part = partialJson("--fail-on", "none", bad.toString());
        List<String> expected = new ArrayList<>(findings(whole));
        assertTrue(expected.removeIf(f -> f.startsWith("k8s-lb-no-disruption-headroom ")));
        assertTrue(expected.removeIf(f -> f.startsWith("k8s-internal-lb-no-drain-headroom ")));
        assertFalse(expected.isEmpty());
        assertEquals(expected, findings(part));
        assertEquals(List.of("kubernetes " + scope + ": " + line), TestSupport.failedEntries(part));
        assertFalse(part.path("coverage").path("complete").asBoolean(true));
    }

    @Test
    void oneBadTargetGroupLeavesTheTargetGroupsOutAndTheLoadBalancersIn() throws Exception {
        JsonNode snap = awsSnapshot();
        ((ObjectNode) snap.path("parts").path("aws").path("targetGroups").get(0))
                .put("port", 70000);
        Path bad = write("aws.json", snap);
        String line =
                "snapshot malformed: "
                        + bad
                        + ": parts.aws.targetGroups[0].port is out of range (70000, a port is 1 to"
                        + " 65535)";

        strictIsOneLine(bad, line);

        TestSupport.Run r = TestSupport.run("scan", "--allow-partial", bad.toString());
        assertEquals(1, r.code(), r.err());
        String scope = "targetGroups of snapshot " + bad;
        assertTrue(r.out().contains("  - aws: " + scope + ": failed (" + line + ")"), r.out());

        JsonNode part = partialJson(bad.toString());
        // what the load balancer alone shows; the findings that pair it with a target group, or
        // judge a target group, are not made
        List<String> rules = ruleIds(part);
        assertEquals(List.of("aws-nlb-zonal-shift-disabled"), rules);
        assertEquals(List.of("aws " + scope + ": " + line), TestSupport.failedEntries(part));
    }

    /**
     * A part that is not what deja writes at all (here the Kubernetes part is a number): the part
     * is not checked, the others are used, and no Kubernetes rule runs (a manifest scanned with it
     * could miss an object the part held).
     */
    @Test
    void aWholeBadPartIsNotCheckedAndTheOthersAreUsed() throws Exception {
        JsonNode snap = awsSnapshot();
        ((ObjectNode) snap.path("parts")).put("kubernetes", 5);
        Path bad = write("both.json", snap);
        String line = "snapshot malformed: " + bad + ": kubernetes part is not an object";

        strictIsOneLine(bad, line);

        JsonNode part =
                partialJson(bad.toString(), "examples/kubernetes/il-0495-risky-ingress.yaml");
        assertEquals(
                List.of("kubernetes kubernetes part of snapshot " + bad + ": " + line),
                TestSupport.failedEntries(part));
        List<String> rules = ruleIds(part);
        assertTrue(rules.contains("aws-nlb-zonal-shift-disabled"), rules.toString());
        assertTrue(rules.stream().noneMatch(x -> x.startsWith("k8s-")), rules.toString());
    }

    /**
     * The smaller parts are one list each, used whole or not at all: a pod without its name leaves
     * the podMetrics part out, the aws part is used.
     */
    @Test
    void aBadPodMetricsPartIsNotCheckedAndTheAwsPartIsUsed() throws Exception {
        JsonNode snap = awsSnapshot();
        ((ObjectNode) snap.path("parts"))
                .putObject("podMetrics")
                .putArray("pods")
                .addObject()
                .put("namespace", "edge");
        Path bad = write("pods.json", snap);
        String line = "snapshot malformed: " + bad + ": podMetrics.pods[0]: needs name (a string)";
        strictIsOneLine(bad, line);

        JsonNode part = partialJson(bad.toString());
        assertEquals(
                List.of("prometheus podMetrics part of snapshot " + bad + ": " + line),
                TestSupport.failedEntries(part));
        JsonNode whole =
                TestSupport.run("scan", "--format", "json", "examples/aws/il-0364-snapshot.json")
                        .json();
        assertEquals(findings(whole), findings(part));
    }

    /**
     * The coverage list says which rules must not run (a kind the cluster denied): a snapshot whose
     * coverage cannot be read is not used at all, nothing of it enters the scan.
     */
    @Test
    void aBadCoverageListLeavesTheWholeSnapshotOut() throws Exception {
        JsonNode snap = awsSnapshot();
        ((ObjectNode) snap)
                .putArray("coverage")
                .addObject()
                .put("source", "kubernetes")
                .put("scope", "PodDisruptionBudget in all namespaces")
                .put("status", "weird");
        Path bad = write("cov.json", snap);
        String line = bad + ": unknown coverage status \"weird\"";
        strictIsOneLine(bad, line);

        TestSupport.Run r =
                TestSupport.run("scan", "--allow-partial", "--format", "json", bad.toString());
        assertEquals(3, r.code(), r.err());
        assertEquals(List.of("snapshot " + bad + ": " + line), TestSupport.failedEntries(r.json()));
        assertEquals(List.of(), findings(r.json()));
    }
}
