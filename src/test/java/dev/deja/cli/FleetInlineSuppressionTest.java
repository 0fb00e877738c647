package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code deja.dev/ignore} annotation on a workload applies to its k8s-critical-in-one-cluster
 * finding, as it does to any other rule's finding on the object: the finding is listed as
 * suppressed with the annotation's reason. Judged on a saved fleet view (the snapshot part
 * "fleet"), the example's, with one annotation added.
 */
class FleetInlineSuppressionTest {
    static final String RULE = "k8s-critical-in-one-cluster";

    @TempDir Path tmp;

    /** The example fleet view with the annotation on checkout/payments in cluster k8s-main. */
    private Path annotated(String value) throws Exception {
        JsonNode root =
                TestSupport.json(
                        Files.readString(Path.of("examples/fleet/il-0072-tier1-one-cluster.json")));
        boolean put = false;
        for (JsonNode c : root.path("parts").path("fleet").path("clusters")) {
            for (JsonNode w : c.path("workloads")) {
                if (c.path("name").asString().equals("k8s-main")
                        && w.path("namespace").asString().equals("checkout")
                        && w.path("name").asString().equals("payments")) {
                    ((ObjectNode) w.path("annotations")).put("deja.dev/ignore", value);
                    put = true;
                }
            }
        }
        assertTrue(put, "the example has checkout/payments in k8s-main");
        Path p = tmp.resolve("fleet.json");
        Files.writeString(p, root.toString());
        return p;
    }

    private static Set<String> names(JsonNode list) {
        Set<String> out = new TreeSet<>();
        for (JsonNode f : list) {
            if (f.path("ruleId").asString().equals(RULE)) {
                out.add(
                        f.path("location").path("namespace").asString()
                                + "/"
                                + f.path("location").path("name").asString());
            }
        }
        return out;
    }

    @Test
    void theAnnotationOnTheWorkloadSuppressesItsFleetFinding() throws Exception {
        Path p = annotated(RULE + " payments moves to the second cluster in Q3");
        TestSupport.Run r = TestSupport.run("scan", p.toString(), "--format", "json");
        assertEquals(1, r.code(), r.err()); // checkout-api still fires
        JsonNode report = TestSupport.json(r.out());
        assertEquals(Set.of("checkout/checkout-api"), names(report.path("findings")));
        assertEquals(Set.of("checkout/payments"), names(report.path("suppressed")));
        JsonNode s = report.path("suppressed").get(0);
        assertEquals(
                "payments moves to the second cluster in Q3",
                s.path("suppressionReason").asString());
        assertEquals(
                "annotation deja.dev/ignore on Deployment checkout/payments in cluster k8s-main",
                s.path("suppressedBy").asString());

        // --no-annotation-suppressions: the finding is back
        TestSupport.Run off =
                TestSupport.run(
                        "scan", p.toString(), "--no-annotation-suppressions", "--format", "json");
        assertEquals(1, off.code(), off.err());
        assertEquals(
                Set.of("checkout/checkout-api", "checkout/payments"),
                names(TestSupport.json(off.out()).path("findings")));
    }

    @Test
    void anAnnotationForAnotherRuleOrWithoutReasonSuppressesNothing() throws Exception {
        TestSupport.Run other =
                TestSupport.run(
                        "scan",
                        annotated("k8s-lb-not-spread one zone on purpose").toString(),
                        "--format",
                        "json");
        assertEquals(1, other.code(), other.err());
        assertEquals(
                Set.of("checkout/checkout-api", "checkout/payments"),
                names(TestSupport.json(other.out()).path("findings")));

        TestSupport.Run bare =
                TestSupport.run("scan", annotated(RULE).toString(), "--format", "json");
        assertEquals(1, bare.code(), bare.err());
        assertEquals(
                Set.of("checkout/checkout-api", "checkout/payments"),
                names(TestSupport.json(bare.out()).path("findings")));
        assertTrue(bare.err().contains("gives no reason"), bare.err());
    }
}
