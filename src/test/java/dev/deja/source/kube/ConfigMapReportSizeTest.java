package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.deja.TestSupport;
import dev.deja.engine.Finding;
import dev.deja.report.Baseline;
import dev.deja.report.BaselineDiff;
import dev.deja.report.JsonReporter;
import dev.deja.report.Report;
import dev.deja.report.ReportFixtures;
import dev.deja.report.sink.ConfigMapReportSink;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The ConfigMap's 1 MiB limit: a report too big is cut to a smaller, still valid document, never a
 * broken one.
 */
class ConfigMapReportSizeTest {
    static final JsonMapper MAPPER = JsonMapper.builder().build();

    static int size(Map<String, String> data) {
        int n = 0;
        for (Map.Entry<String, String> e : data.entrySet()) {
            n +=
                    e.getKey().getBytes(StandardCharsets.UTF_8).length
                            + e.getValue().getBytes(StandardCharsets.UTF_8).length;
        }
        return n;
    }

    static Schema schema() throws IOException {
        try (InputStream in = JsonReporter.class.getResourceAsStream("deja-report.schema.json")) {
            return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                    .getSchema(
                            new String(in.readAllBytes(), StandardCharsets.UTF_8),
                            InputFormat.JSON);
        }
    }

    @Test
    void aSmallReportIsKeptWholeAndPretty() throws IOException {
        Report report = ReportFixtures.report(ReportFixtures.typical());
        Map<String, String> data =
                ConfigMapReportSink.data(report, ConfigMapReportSink.DEFAULT_LIMIT);
        String json = data.get(ConfigMapReportSink.JSON_KEY);
        assertEquals(
                MAPPER.writerWithDefaultPrettyPrinter()
                                .writeValueAsString(JsonReporter.tree(report))
                        + "\n",
                json);
        assertEquals(List.of(), schema().validate(MAPPER.readTree(json)));
    }

    @Test
    void aReportOverTheLimitIsCutToAValidDocumentThatStillServesAsBaseline() throws IOException {
        List<Finding> many = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            many.add(ReportFixtures.kube(String.format("lb-%04d", i)));
        }
        Report report = ReportFixtures.report(ReportFixtures.result(many));
        int limit = 64 * 1024;
        String whole = MAPPER.writeValueAsString(JsonReporter.tree(report));
        assertTrue(
                whole.length() > 2 * limit,
                "the fixture is well over the limit: " + whole.length());

        Map<String, String> data = ConfigMapReportSink.data(report, limit);
        assertTrue(size(data) <= limit, size(data) + " > " + limit);
        JsonNode kept =
                MAPPER.readTree(
                        data.get(ConfigMapReportSink.JSON_KEY)); // parses: a complete document
        assertEquals(List.of(), schema().validate(kept), "valid against the report schema");
        assertTrue(kept.path("truncated").asBoolean());
        int n = kept.path("findings").size();
        assertTrue(n > 0 && n < 400, "kept " + n);
        assertEquals(n, kept.path("truncation").path("findingsKept").asInt());
        assertEquals(400, kept.path("truncation").path("findings").asInt());
        assertEquals(
                400,
                kept.path("summary").path("total").asInt(),
                "the summary still counts everything");
        // as many as fit: one more would not
        Map<String, String> oneMore =
                ConfigMapReportSink.data(report, limit + 4096); // a finding is under 1 KiB
        assertTrue(
                MAPPER.readTree(oneMore.get(ConfigMapReportSink.JSON_KEY)).path("findings").size()
                        > n);
        String summary = data.get(ConfigMapReportSink.SUMMARY_KEY);
        assertTrue(
                summary.contains("truncated: deja.json keeps " + n + " of 400 findings"), summary);
        assertTrue(summary.contains("critical: 400"), summary);

        // the kept findings are still a baseline: they are not new, the rest are
        BaselineDiff diff =
                Baseline.parse(data.get(ConfigMapReportSink.JSON_KEY), "configmap:deja/deja-report")
                        .compare(report.result().findings());
        assertEquals(n, diff.unchanged());
        assertEquals(400 - n, diff.newFindings().size());
    }

    /** A real scan whose report is over 1 MiB, written through the mock API server. */
    @Test
    void aLargeClusterReportFitsTheConfigMap(@TempDir Path tmp) throws IOException {
        StringBuilder manifest = new StringBuilder();
        String one = Files.readString(Path.of("examples/kubernetes/il-0495-risky-ingress.yaml"));
        for (int i = 0; i < 300; i++) {
            manifest.append(one.replace("internal-lb", "internal-lb-" + i)).append("\n---\n");
        }
        Path file = tmp.resolve("many.yaml");
        Files.writeString(file, manifest);
        try (MockCluster c = new MockCluster()) {
            Path out = tmp.resolve("full.json");
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            file.toString(),
                            "--kubeconfig",
                            c.kubeconfig(tmp).toString(),
                            "--report-configmap",
                            "deja/deja-report",
                            "--fail-on",
                            "none",
                            "--format",
                            "json",
                            "-o",
                            out.toString());
            assertEquals(0, r.code(), r.err());
            int total = MAPPER.readTree(Files.readString(out)).path("findings").size();
            assertTrue(Files.size(out) > 1024 * 1024, "over the limit: " + Files.size(out));
            ConfigMap cm = c.client.configMaps().inNamespace("deja").withName("deja-report").get();
            assertTrue(
                    size(cm.getData()) <= 1024 * 1024,
                    "within the API server's limit: " + size(cm.getData()));
            JsonNode kept = MAPPER.readTree(cm.getData().get("deja.json"));
            assertTrue(kept.path("truncated").asBoolean());
            assertEquals(total, kept.path("truncation").path("findings").asInt());
            assertEquals("true", cm.getMetadata().getAnnotations().get("deja.dev/truncated"));
            assertFalse(kept.path("findings").isEmpty());
        }
    }
}
