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
import dev.deja.engine.Catalog;
import dev.deja.engine.Coverage;
import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * SARIF output validates against the SARIF 2.1.0 JSON Schema shipped in src/test/resources/sarif
 * (the OASIS schema as published on SchemaStore, 2.1.0-rtm.5), for file findings and for
 * Kubernetes/AWS findings without a file; JUnit output is well-formed XML with the expected counts.
 */
class SarifJunitReporterTest {
    static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * SchemaStore's rtm.5 schema (draft 4) and the SARIF SDK's 2.1.0 schema (draft 2020-12): both
     * must accept.
     */
    static List<Schema> schemas() throws Exception {
        try (InputStream rtm5 =
                        SarifJunitReporterTest.class.getResourceAsStream(
                                "/sarif/sarif-schema-2.1.0-rtm.5.json");
                InputStream sdk =
                        SarifJunitReporterTest.class.getResourceAsStream(
                                "/sarif/sarif-2.1.0-sarif-sdk.json")) {
            return List.of(
                    SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4).getSchema(rtm5),
                    SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                            .getSchema(sdk));
        }
    }

    static void assertValid(String sarif) throws Exception {
        for (Schema schema : schemas()) {
            List<Error> errors = schema.validate(sarif, InputFormat.JSON);
            assertEquals(
                    List.of(),
                    errors.stream()
                            .map(e -> e.getInstanceLocation() + ": " + e.getMessage())
                            .toList(),
                    sarif);
        }
    }

    @Test
    void haproxyScanIsValidSarifWithRegionsAndCaseLinks() throws Exception {
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--format",
                        "sarif",
                        "examples/haproxy/il-0264-before.cfg",
                        "--rules",
                        TestSupport.rulesOf("IL-0264"));
        assertEquals(1, r.code(), r.err());
        assertValid(r.out());
        JsonNode run = JSON.readTree(r.out()).path("runs").get(0);
        assertEquals(6, run.path("results").size());
        for (JsonNode result : run.path("results")) {
            JsonNode rule =
                    run.path("tool")
                            .path("driver")
                            .path("rules")
                            .get(result.path("ruleIndex").asInt());
            assertEquals(
                    "https://incidentlib-api.benchlet.com/cases/IL-0264",
                    rule.path("helpUri").asString(),
                    rule.toString());
        }
        JsonNode first = run.path("results").get(0);
        JsonNode phys = first.path("locations").get(0).path("physicalLocation");
        assertEquals(
                "examples/haproxy/il-0264-before.cfg",
                phys.path("artifactLocation").path("uri").asString());
        // a relative path is relative to a named base, which the run says is the folder deja ran in
        assertEquals("%SRCROOT%", phys.path("artifactLocation").path("uriBaseId").asString());
        String base = run.path("originalUriBaseIds").path("%SRCROOT%").path("uri").asString();
        assertEquals(Path.of("").toAbsolutePath().toUri().toString(), base);
        assertTrue(base.startsWith("file:") && base.endsWith("/"), base);
        assertTrue(phys.path("region").path("startLine").asInt() > 0);
        String ruleId = first.path("ruleId").asString();
        assertEquals(
                ruleId,
                run.path("tool")
                        .path("driver")
                        .path("rules")
                        .get(first.path("ruleIndex").asInt())
                        .path("id")
                        .asString());
    }

    @Test
    void findingsWithoutAFileUseLogicalLocations() throws Exception {
        Finding kube =
                new Finding(
                        "haproxy-maxconn-headroom",
                        Severity.HIGH,
                        List.of("IL-0264"),
                        "k8s message",
                        "Fix it.",
                        Location.kube("Deployment", "ingress", "controller"),
                        List.of(),
                        List.of("a note"));
        Finding aws =
                new Finding(
                        "haproxy-no-saturation-visibility",
                        Severity.LOW,
                        List.of("IL-0264"),
                        "aws message",
                        "Fix it.",
                        Location.aws(
                                "arn:aws:elasticloadbalancing:eu-west-2:1:loadbalancer/net/x/1",
                                "x",
                                "eu-west-2"),
                        List.of("Service ns/x"),
                        List.of());
        Finding cm =
                new Finding(
                        "haproxy-tarpit-holds-slots",
                        Severity.MEDIUM,
                        List.of("IL-0264"),
                        "configmap message",
                        "Fix it.",
                        Location.file("deploy/cm.yaml", 12).withKey("haproxy.cfg"),
                        List.of(),
                        List.of());
        Finding stdin =
                new Finding(
                        "haproxy-tarpit-holds-slots",
                        Severity.INFO,
                        List.of(),
                        "stdin message",
                        "Fix it.",
                        Location.file("<stdin>", 3),
                        List.of(),
                        List.of());
        Finding spaced =
                new Finding(
                        "haproxy-tarpit-holds-slots",
                        Severity.CRITICAL,
                        List.of("IL-0264"),
                        "m",
                        "Fix it.",
                        Location.file("/tmp/my dir/ha proxy.cfg", 1),
                        List.of(),
                        List.of());
        ScanResult res =
                new ScanResult(
                        List.of(kube, aws, cm, stdin, spaced),
                        List.of(
                                new ScanResult.Suppressed(
                                        kube.withLocation(Location.kube("Service", "a", "b")),
                                        "known",
                                        "ignore.yaml:3")),
                        List.of(),
                        List.of("haproxy-maxconn-headroom"),
                        new Coverage(
                                List.of(
                                        new Coverage.Entry(
                                                "kubernetes",
                                                "Secret in ns",
                                                Coverage.Status.DENIED,
                                                "403",
                                                -1))),
                        1);
        Report report = new Report(res, Catalog.packaged(), "0.1.0", Severity.MEDIUM, false);
        StringWriter w = new StringWriter();
        new SarifReporter().write(report, w);
        assertValid(w.toString());
        JsonNode results = JSON.readTree(w.toString()).path("runs").get(0).path("results");
        assertEquals(6, results.size());
        JsonNode k = results.get(0).path("locations").get(0);
        assertTrue(k.path("physicalLocation").isMissingNode());
        assertEquals(
                "Deployment/ingress/controller",
                k.path("logicalLocations").get(0).path("fullyQualifiedName").asString());
        assertTrue(w.toString().contains("file:///tmp/my%20dir/ha%20proxy.cfg"), w.toString());
        assertTrue(w.toString().contains("\"justification\" : \"known\""));
        assertTrue(w.toString().contains("\"executionSuccessful\" : false"));

        StringWriter x = new StringWriter();
        new JunitReporter().write(report, x);
        Document doc =
                DocumentBuilderFactory.newInstance()
                        .newDocumentBuilder()
                        .parse(
                                new ByteArrayInputStream(
                                        x.toString().getBytes(StandardCharsets.UTF_8)));
        Element root = doc.getDocumentElement();
        assertEquals("testsuites", root.getTagName());
        assertEquals(
                "7", root.getAttribute("tests")); // 5 findings, 1 suppressed, 1 scope not checked
        assertEquals("1", root.getAttribute("errors"));
        assertEquals(
                "3",
                root.getAttribute("failures"),
                x.toString()); // critical, high, medium; info and low pass
        assertEquals("1", root.getAttribute("skipped"));
    }

    @Test
    void aScanOfEverySourceIsValidSarif() throws Exception {
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--format",
                        "sarif",
                        "examples/",
                        "src/test/resources/configmaps/haproxy-configmap.yaml");
        assertEquals(1, r.code(), r.err());
        assertValid(r.out());
        assertTrue(JSON.readTree(r.out()).path("runs").get(0).path("results").size() > 20, r.out());
    }

    @Test
    void theSchemaRejectsBrokenSarif() throws Exception {
        TestSupport.Run r =
                TestSupport.run("scan", "--format", "sarif", "examples/haproxy/il-0264-before.cfg");
        ObjectNode tree = (ObjectNode) JSON.readTree(r.out());
        ObjectNode result = (ObjectNode) tree.path("runs").get(0).path("results").get(0);
        result.put("level", "fatal");
        for (Schema schema : schemas()) {
            assertFalse(
                    schema.validate(JSON.writeValueAsString(tree), InputFormat.JSON).isEmpty(),
                    "each schema must catch an invalid level");
        }
    }

    @Test
    void junitIsWellFormedWithControlCharacters() throws Exception {
        Finding f =
                new Finding(
                        "haproxy-tarpit-holds-slots",
                        Severity.HIGH,
                        List.of("IL-0264"),
                        "bad \u0001 <chars> & \"quotes\"",
                        "Fix it.",
                        Location.file("a&b.cfg", 2),
                        List.of(),
                        List.of());
        ScanResult res =
                new ScanResult(
                        List.of(f),
                        List.of(),
                        List.of(),
                        List.of("haproxy-tarpit-holds-slots", "haproxy-maxconn-headroom"),
                        new Coverage(List.of()),
                        1);
        StringWriter x = new StringWriter();
        new JunitReporter()
                .write(new Report(res, Catalog.packaged(), "0.1.0", Severity.MEDIUM, false), x);
        Document doc =
                DocumentBuilderFactory.newInstance()
                        .newDocumentBuilder()
                        .parse(
                                new ByteArrayInputStream(
                                        x.toString().getBytes(StandardCharsets.UTF_8)));
        assertEquals(2, doc.getElementsByTagName("testsuite").getLength());
        assertEquals(1, doc.getElementsByTagName("failure").getLength());
        Element tc = (Element) doc.getElementsByTagName("failure").item(0).getParentNode();
        assertEquals("a&b.cfg", tc.getAttribute("file"));
    }

    @Test
    void junitShowsWhatWasNotCheckedAsErrors() throws Exception {
        Coverage cov =
                new Coverage(
                        List.of(
                                new Coverage.Entry(
                                        "kubernetes",
                                        "Deployment in all namespaces",
                                        Coverage.Status.READ,
                                        null,
                                        3),
                                new Coverage.Entry(
                                        "kubernetes",
                                        "PodDisruptionBudget in all namespaces",
                                        Coverage.Status.DENIED,
                                        "403 Forbidden",
                                        -1)));
        ScanResult res =
                new ScanResult(
                        List.of(), List.of(), List.of(), List.of("k8s-lb-not-spread"), cov, 1);
        StringWriter x = new StringWriter();
        new JunitReporter()
                .write(new Report(res, Catalog.packaged(), "0.1.0", Severity.MEDIUM, false), x);
        Document doc =
                DocumentBuilderFactory.newInstance()
                        .newDocumentBuilder()
                        .parse(
                                new ByteArrayInputStream(
                                        x.toString().getBytes(StandardCharsets.UTF_8)));
        Element root = doc.getDocumentElement();
        assertEquals("1", root.getAttribute("errors"), x.toString());
        assertEquals(1, doc.getElementsByTagName("error").getLength());
        Element error = (Element) doc.getElementsByTagName("error").item(0);
        assertEquals("not checked: 403 Forbidden", error.getAttribute("message"));
        assertEquals(
                "kubernetes: PodDisruptionBudget in all namespaces",
                ((Element) error.getParentNode()).getAttribute("name"));
    }
}
