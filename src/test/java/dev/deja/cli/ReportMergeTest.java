package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.deja.TestSupport;
import dev.deja.report.JsonReporter;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * deja report merge over files and folders: the latest report of each target wins, a finding on
 * several targets is one finding listing them, stale targets are flagged against an injected time
 * (--as-of, relative to now: no date here expires), and inputs that are not deja reports are named,
 * never skipped.
 */
class ReportMergeTest {
    /**
     * Two real reports: a small one (one manifest) and a larger one (all Kubernetes examples); the
     * small one's findings are all in the larger one.
     */
    static String small;

    static String large;
    static Schema schema;
    static final JsonMapper MAPPER = JsonMapper.builder().build();

    /** The merge's "now": every file time is relative to it. */
    // Taken once on purpose: the files' times are set from it and the merge is given it as --as-of,
    // so the tests never read the clock again and cannot depend on how long they take.
    @SuppressWarnings("TimeInStaticInitializer")
    static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    @BeforeAll
    static void reports() throws Exception {
        small =
                TestSupport.run(
                                "scan",
                                "examples/kubernetes/il-0495-risky-ingress.yaml",
                                "--format",
                                "json")
                        .out();
        large = TestSupport.run("scan", "examples/kubernetes", "--format", "json").out();
        assertTrue(
                TestSupport.json(small).path("findings").size() > 3,
                "sanity: the small report has findings");
        try (InputStream in = JsonReporter.class.getResourceAsStream("deja-report.schema.json")) {
            schema =
                    SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                            .getSchema(
                                    new String(in.readAllBytes(), StandardCharsets.UTF_8),
                                    InputFormat.JSON);
        }
    }

    static Path write(Path p, String body, Duration age) throws Exception {
        Files.createDirectories(p.getParent());
        Files.writeString(p, body);
        Files.setLastModifiedTime(p, FileTime.from(NOW.minus(age)));
        return p;
    }

    static TestSupport.Run merge(String... args) {
        List<String> a = new ArrayList<>(List.of("report", "merge", "--as-of", NOW.toString()));
        a.addAll(List.of(args));
        return TestSupport.run(a.toArray(String[]::new));
    }

    static JsonNode target(JsonNode report, String name) {
        for (JsonNode t : report.path("fleet").path("targets")) {
            if (t.path("name").asString().equals(name)) {
                return t;
            }
        }
        throw new AssertionError("no target " + name + " in " + report.path("fleet"));
    }

