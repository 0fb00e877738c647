package dev.deja.source.aws;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Reports to and from S3 with the real SDK client against {@link FakeS3} on the loopback interface
 * (path-style, endpoint override): --output json=s3://... with its placeholders, a refused upload
 * (the report is kept locally, exit 2), and deja report merge s3://bucket/prefix/ over several list
 * pages.
 */
class S3ReportsTest {
    static final String RISKY = "examples/kubernetes/il-0495-risky-ingress.yaml";

    /** Credentials and region from the environment only: no shared files, no instance metadata. */
    static Map<String, String> env(Path tmp) {
        return Map.of(
                "AWS_ACCESS_KEY_ID",
                "AKIDEXAMPLE",
                "AWS_SECRET_ACCESS_KEY",
                "secret",
                "AWS_REGION",
                "eu-west-2",
                "AWS_CONFIG_FILE",
                tmp.resolve("none-config").toString(),
                "AWS_SHARED_CREDENTIALS_FILE",
                tmp.resolve("none-credentials").toString());
    }

    static TestSupport.Run run(Path tmp, String... args) {
        return TestSupport.runWith(new ByteArrayInputStream(new byte[0]), env(tmp), args);
    }

    @Test
    void aScanUploadsItsReportsWithThePlaceholdersFilled(@TempDir Path tmp) throws Exception {
        try (FakeS3 s3 = new FakeS3("reports")) {
            LocalDate before = LocalDate.now(ZoneOffset.UTC);
            TestSupport.Run r =
                    run(
                            tmp,
                            "scan",
                            RISKY,
                            "--format",
                            "json",
                            "--fail-on",
                            "none",
                            "--output",
                            "json=s3://reports/deja/{cluster}/{date}-{time}.json",
                            "--output",
                            "html=s3://reports/deja/{cluster}/latest.html",
                            "--s3-endpoint",
                            s3.endpoint());
            LocalDate after = LocalDate.now(ZoneOffset.UTC);
            assertEquals(0, r.code(), r.err());
            List<String> keys = new ArrayList<>(s3.buckets.get("reports").keySet());
            assertEquals(2, keys.size(), keys.toString());
            Matcher m =
                    Pattern.compile("deja/local/(\\d{4}-\\d\\d-\\d\\d)-(\\d{6})\\.json")
                            .matcher(keys.get(0));
            assertTrue(m.matches(), keys.toString());
            LocalDate d = LocalDate.parse(m.group(1));
            assertTrue(
                    !d.isBefore(before) && !d.isAfter(after),
                    "{date} is the scan's day (UTC): " + d);
            assertEquals("deja/local/latest.html", keys.get(1));
            JsonNode uploaded = TestSupport.json(s3.body("reports", keys.get(0)));
            assertEquals(
                    r.json().path("findings"),
                    uploaded.path("findings"),
                    "the same report as on stdout");
            assertEquals(
                    "application/json", s3.buckets.get("reports").get(keys.get(0)).contentType());
            assertTrue(s3.body("reports", "deja/local/latest.html").contains("<html"));
            assertTrue(
                    s3.requests.stream().allMatch(q -> q.startsWith("PUT /reports/deja/local/")),
                    s3.requests.toString());
            // the report is uploaded from a temporary file, deleted once uploaded
            try (var left = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
                assertEquals(
                        List.of(),
                        left.map(p -> p.getFileName().toString())
                                .filter(
                                        n ->
                                                n.startsWith("deja-report-")
                                                        && n.endsWith("-latest.html"))
                                .toList());
            }
        }
    }

