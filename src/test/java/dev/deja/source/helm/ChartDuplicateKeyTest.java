package dev.deja.source.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A rendered chart document that sets a key twice (Kong's ci/test1-values renders a pod template
 * with {@code app} twice) is an input error on that object, naming the template, the object and the
 * key; the chart's other objects are scanned. A manifest written so is still refused whole, as
 * kubectl refuses it.
 */
class ChartDuplicateKeyTest {
    static final String DUP =
            "apiVersion: apps/v1\n"
                    + "kind: Deployment\n"
                    + "metadata:\n"
                    + "  name: dup\n"
                    + "spec:\n"
                    + "  selector:\n"
                    + "    matchLabels: {app: dup}\n"
                    + "  template:\n"
                    + "    metadata:\n"
                    + "      labels:\n"
                    + "        app: dup\n"
                    + "        app: dup\n"
                    + "    spec:\n"
                    + "      containers:\n"
                    + "      - name: c\n"
                    + "        image: nginx\n";

    @Test
    void oneObjectIsNotCheckedAndTheRestIsScanned(@TempDir Path tmp) throws Exception {
        Path chart = ChartLineMappingTest.exampleChart(tmp);
        Files.writeString(chart.resolve("templates/dup.yaml"), DUP);
        for (Map<String, String> env : ChartConfinementTest.backends(Map.of())) {
            TestSupport.Run r =
                    ChartConfinementTest.scan(
                            env, "scan", chart.toString(), "--format", "json", "--fail-on", "none");
            assertEquals(3, r.code(), "an object not checked: the scan is incomplete " + r.err());
            assertEquals(
                    "deja: "
                            + chart
                            + "/templates/dup.yaml:12: Deployment dup: key \"app\" set twice in one"
                            + " mapping (first at line 11); kubectl refuses duplicate keys and the API"
                            + " server would keep the last value: this object is not checked\n",
                    r.err().lines().findFirst().orElse("") + "\n");
            assertTrue(r.err().contains("deja: scan incomplete: 1 source scope"), r.err());
            JsonNode failed = null;
            for (JsonNode e : r.json().path("coverage").path("entries")) {
                if (e.path("status").asString("").equals("failed")) {
                    failed = e;
                }
            }
            assertTrue(failed != null, r.out());
            assertEquals(
                    chart + "/templates/dup.yaml Deployment dup", failed.path("scope").asString());
            // the example's Deployment and Service are judged
            assertTrue(r.json().path("findings").size() >= 8, r.out());

            TestSupport.Run partial =
                    ChartConfinementTest.scan(
                            env, "scan", chart.toString(), "--allow-partial", "--fail-on", "none");
            assertEquals(0, partial.code(), partial.err());
        }
        Path manifest = tmp.resolve("dup.yaml");
        Files.writeString(manifest, DUP);
        TestSupport.Run plain = TestSupport.run("scan", manifest.toString());
        assertEquals(2, plain.code());
        assertTrue(
                plain.err().startsWith("deja: " + manifest + ":12: key \"app\" already set"),
                plain.err());
    }
}
