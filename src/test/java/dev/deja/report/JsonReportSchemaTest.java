package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.deja.TestSupport;
import dev.deja.engine.Coverage;
import dev.deja.engine.Figure;
import dev.deja.engine.Finding;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Suppressions;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Real JsonReporter output validates against the packaged schema, and the schema is strict enough
 * to catch drift.
 */
public class JsonReportSchemaTest {
    static Schema schema;
    static final JsonMapper MAPPER = JsonMapper.builder().build();

    @BeforeAll
    static void load() throws Exception {
        try (InputStream in = JsonReporter.class.getResourceAsStream("deja-report.schema.json")) {
            assertTrue(in != null, "schema packaged next to JsonReporter");
            schema =
                    SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                            .getSchema(
                                    new String(in.readAllBytes(), StandardCharsets.UTF_8),
                                    InputFormat.JSON);
        }
    }

    /** The schema's errors for a report (none: valid); other tests' real reports use it too. */
    public static List<Error> validate(JsonNode n) {
        if (schema == null) {
            try {
                load();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
        return schema.validate(n);
    }

    static JsonNode json(Report r) {
        return MAPPER.readTree(ReportFixtures.render(new JsonReporter(), r));
    }

    @Test
    void reportWithFindingsSuppressionsExpiryAndPartialCoverageValidates() {
        ScanResult base = ReportFixtures.typical();
        Suppressions.Entry expired =
                new Suppressions.Entry(
                        ReportFixtures.AWS_RULE,
                        "prod-*",
                        "migrating",
                        LocalDate.of(2020, 1, 1),
                        "ignore.yaml:3");
        Coverage cov =
                new Coverage(
                        List.of(
                                new Coverage.Entry(
                                        "kubernetes",
                                        "Secret in prod",
                                        Coverage.Status.DENIED,
                                        "403 forbidden",
                                        -1),
                                new Coverage.Entry(
                                        "haproxy", "haproxy.cfg", Coverage.Status.READ, null, 12)));
        ScanResult r =
                new ScanResult(
                        base.findings().subList(1, 3),
                        List.of(
                                new ScanResult.Suppressed(
                                        base.findings().get(0), "accepted", "ignore.yaml:1")),
                        List.of(expired),
                        base.rulesRun(),
                        cov,
                        5);
        JsonNode n = json(ReportFixtures.report(r));
        assertEquals(List.of(), validate(n));
        assertEquals(1, n.path("suppressed").size());
        assertEquals("denied", n.path("coverage").path("entries").get(1).path("status").asString());
    }

    @Test
    void reportWithBaselineValidatesAndMarksNewFindings() {
        ScanResult r = ReportFixtures.typical();
        String before =
                ReportFixtures.render(
                        new JsonReporter(),
                        ReportFixtures.report(
                                ReportFixtures.result(List.of(ReportFixtures.aws()))));
        BaselineDiff diff = Baseline.parse(before, "before.json").compare(r.findings());
        JsonNode n = json(ReportFixtures.report(r).withBaseline(diff));
        assertEquals(List.of(), validate(n));
        assertEquals(2, n.path("baseline").path("new").asInt());
        assertEquals(1, n.path("baseline").path("unchanged").asInt());
        for (JsonNode f : n.path("findings")) {
            assertEquals(
                    !f.path("ruleId").asString().equals(ReportFixtures.AWS_RULE),
                    f.path("new").asBoolean(),
                    f.toString());
        }
    }

    @Test
    void emptyReportValidates() {
        assertEquals(
                List.of(), validate(json(ReportFixtures.report(ReportFixtures.result(List.of())))));
    }

    @Test
    void fleetReportCarriesTargetsAndValidates() {
        JsonNode n = json(ReportFixtures.report(ReportFixtures.fleet()));
        assertEquals(List.of(), validate(n));
        assertEquals("1.4", n.path("schemaVersion").asString());
        // every target read, clusters first by name, then accounts; complete per target; counts per
        // target
        JsonNode ts = n.path("targets");
        assertEquals(3, ts.size(), ts.toString());
        assertEquals("prod", ts.get(0).path("cluster").asString());
        assertTrue(ts.get(0).path("complete").asBoolean());
        assertEquals(1, ts.get(0).path("findings").path("bySeverity").path("critical").asInt());
        assertEquals("stage", ts.get(1).path("cluster").asString());
        assertFalse(ts.get(1).path("complete").asBoolean(), "stage has a denied kind");
        assertEquals("123456789012", ts.get(2).path("account").asString());
        assertFalse(ts.get(2).has("cluster"), "absent fields are left out");
        assertEquals(1, ts.get(2).path("findings").path("bySeverity").path("medium").asInt());
        assertEquals(0, ts.get(2).path("findings").path("bySeverity").path("critical").asInt());
        // findings and coverage entries carry their target; the file finding has none
        int withCluster = 0;
        for (JsonNode f : n.path("findings")) {
            if (f.path("ruleId").asString().equals(ReportFixtures.HAPROXY_RULE)) {
                assertFalse(f.has("target"), f.toString());
            } else if (f.path("ruleId").asString().equals(ReportFixtures.KUBE_RULE)) {
                assertTrue(f.path("target").has("cluster"), f.toString());
                withCluster++;
            } else {
                assertEquals("123456789012", f.path("target").path("account").asString());
            }
        }
        assertEquals(2, withCluster);
        // the same problem in two clusters has one fingerprint (a fleet merge counts it once)
        List<String> fps = new ArrayList<>();
        n.path("findings")
                .forEach(
                        f -> {
                            if (f.path("ruleId").asString().equals(ReportFixtures.KUBE_RULE)) {
                                fps.add(f.path("fingerprint").asString());
                            }
                        });
        assertEquals(fps.get(0), fps.get(1));
        for (JsonNode e : n.path("coverage").path("entries")) {
            assertEquals(
                    !e.path("source").asString().equals("haproxy"), e.has("target"), e.toString());
        }
        assertEquals(
                0,
                json(ReportFixtures.report(ReportFixtures.typical())).path("targets").size(),
                "a scan of files has an empty targets list");
    }

    @Test
    void baselineKeepsTargetsApart() {
        // the baseline had the finding in prod only: the same problem in stage is new
        ScanResult fleet = ReportFixtures.fleet();
        List<Finding> prodOnly =
                fleet.findings().stream()
                        .filter(f -> f.target() == null || !"stage".equals(f.target().cluster()))
                        .toList();
        String before =
                ReportFixtures.render(
                        new JsonReporter(), ReportFixtures.report(ReportFixtures.result(prodOnly)));
        BaselineDiff diff = Baseline.parse(before, "before.json").compare(fleet.findings());
        assertEquals(1, diff.newFindings().size(), diff.newFindings().toString());
        assertEquals("stage", diff.newFindings().get(0).target().cluster());
    }

    /**
     * Schema 1.4: a finding's figure. The examples scanned for real carry slots, probes and zones
     * figures that validate; a saturation figure too; a figure with an unknown field, a missing one
     * or an unknown kind is refused.
     */
    @Test
    void figuresValidateAndTheirDriftIsRefused() {
        TestSupport.Run r = TestSupport.run("scan", "examples", "--format", "json");
        assertEquals(1, r.code(), r.err());
        JsonNode n = MAPPER.readTree(r.out());
        assertEquals(List.of(), findingErrors(n));
        List<String> kinds = new ArrayList<>();
        ObjectNode slots = null;
        for (JsonNode f : n.path("findings")) {
            if (f.has("figure")) {
                kinds.add(f.path("figure").path("kind").asString());
                if (f.path("figure").path("kind").asString().equals("slots")) {
                    slots = (ObjectNode) f.path("figure");
                }
            }
        }
        assertTrue(kinds.containsAll(List.of("slots", "probes", "zones")), "figures: " + kinds);
        assertEquals(800, slots.path("process").path("maxconn").asInt(), slots.toString());

        Finding live =
                ReportFixtures.typical()
                        .findings()
                        .get(0)
                        .withFigure(
                                new Figure.Saturation(
                                        "frontend fe", "unix:/run/haproxy.sock", 9.5, 10, 80, 95));
        JsonNode sat = json(ReportFixtures.report(ReportFixtures.result(List.of(live))));
        assertEquals(List.of(), validate(sat));
        assertEquals(9.5, sat.path("findings").get(0).path("figure").path("peak").asDouble());

        slots.put("colour", "red");
        assertFalse(findingErrors(n).isEmpty(), "an undocumented figure field is refused");
        slots.remove("colour");
        slots.remove("held");
        assertFalse(findingErrors(n).isEmpty(), "a figure without one of its numbers is refused");
        slots.put("held", 200).put("kind", "pie");
        assertFalse(findingErrors(n).isEmpty(), "an unknown kind of figure is refused");
        slots.put("kind", "slots");
        assertEquals(List.of(), findingErrors(n), "put back, it validates again");
    }

    /**
     * The schema's errors in the findings (the examples also read Prometheus and Helm sources,
     * which the schema's source list predates: not this test's subject).
     */
    static List<String> findingErrors(JsonNode n) {
        List<String> out = new ArrayList<>();
        for (Error e : validate(n)) {
            if (e.toString().startsWith("/findings")) {
                out.add(e.toString());
            }
        }
        return out;
    }

    /**
     * Real scans, not fixtures: every kind of input the examples and fixtures hold (HAProxy files,
     * manifests, charts, AWS and Prometheus snapshots, rules of one's own with their own case ids,
     * a folder with files deja does not read) gives a report the schema accepts, and the sources it
     * names are the ones the schema lists.
     */
    @Test
    void realScansOfEveryKindOfInputValidate() {
        List<String[]> scans =
                List.of(
                        new String[] {
                            "scan",
                            "--format",
                            "json",
                            "--rules-dir",
                            "examples/custom-rules",
                            "examples"
                        },
                        new String[] {
                            "scan",
                            "--format",
                            "json",
                            "src/test/resources/fixtures/haproxy-sessions-near-limit/prometheus-window.json",
                            "src/test/resources/fixtures/k8s-etcd-disk-latency/ebs-members.json"
                        });
        java.util.Set<String> sources = new java.util.TreeSet<>();
        for (String[] args : scans) {
            TestSupport.Run r = TestSupport.run(args);
            assertTrue(r.code() == 0 || r.code() == 1, r.err());
            JsonNode n = r.json();
            assertEquals(List.of(), validate(n), String.join(" ", args));
            for (JsonNode e : n.path("coverage").path("entries")) {
                sources.add(e.path("source").asString());
            }
        }
        assertTrue(
                sources.containsAll(List.of("haproxy", "kubernetes", "snapshot", "files")),
                "the scans cover these sources: " + sources);
    }

    @Test
    void schemaRejectsDrift() {
        ObjectNode n = (ObjectNode) json(ReportFixtures.report(ReportFixtures.typical()));
        ((ObjectNode) n.path("findings").get(0)).put("colour", "red");
        assertFalse(validate(n).isEmpty(), "an undocumented finding field is refused");
        ObjectNode m = (ObjectNode) json(ReportFixtures.report(ReportFixtures.typical()));
        ((ObjectNode) m.path("findings").get(0)).put("severity", "urgent");
        assertFalse(validate(m).isEmpty(), "an unknown severity is refused");
        ObjectNode k = (ObjectNode) json(ReportFixtures.report(ReportFixtures.typical()));
        k.remove("coverage");
        assertFalse(validate(k).isEmpty(), "a missing section is refused");
        ObjectNode t = (ObjectNode) json(ReportFixtures.report(ReportFixtures.fleet()));
        ((ObjectNode) t.path("findings").get(0).path("target")).put("namespace", "x");
        assertFalse(validate(t).isEmpty(), "an undocumented target field is refused");
        ObjectNode e = (ObjectNode) json(ReportFixtures.report(ReportFixtures.fleet()));
        ((ObjectNode) e.path("targets").get(0)).remove("cluster");
        assertFalse(validate(e).isEmpty(), "a target summary names its cluster or account");
    }
}