    @Test
    void aRefusedUploadKeepsTheReportAndExits2(@TempDir Path tmp) throws Exception {
        try (FakeS3 s3 = new FakeS3("reports")) {
            s3.denyWrites = true;
            Path html = tmp.resolve("r.html");
            TestSupport.Run r =
                    run(
                            tmp,
                            "scan",
                            RISKY,
                            "--format",
                            "text",
                            "--output",
                            "html=" + html,
                            "--output",
                            "json=s3://reports/deja/{cluster}.json",
                            "--s3-endpoint",
                            s3.endpoint());
            assertEquals(2, r.code(), r.err());
            List<String> lines = r.err().lines().toList();
            assertEquals(1, lines.size(), r.err());
            String line = lines.get(0);
            assertTrue(
                    line.startsWith(
                            "deja: json to s3://reports/deja/{cluster}.json: cannot write report:"
                                    + " s3://reports/deja/local.json not written: AccessDenied: Access Denied; the report is kept in "),
                    line);
            Path kept = Path.of(line.substring(line.indexOf("kept in ") + 8));
            try {
                JsonNode j = TestSupport.json(Files.readString(kept));
                assertEquals(
                        TestSupport.json(run(tmp, "scan", RISKY, "--format", "json").out())
                                .path("findings"),
                        j.path("findings"),
                        "the kept copy is the report");
            } finally {
                Files.deleteIfExists(kept);
            }
            assertTrue(
                    Files.readString(html).contains("<html"),
                    "the other outputs are still written");
            assertTrue(r.out().contains("k8s-lb-probe-fails-fast"), "and the primary report");
        }
    }

    @Test
    void emptyRegionNamesAreSkippedForTheUploadAsForTheScan(@TempDir Path tmp) throws Exception {
        // --region ',' once failed with exit 4 (ArrayIndexOutOfBoundsException), found by Error
        // Prone's StringSplitter
        try (FakeS3 s3 = new FakeS3("reports")) {
            for (String region : List.of(",", ",eu-west-1", " , eu-west-1")) {
                TestSupport.Run r =
                        run(
                                tmp,
                                "scan",
                                RISKY,
                                "--format",
                                "json",
                                "--fail-on",
                                "none",
                                "--region",
                                region,
                                "--output",
                                "json=s3://reports/deja.json",
                                "--s3-endpoint",
                                s3.endpoint());
                assertEquals(0, r.code(), "--region '" + region + "': " + r.err());
                assertTrue(
                        s3.body("reports", "deja.json").contains("\"findings\""),
                        "--region '" + region + "'");
            }
        }
    }

