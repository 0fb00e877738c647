package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.source.aws.FakeS3;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The scheduled case end to end: two live clusters (Fabric8's mock API server through real
 * kubeconfigs), each scanned by its own run with --cluster-name and an s3:// output (the real S3
 * client against a loopback S3), then one 'deja report merge s3://...' of the bucket: the targets
 * are the clusters the reports name, and a finding both clusters have is one finding listing both.
 */
class FleetReportTest {
    static final String RISKY = "examples/kubernetes/il-0495-risky-ingress.yaml";
    static final String NGINX = "examples/kubernetes/il-0081-serial-reloads.yaml";

    @Test
    void scheduledScansOfTwoClustersMergeIntoOneFleetReport(@TempDir Path tmp) throws Exception {
        Map<String, String> env =
                Map.of(
                        "AWS_ACCESS_KEY_ID",
                        "AKIDEXAMPLE",
                        "AWS_SECRET_ACCESS_KEY",
                        "secret",
                        "AWS_REGION",
                        "eu-west-2",
                        "AWS_CONFIG_FILE",
                        tmp.resolve("none").toString(),
                        "AWS_SHARED_CREDENTIALS_FILE",
                        tmp.resolve("none").toString());
        try (FakeS3 s3 = new FakeS3("reports");
                MockCluster eu = new MockCluster();
                MockCluster us = new MockCluster()) {
            eu.apply(Path.of(RISKY), null);
            us.apply(Path.of(RISKY), null);
            us.apply(Path.of(NGINX), null);
            for (Object[] c : new Object[][] {{eu, "prod-eu"}, {us, "prod-us"}}) {
                Path kc =
                        ((MockCluster) c[0])
                                .kubeconfig(Files.createDirectories(tmp.resolve(c[1] + "-kc")));
                TestSupport.Run r =
                        TestSupport.runWith(
                                new ByteArrayInputStream(new byte[0]),
                                env,
                                "scan",
                                "--cluster",
                                "--kubeconfig",
                                kc.toString(),
                                "--cluster-name",
                                (String) c[1],
                                "--fail-on",
                                "none",
                                "--format",
                                "json",
                                "--output",
                                "json=s3://reports/deja/{cluster}/{date}-{time}.json",
                                "--s3-endpoint",
                                s3.endpoint());
                assertEquals(0, r.code(), r.err());
            }
            List<String> keys = new ArrayList<>(s3.buckets.get("reports").keySet());
            assertEquals(2, keys.size(), keys.toString());
            assertTrue(
                    keys.get(0).startsWith("deja/prod-eu/")
                            && keys.get(1).startsWith("deja/prod-us/"),
                    keys.toString());

            TestSupport.Run m =
                    TestSupport.runWith(
                            new ByteArrayInputStream(new byte[0]),
                            env,
                            "report",
                            "merge",
                            "s3://reports/deja/",
                            "--s3-endpoint",
                            s3.endpoint(),
                            "--format",
                            "json");
            assertEquals(0, m.code(), m.err());
            JsonNode j = m.json();
            JsonNode targets = j.path("fleet").path("targets");
            assertEquals(2, targets.size(), targets.toString());
            assertEquals(
                    "prod-eu",
                    targets.get(0).path("cluster").asString(),
                    "named by the report, not its key");
            assertEquals("prod-us", targets.get(1).path("cluster").asString());
            int both = 0;
            int usOnly = 0;
            for (JsonNode finding : j.path("findings")) {
                List<String> on = new ArrayList<>();
                finding.path("targets").forEach(t -> on.add(t.asString()));
                if (on.equals(List.of("prod-eu", "prod-us"))) {
                    both++;
                } else {
                    assertEquals(List.of("prod-us"), on, finding.path("ruleId").asString());
                    usOnly++;
                }
            }
            assertEquals(
                    targets.get(0).path("total").asInt(),
                    both,
                    "every prod-eu finding is on prod-us too");
            assertTrue(usOnly > 0, "the serial-reloads ConfigMap is prod-us's own");
            assertEquals(
                    both + usOnly,
                    j.path("summary").path("total").asInt(),
                    "each finding counted once");
        }
    }
}
