package dev.deja.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Kubernetes and AWS findings about the same load balancer point at each other when both are
 * scanned together.
 */
class CrossLinksTest {
    static final String SNAPSHOT = "examples/aws/il-0364-snapshot.json";
    static final String MANIFEST = "src/test/resources/crosslinks/ingress-controllers.yaml";

    @Test
    void awsAndKubernetesFindingsNameEachOther() {
        TestSupport.Run r = TestSupport.run("scan", "--format", "json", SNAPSHOT, MANIFEST);
        assertEquals(1, r.code(), r.err());
        JsonNode findings = JsonMapper.builder().build().readTree(r.out()).path("findings");
        List<String> awsRelated = new ArrayList<>();
        List<String> kubeRelated = new ArrayList<>();
        for (JsonNode f : findings) {
            List<String> rel = new ArrayList<>();
            f.path("related").forEach(x -> rel.add(x.asString()));
            if (f.path("ruleId").asString().equals("aws-nlb-zone-without-healthy-target")) {
                awsRelated.addAll(rel);
            }
            if (f.path("ruleId").asString().equals("k8s-lb-not-spread")) {
                kubeRelated.addAll(rel);
            }
            if (f.path("ruleId").asString().equals("k8s-nlb-service-single-zone-risk")) {
                assertTrue(
                        rel.stream()
                                .anyMatch(
                                        x ->
                                                x.startsWith(
                                                        "AWS finding aws-nlb-zonal-shift-disabled on NLB")),
                        rel.toString());
            }
        }
        assertTrue(
                awsRelated.contains(
                        "Kubernetes finding k8s-lb-not-spread on Deployment ingress-controllers/nginx-ingress-default-controller"),
                awsRelated.toString());
        assertTrue(
                awsRelated.contains(
                        "Kubernetes finding k8s-nlb-service-single-zone-risk on Service ingress-controllers/nginx-ingress-default-controller"),
                awsRelated.toString());
        assertTrue(
                kubeRelated.stream()
                        .anyMatch(
                                x ->
                                        x.startsWith(
                                                "AWS finding aws-nlb-zone-without-healthy-target on NLB")),
                kubeRelated.toString());
    }

    /**
     * The Deployment defined twice in one folder, the Service beside one definition only: the AWS
     * findings link that definition, not the other (which no LoadBalancer Service of its own
     * selects).
     */
    @Test
    void onlyTheDefinitionBesideTheServiceIsLinked(@TempDir Path tmp) throws IOException {
        String manifest = Files.readString(Path.of(MANIFEST));
        String deployment = manifest.substring(manifest.indexOf("---\n") + 4);
        Files.writeString(tmp.resolve("with-service.yaml"), manifest);
        Files.writeString(tmp.resolve("without-service.yaml"), deployment);
        TestSupport.Run r = TestSupport.run("scan", "--format", "json", SNAPSHOT, tmp.toString());
        List<String> linked = new ArrayList<>();
        for (JsonNode f : JsonMapper.builder().build().readTree(r.out()).path("findings")) {
            boolean aws = false;
            for (JsonNode x : f.path("related")) {
                aws |= x.asString().startsWith("AWS finding ");
            }
            if (aws && f.path("location").has("file")) {
                linked.add(f.path("location").path("file").asString());
            }
        }
        assertTrue(linked.contains(tmp.resolve("with-service.yaml").toString()), linked.toString());
        assertFalse(
                linked.contains(tmp.resolve("without-service.yaml").toString()), linked.toString());
    }

    @Test
    void eachSourceAloneHasNoCrossLinks() {
        for (String path : new String[] {SNAPSHOT, MANIFEST}) {
            TestSupport.Run r = TestSupport.run("scan", "--format", "json", path);
            assertFalse(r.out().contains("Kubernetes finding "), path);
            assertFalse(r.out().contains("AWS finding "), path);
        }
    }
}