    @Test
    void badS3OutputsAreRefusedBeforeTheScan(@TempDir Path tmp) {
        TestSupport.Run r = run(tmp, "scan", RISKY, "--output", "json=s3://Reports/x.json");
        assertEquals(2, r.code());
        assertTrue(
                r.err()
                        .startsWith(
                                "deja: --output json=s3://Reports/x.json: 'Reports' is not an S3 bucket name"),
                r.err());
        r = run(tmp, "scan", RISKY, "--output", "json=s3://reports/{account}/x.json");
        assertEquals(2, r.code());
        assertEquals(
                "deja: --output json=s3://reports/{account}/x.json: unknown placeholder {account} (expected"
                        + " {cluster}, {date}, {time})",
                r.err().strip());
        r = run(tmp, "scan", RISKY, "--output", "json=s3://reports/deja/");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("give the object's key"), r.err());
        r = run(tmp, "scan", RISKY, "--s3-endpoint", "http://127.0.0.1:1");
        assertEquals(2, r.code());
        assertEquals(
                "deja: --s3-endpoint: only with an s3:// output (--output json=s3://BUCKET/KEY)",
                r.err().strip());
    }

    @Test
    void mergeReadsEveryPageOfAPrefixAndTheLatestReportOfEachTarget(@TempDir Path tmp)
            throws Exception {
        String small = run(tmp, "scan", RISKY, "--format", "json").out();
        String large = run(tmp, "scan", "examples/kubernetes", "--format", "json").out();
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        try (FakeS3 s3 = new FakeS3("reports")) {
            s3.pageSize = 2;
            s3.put(
                    "reports",
                    "deja/prod-eu/2026-01-01-031700.json",
                    large,
                    now.minus(Duration.ofHours(26)));
            s3.put(
                    "reports",
                    "deja/prod-eu/2026-01-02-031700.json",
                    small,
                    now.minus(Duration.ofHours(2)));
            s3.put(
                    "reports",
                    "deja/prod-us/2026-01-02-031700.json",
                    small,
                    now.minus(Duration.ofHours(3)));
            s3.put(
                    "reports",
                    "deja/prod-us/latest.html",
                    "<html></html>",
                    now.minus(Duration.ofHours(3)));
            s3.put(
                    "reports",
                    "deja/lab/2026-01-01-031700.json",
                    large,
                    now.minus(Duration.ofDays(3)));
            s3.put(
                    "reports",
                    "deja-old/prod-eu/2025-01-01.json",
                    "not json",
                    now.minus(Duration.ofDays(300)));

            TestSupport.Run r =
                    run(
                            tmp,
                            "report",
                            "merge",
                            "s3://reports/deja",
                            "--s3-endpoint",
                            s3.endpoint(),
                            "--as-of",
                            now.toString(),
                            "--format",
                            "json",
                            "--output",
                            "html=s3://reports/fleet/{date}.html");
            assertEquals(3, r.code(), "lab is stale: " + r.err());
            assertTrue(
                    r.err()
                                    .contains(
                                            "deja: s3://reports/deja/: left out 1 object that is not .json"
                                                    + " (prod-us/latest.html)")
                            || r.err().contains("left out 1 object that is not .json"),
                    r.err());
            long lists =
                    s3.requests.stream()
                            .filter(q -> q.startsWith("GET /reports?") && q.contains("list-type=2"))
                            .count();
            assertTrue(lists >= 3, "6 objects at 2 a page: " + s3.requests);
            JsonNode j = r.json();
            JsonNode targets = j.path("fleet").path("targets");
            assertEquals(3, targets.size(), targets.toString());
            assertEquals("lab", targets.get(0).path("name").asString());
            assertTrue(targets.get(0).path("stale").asBoolean());
            assertEquals("prod-eu", targets.get(1).path("name").asString());
            assertEquals(
                    "s3://reports/deja/prod-eu/2026-01-02-031700.json",
                    targets.get(1).path("report").asString());
            assertEquals(
                    now.minus(Duration.ofHours(2)).toString(),
                    targets.get(1).path("lastScan").asString());
            assertFalse(targets.get(1).path("stale").asBoolean());
            assertEquals(1, j.path("fleet").path("superseded").asInt());
            assertEquals(
                    TestSupport.json(large).path("findings").size(), j.path("findings").size());
            // the fleet report went to S3 too
            assertTrue(
                    s3.buckets.get("reports").keySet().stream()
                            .anyMatch(k -> k.matches("fleet/\\d{4}-\\d\\d-\\d\\d\\.html")),
                    s3.buckets.get("reports").keySet().toString());
        }
    }

    @Test
    void anUnknownBucketIsOneLineAndExit2(@TempDir Path tmp) throws Exception {
        try (FakeS3 s3 = new FakeS3("reports")) {
            TestSupport.Run r =
                    run(
                            tmp,
                            "report",
                            "merge",
                            "s3://nothere/deja/",
                            "--s3-endpoint",
                            s3.endpoint());
            assertEquals(2, r.code());
            assertEquals(
                    "deja: s3://nothere/deja/: cannot list the reports: NoSuchBucket: The specified bucket does not"
                            + " exist",
                    r.err().strip());
            r = run(tmp, "report", "merge", "s3://reports/deja/", "--s3-endpoint", s3.endpoint());
            assertEquals(2, r.code());
            assertEquals("deja: s3://reports/deja/: no .json report there", r.err().strip());
        }
    }

    /**
     * Issue 17 (1) for S3: a listing whose every page repeats its NextContinuationToken is stopped
     * at page 2.
     */
    @Test
    void aListingThatRepeatsItsContinuationTokenIsStopped(@TempDir Path tmp) throws Exception {
        try (FakeS3 s3 = new FakeS3("reports")) {
            s3.put("reports", "deja/prod/2026-01-02-031700.json", "{}", Instant.now());
            s3.stuckToken = "again";
            TestSupport.Run r =
                    run(
                            tmp,
                            "report",
                            "merge",
                            "s3://reports/deja/",
                            "--s3-endpoint",
                            s3.endpoint());
            assertEquals(2, r.code(), r.err());
            assertEquals(
                    "deja: s3://reports/deja/: cannot list the reports: the endpoint sent the same"
                            + " NextContinuationToken again (page 2): the list would never end",
                    r.err().strip());
            assertEquals(
                    2,
                    s3.requests.stream().filter(q -> q.contains("list-type=2")).count(),
                    s3.requests.toString());
        }
    }
}
