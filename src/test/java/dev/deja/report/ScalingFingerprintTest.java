package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Fingerprints survive scaling: a baseline scan, then the same Deployment scaled from 3 to 5
 * replicas, gives no new and no fixed finding for the problems that did not change (the counts are
 * in the messages, not in the identity).
 */
class ScalingFingerprintTest {
    @TempDir Path tmp;

    static JsonNode json(String s) {
        return JsonMapper.builder().build().readTree(s);
    }

    Path manifest(int replicas) throws IOException {
        String risky = Files.readString(Path.of("examples/kubernetes/il-0495-risky-ingress.yaml"));
        assertTrue(risky.contains("replicas: 4 "), "the example still declares 4 replicas");
        Path f = tmp.resolve("lb.yaml");
        // 75%: too many pods out at once with 3 replicas as with 5
        Files.writeString(
                f,
                risky.replace("replicas: 4 ", "replicas: " + replicas + " ")
                        .replace("maxUnavailable: 50%", "maxUnavailable: 75%"));
        return f;
    }

    @Test
    void scalingThreeToFiveIsNeitherNewNorFixed() throws IOException {
        Path base = tmp.resolve("base.json");
        TestSupport.Run first =
                TestSupport.run(
                        "scan",
                        manifest(3).toString(),
                        "--format",
                        "json",
                        "-o",
                        base.toString(),
                        "--fail-on",
                        "none");
        assertEquals(0, first.code(), first.err());
        int findings = json(Files.readString(base)).path("findings").size();
        assertTrue(findings >= 6, "the risky example fires every IL-0495 rule: " + findings);
        Path now = tmp.resolve("now.json");
        TestSupport.Run again =
                TestSupport.run(
                        "scan",
                        manifest(5).toString(),
                        "--baseline",
                        base.toString(),
                        "--format",
                        "json",
                        "-o",
                        now.toString(),
                        "--fail-on",
                        "low");
        // the problems (rule and key) of both scans: what scaling really changed is new or fixed,
        // nothing else
        Set<String> before = problems(json(Files.readString(base)));
        Set<String> after = problems(json(Files.readString(now)));
        Set<String> added = new TreeSet<>(after);
        added.removeAll(before);
        Set<String> gone = new TreeSet<>(before);
        gone.removeAll(after);
        assertEquals(
                Set.of(),
                added,
                "with maxUnavailable 75% the same problems fire at 3 and at 5 replicas");
        assertEquals(Set.of(), gone);
        JsonNode summary = json(Files.readString(now)).path("baseline");
        assertEquals(0, summary.path("new").asInt(), summary.toString());
        assertEquals(findings, summary.path("unchanged").asInt(), summary.toString());
        assertEquals(0, summary.path("fixed").asInt(), summary.toString());
        assertEquals(0, again.code(), again.err());
        assertTrue(
                Files.readString(now).contains("all 5 replicas"),
                "the messages do show the new count");
    }

    static Set<String> problems(JsonNode report) {
        Set<String> out = new TreeSet<>();
        report.path("findings")
                .forEach(
                        f ->
                                out.add(
                                        f.path("ruleId").asString()
                                                + " "
                                                + f.path("key").asString("")));
        return out;
    }

    @Test
    void aSchema10BaselineStillMatchesWhatDidNotChange() throws IOException {
        Path base = tmp.resolve("old.json");
        TestSupport.Run first =
                TestSupport.run(
                        "scan",
                        manifest(3).toString(),
                        "--format",
                        "json",
                        "-o",
                        base.toString(),
                        "--fail-on",
                        "none");
        assertEquals(0, first.code(), first.err());
        // as deja wrote it before findings had keys
        ObjectNode old = (ObjectNode) json(Files.readString(base));
        old.put("schemaVersion", "1.0");
        old.path("findings").forEach(f -> ((ObjectNode) f).remove("key"));
        Files.writeString(base, old.toString());
        int findings = old.path("findings").size();
        TestSupport.Run same =
                TestSupport.run("scan", manifest(3).toString(), "--baseline", base.toString());
        assertTrue(same.out().contains(": 0 new, " + findings + " unchanged, 0 fixed"), same.out());
    }
}
