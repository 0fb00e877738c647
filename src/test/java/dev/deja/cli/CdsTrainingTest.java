package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The launcher's class-data archive is only as good as its training run: it must really read the
 * Kubernetes API it serves (both pages of Deployments included), run the rules over what it read,
 * and scan the examples.
 */
class CdsTrainingTest {
    @Test
    void theTrainingScanReadsItsOwnApiServerAndTheExamples() throws Exception {
        JsonNode report = JsonMapper.builder().build().readTree(CdsTraining.train("examples"));
        List<String> read = new ArrayList<>();
        for (JsonNode e : report.path("coverage").path("entries")) {
            // notes (the examples define Deployment edge/internal-lb twice) are not gaps
            if (e.path("source").asString().equals("kubernetes")
                    && !e.path("status").asString().equals("note")) {
                assertEquals("read", e.path("status").asString(), e.toString());
                read.add(e.path("scope").asString() + "=" + e.path("count").asInt());
            }
        }
        assertTrue(read.contains("Deployment in all namespaces=3"), read.toString()); // two pages
        assertTrue(read.contains("ConfigMap in all namespaces=2"), read.toString());
        List<String> rules = new ArrayList<>();
        List<String> objects = new ArrayList<>();
        for (JsonNode f : report.path("findings")) {
            rules.add(f.path("ruleId").asString());
            objects.add(f.path("object").asString());
        }
        assertTrue(
                objects.stream().anyMatch(o -> o.contains("edge/ingress-nginx")),
                objects.toString());
        assertTrue(rules.contains("k8s-ingress-nginx-serial-reloads"), rules.toString());
        assertTrue(
                rules.stream().anyMatch(r -> r.startsWith("haproxy-")),
                rules.toString()); // the examples
        assertTrue(report.path("suppressed").size() > 0, "the annotation suppression is exercised");
        // the examples' rules of their own ran, so CEL's classes are in the full archive
        assertTrue(rules.stream().anyMatch(r -> r.startsWith("acme-")), rules.toString());
    }

    @Test
    void theFilesTrainingScansTheExamplesWithoutClusterOrAws() throws Exception {
        JsonNode report = JsonMapper.builder().build().readTree(CdsTraining.trainFiles("examples"));
        List<String> sources = new ArrayList<>();
        for (JsonNode e : report.path("coverage").path("entries")) {
            sources.add(e.path("source").asString() + ":" + e.path("scope").asString());
        }
        assertTrue(
                sources.stream().noneMatch(s -> s.contains("all namespaces")), sources.toString());
        assertTrue(sources.stream().noneMatch(s -> s.startsWith("aws:")), sources.toString());
        List<String> rules = new ArrayList<>();
        for (JsonNode f : report.path("findings")) {
            rules.add(f.path("ruleId").asString());
        }
        assertTrue(rules.stream().anyMatch(r -> r.startsWith("haproxy-")), rules.toString());
        assertTrue(rules.stream().anyMatch(r -> r.startsWith("k8s-")), rules.toString());
    }
}
