package dev.deja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.source.aws.FakeS3;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * target/deja.jar itself (the shaded jar, run as {@code java -cp target/deja.jar}, not the test
 * class path): its size, and the S3 client, whose module the shade cuts to the classes of deja's
 * three calls (packaging/aws/s3.classes): an upload, a list and a download through the jar, and a
 * modelled S3 error, against {@link FakeS3} on the loopback interface.
 */
class ReleaseJarIT {
    static final Path JAR = Path.of("target/deja.jar");

    /** Issue 31: the jar, downloaded by every install and read by every start, stays small. */
    static final long MAX_BYTES = 30_000_000;

    @TempDir Path tmp;

    @Test
    void isAtMost30Mb() throws Exception {
        long size = Files.size(JAR);
        assertTrue(
                size <= MAX_BYTES,
                JAR
                        + " is "
                        + size
                        + " bytes, over the limit of "
                        + MAX_BYTES
                        + " (30 MB): see what grew with unzip -v, and the shade filters in pom.xml");
    }

    @Test
    void uploadsListsAndReadsReportsOnS3() throws Exception {
        try (FakeS3 s3 = new FakeS3("reports")) {
            Run r =
                    run(
                            "scan",
                            "examples/kubernetes/il-0495-risky-ingress.yaml",
                            "--format",
                            "json",
                            "--fail-on",
                            "none",
                            "--output",
                            "json=s3://reports/deja/{cluster}.json",
                            "--s3-endpoint",
                            s3.endpoint());
            assertEquals(0, r.code(), r.err());
            assertEquals(
                    List.of("deja/local.json"), List.copyOf(s3.buckets.get("reports").keySet()));
            JsonNode findings = TestSupport.json(r.out()).path("findings");
            assertFalse(findings.isEmpty(), r.out());
            assertEquals(
                    findings,
                    TestSupport.json(s3.body("reports", "deja/local.json")).path("findings"));

            r =
                    run(
                            "report",
                            "merge",
                            "s3://reports/deja/",
                            "--s3-endpoint",
                            s3.endpoint(),
                            "--format",
                            "json");
            assertEquals(0, r.code(), r.err());
            JsonNode targets = TestSupport.json(r.out()).path("fleet").path("targets");
            assertEquals(1, targets.size(), r.out());
            assertEquals("s3://reports/deja/local.json", targets.get(0).path("report").asString());
            assertEquals(findings.size(), TestSupport.json(r.out()).path("findings").size());

            r = run("report", "merge", "s3://nothere/deja/", "--s3-endpoint", s3.endpoint());
            assertEquals(2, r.code(), r.err());
            assertEquals(
                    "deja: s3://nothere/deja/: cannot list the reports: NoSuchBucket: The specified bucket does not"
                            + " exist",
                    r.err().strip());
        }
    }

    record Run(int code, String out, String err) {}

    /** The jar in a JVM of its own, with AWS credentials and region from the environment only. */
    Run run(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(JAR.toAbsolutePath().toString());
        cmd.add("dev.deja.Main");
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("AWS_"));
        env.put("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE");
        env.put("AWS_SECRET_ACCESS_KEY", "secret");
        env.put("AWS_REGION", "eu-west-2");
        env.put("AWS_CONFIG_FILE", tmp.resolve("none-config").toString());
        env.put("AWS_SHARED_CREDENTIALS_FILE", tmp.resolve("none-credentials").toString());
        Path out = tmp.resolve("out.txt");
        Path err = tmp.resolve("err.txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "finished: " + cmd);
        return new Run(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