    @Test
    void foldersAndFilesMergeLatestPerTargetAndCountAFindingOnceAcrossTargets(@TempDir Path tmp)
            throws Exception {
        Path root = tmp.resolve("reports");
        // prod-eu: an older report with every finding, then a newer one with fewer: the newer one
        // wins
        write(root.resolve("prod-eu/2026-01-01.json"), large, Duration.ofHours(30));
        write(root.resolve("prod-eu/2026-01-02.json"), small, Duration.ofHours(6));
        write(root.resolve("prod-us/2026-01-02.json"), small, Duration.ofHours(5));
        // a file given on its own: its name is its target
        Path staging = write(tmp.resolve("staging.json"), large, Duration.ofHours(1));

        TestSupport.Run r = merge(root.toString(), staging.toString(), "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        assertEquals(List.of(), schema.validate(j), "the fleet report follows the packaged schema");
        assertEquals(3, j.path("fleet").path("targets").size());
        assertEquals(4, j.path("fleet").path("reportsRead").asInt());
        assertEquals(
                1,
                j.path("fleet").path("superseded").asInt(),
                "prod-eu's older report is left out");
        int smallN = TestSupport.json(small).path("findings").size();
        int largeN = TestSupport.json(large).path("findings").size();
        assertEquals(
                smallN,
                target(j, "prod-eu").path("total").asInt(),
                "prod-eu: its latest report's findings");
        assertTrue(target(j, "prod-eu").path("report").asString().endsWith("2026-01-02.json"));
        assertEquals(largeN, target(j, "staging").path("total").asInt());
        // one finding per fingerprint: the small report's findings are on all three targets, the
        // others on staging only
        assertEquals(
                largeN,
                j.path("findings").size(),
                "each finding once, however many targets have it");
        int onAll = 0;
        for (JsonNode f : j.path("findings")) {
            List<String> on = new ArrayList<>();
            f.path("targets").forEach(t -> on.add(t.asString()));
            if (on.size() == 3) {
                assertEquals(List.of("prod-eu", "prod-us", "staging"), on);
                assertEquals(
                        "on 3 of 3 targets: prod-eu, prod-us, staging",
                        f.path("notes").get(0).asString());
                onAll++;
            } else {
                assertEquals(List.of("staging"), on, f.path("ruleId") + " " + f.path("object"));
            }
        }
        assertEquals(smallN, onAll);
        // summary counts merged findings, not findings x targets
        assertEquals(largeN, j.path("summary").path("total").asInt());
        for (JsonNode t : j.path("fleet").path("targets")) {
            assertFalse(t.path("stale").asBoolean(), t.toString());
        }
        assertEquals(6 * 3600, target(j, "prod-eu").path("ageSeconds").asInt());
    }

    @Test
    void theRuleThatComparesClustersSaysTheMergeCannotRunIt(@TempDir Path tmp) throws Exception {
        write(tmp.resolve("r/prod-eu/2026-01-02.json"), small, Duration.ofHours(2));
        write(tmp.resolve("r/prod-us/2026-01-02.json"), small, Duration.ofHours(1));
        TestSupport.Run r = merge(tmp.resolve("r").toString(), "--format", "json");
        assertEquals(0, r.code(), "a rule not run is not a gap of a cluster: " + r.err());
        assertEquals(List.of(), schema.validate(r.json()), "the fleet report follows the schema");
        JsonNode skipped = null;
        for (JsonNode e : r.json().path("coverage").path("entries")) {
            if (e.path("scope").asString().equals("rule k8s-critical-in-one-cluster")) {
                skipped = e;
            }
        }
        assertTrue(skipped != null, r.json().path("coverage").toString());
        assertEquals("skipped", skipped.path("status").asString());
        assertTrue(
                skipped.path("detail")
                        .asString()
                        .contains(
                                "not run on the merge: the reports hold findings, not each cluster's workloads"),
                skipped.toString());
        // one target: nothing to compare, nothing said
        TestSupport.Run one = merge(tmp.resolve("r/prod-eu").toString(), "--format", "json");
        assertFalse(one.json().path("coverage").toString().contains("k8s-critical-in-one-cluster"));
    }

    @Test
    void aTargetWithoutARecentReportIsStale(@TempDir Path tmp) throws Exception {
        write(tmp.resolve("r/fresh/2026-01-03.json"), small, Duration.ofHours(47));
        write(tmp.resolve("r/old/2026-01-01.json"), small, Duration.ofHours(49));
        TestSupport.Run r = merge(tmp.resolve("r").toString(), "--format", "json");
        assertEquals(3, r.code(), "a stale target makes the fleet view incomplete: " + r.err());
        assertTrue(
                r.err().contains("fleet incomplete: 1 target has no report newer than --stale 48h"),
                r.err());
        assertTrue(target(r.json(), "old").path("stale").asBoolean());
        assertFalse(target(r.json(), "fresh").path("stale").asBoolean());
        assertFalse(r.json().path("coverage").path("complete").asBoolean());

        TestSupport.Run text = merge(tmp.resolve("r").toString(), "--stale", "3d");
        assertEquals(0, text.code(), "49h is within --stale 3d: " + text.err());
        assertFalse(text.out().contains("STALE"), text.out());
        TestSupport.Run strict =
                merge(tmp.resolve("r").toString(), "--stale", "12h", "--allow-partial");
        assertEquals(0, strict.code(), "--allow-partial accepts stale targets");
        assertTrue(strict.out().contains("STALE fresh: last scan"), strict.out());
        assertTrue(strict.out().contains("STALE old: last scan"), strict.out());
        assertTrue(strict.out().contains("(2d 1h ago)"), strict.out());
    }

    @Test
    void inputsThatAreNotReportsAreNamedAndTheOthersStillMerged(@TempDir Path tmp)
            throws Exception {
        Path dir = tmp.resolve("r");
        write(dir.resolve("good/2026-01-01.json"), small, Duration.ofHours(1));
        write(
                dir.resolve("broken.json"),
                small.substring(0, small.length() / 2),
                Duration.ofHours(1));
        ObjectNode future = (ObjectNode) TestSupport.json(small);
        future.put("schemaVersion", "2.0");
        write(dir.resolve("future.json"), future.toString(), Duration.ofHours(1));
        write(dir.resolve("other.json"), "{\"findings\": []}", Duration.ofHours(1));
        ObjectNode noRule = (ObjectNode) TestSupport.json(small);
        ((ObjectNode) noRule.path("findings").get(1)).remove("ruleId");
        write(dir.resolve("norule.json"), noRule.toString(), Duration.ofHours(1));
        write(dir.resolve("deja.html"), "<html></html>", Duration.ofHours(1));

        Path out = tmp.resolve("fleet.json");
        TestSupport.Run r = merge(dir.toString(), "--format", "json", "-o", out.toString());
        assertEquals(2, r.code(), r.err());
        List<String> lines = r.err().lines().toList();
        assertTrue(
                lines.contains(
                        "deja: "
                                + dir.resolve("broken.json")
                                + ": not a deja JSON report (not valid JSON: "
                                + lines.stream()
                                        .filter(l -> l.contains("broken.json"))
                                        .findFirst()
                                        .orElseThrow()
                                        .replaceFirst(".*not valid JSON: ", "")),
                r.err());
        assertTrue(
                lines.contains(
                        "deja: "
                                + dir.resolve("future.json")
                                + ": report schema 2.0 is not one this deja"
                                + " reads (1.x)"),
                r.err());
        assertTrue(
                lines.contains(
                        "deja: "
                                + dir.resolve("other.json")
                                + ": not a deja JSON report (write one with"
                                + " --format json or --output json=...)"),
                r.err());
        assertTrue(
                lines.contains(
                        "deja: "
                                + dir.resolve("norule.json")
                                + ": finding 1 has no ruleId, severity, message"
                                + " or location"),
                r.err());
        assertTrue(
                lines.contains("deja: " + dir + ": left out 1 file that is not .json (deja.html)"),
                r.err());
        assertTrue(
                lines.contains(
                        "deja: 4 inputs are not a deja JSON report and were not merged (named above)"),
                r.err());
        assertTrue(
                r.err().lines().noneMatch(l -> l.contains("\tat ") || l.contains("Exception")),
                r.err());
        // the good one is still merged, and the report lists what was not
        JsonNode j = MAPPER.readTree(out.toFile());
        assertEquals(1, j.path("fleet").path("targets").size());
        assertEquals("good", j.path("fleet").path("targets").get(0).path("name").asString());
        assertEquals(4, j.path("fleet").path("unreadable").size());
        assertEquals(List.of(), schema.validate(j));
    }

    @Test
    void nothingToMergeIsAnInputError(@TempDir Path tmp) throws Exception {
        Files.createDirectories(tmp.resolve("empty"));
        TestSupport.Run r = merge(tmp.resolve("empty").toString());
        assertEquals(2, r.code());
        assertEquals(
                "deja: " + tmp.resolve("empty") + ": no .json report in this folder",
                r.err().strip());
        r = merge(tmp.resolve("missing").toString());
        assertEquals(2, r.code());
        assertEquals(
                "deja: " + tmp.resolve("missing") + ": no such file or folder", r.err().strip());
        r = merge(tmp.toString(), "--stale", "soon");
        assertEquals(2, r.code());
        assertEquals(
                "deja: --stale: 'soon' is not a duration (e.g. 48h, 2d, 90m)", r.err().strip());
        r = TestSupport.run("report");
        assertEquals(2, r.code());
        assertTrue(
                r.err()
                        .contains(
                                "give --from-configmap NAMESPACE/NAME, or merge reports with 'deja report merge"),
                r.err());
    }

    /**
     * Reports of a multi-target run name their targets (top-level targets, each finding's target):
     * those win over the file's place, and one file can hold several targets.
     */
    @Test
    void reportsThatNameTheirTargetsAreSplitByThem(@TempDir Path tmp) throws Exception {
        ObjectNode two = (ObjectNode) TestSupport.json(small);
        ArrayNode ts = two.putArray("targets");
        ts.addObject().put("cluster", "blue");
        ts.addObject().put("cluster", "green").put("account", "111122223333");
        ArrayNode fs = (ArrayNode) two.path("findings");
        for (int i = 0; i < fs.size(); i++) {
            ObjectNode t = ((ObjectNode) fs.get(i)).putObject("target");
            if (i == 0) {
                t.put("cluster", "blue");
            } else {
                t.put("cluster", "green").put("account", "111122223333");
            }
        }
        for (JsonNode e : two.path("coverage").path("entries")) {
            ((ObjectNode) e).putObject("target").put("cluster", "blue");
        }
        write(tmp.resolve("r/run.json"), two.toString(), Duration.ofHours(2));
        TestSupport.Run r = merge(tmp.resolve("r").toString(), "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        assertEquals(2, j.path("fleet").path("targets").size());
        assertEquals(1, target(j, "blue").path("total").asInt());
        assertEquals("blue", target(j, "blue").path("cluster").asString());
        JsonNode green = target(j, "green (111122223333)");
        assertEquals(fs.size() - 1, green.path("total").asInt());
        assertEquals("111122223333", green.path("account").asString());

        // a finding of that run without a target (a file scanned with the clusters) is the report's
        // place's, not lost
        ((ObjectNode) fs.get(2)).remove("target");
        write(tmp.resolve("r/run.json"), two.toString(), Duration.ofHours(1));
        j = merge(tmp.resolve("r").toString(), "--format", "json").json();
        assertEquals(3, j.path("fleet").path("targets").size(), j.path("fleet").toString());
        assertEquals(1, target(j, "run").path("total").asInt());
        assertEquals(fs.size() - 2, target(j, "green (111122223333)").path("total").asInt());
    }

    @ParameterizedTest
    @ValueSource(strings = {"text", "table", "html", "sarif", "junit", "prometheus", "github"})
    void everyFormatWritesAFleetReport(String format, @TempDir Path tmp) throws Exception {
        write(tmp.resolve("r/a/2026-01-01.json"), small, Duration.ofHours(1));
        write(tmp.resolve("r/b/2026-01-01.json"), large, Duration.ofHours(3));
        TestSupport.Run r = merge(tmp.resolve("r").toString(), "--format", format);
        assertEquals(0, r.code(), r.err());
        assertFalse(r.out().isBlank());
        if (format.equals("text") || format.equals("html")) {
            assertTrue(
                    r.out().contains("on 2 of 2 targets: a, b"),
                    "the targets of a finding are shown");
        }
        if (format.equals("html")) {
            assertTrue(r.out().contains("id=\"targets\""), "the targets table");
        }
    }

    @Test
    void theFolderOrFileNameGivesTheTarget() {
        assertEquals("prod-eu", ReportMergeCommand.placeTarget("prod-eu/2026-12-01.json", "deja"));
        assertEquals("eu/prod", ReportMergeCommand.placeTarget("eu/prod/deja.json", "deja"));
        assertEquals("prod-eu", ReportMergeCommand.placeTarget("prod-eu.json", "deja"));
        assertEquals(
                "deja",
                ReportMergeCommand.placeTarget("2026-12-01-031700.json", "deja"),
                "a date-named report directly under the root is the root's");
        assertEquals("2026", ReportMergeCommand.placeTarget("2026.json", null));
    }

    @Test
    void failOnCountsMergedFindings(@TempDir Path tmp) throws Exception {
        write(tmp.resolve("r/a/1.json"), small, Duration.ofHours(1));
        assertEquals(1, merge(tmp.resolve("r").toString(), "--fail-on", "high").code());
        assertEquals(
                0,
                merge(tmp.resolve("r").toString(), "--fail-on", "critical").code(),
                "the small report has no critical finding");
    }
}
