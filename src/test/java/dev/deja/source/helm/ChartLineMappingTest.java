package dev.deja.source.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A finding in a chart names the template and the template's own line: Helm reorders documents (a
 * Service before the Deployment above it) and adds its own lines, so for a document copied without
 * template logic the line is found in the template; a document made by template logic names the
 * template without a line, in every format (text, JSON, GitHub, SARIF, JUnit), never a line of
 * Helm's output.
 */
class ChartLineMappingTest {
    static final String EXAMPLE = "examples/kubernetes/il-0495-risky-ingress.yaml";

    /** A chart whose only template is the IL-0495 example (a Deployment, then its Service). */
    static Path exampleChart(Path tmp) throws IOException {
        Path chart = tmp.resolve("lb");
        Files.createDirectories(chart.resolve("templates"));
        Files.writeString(
                chart.resolve("Chart.yaml"), "apiVersion: v2\nname: lb\nversion: 0.1.0\n");
        Files.copy(Path.of(EXAMPLE), chart.resolve("templates/lb.yaml"));
        return chart;
    }

    static List<String> lines(TestSupport.Run r) {
        List<String> out = new ArrayList<>();
        for (JsonNode f : r.json().path("findings")) {
            JsonNode line = f.path("location").path("line");
            out.add(
                    f.path("ruleId").asString()
                            + "@"
                            + (line.isMissingNode() ? "-" : line.asInt()));
        }
        return out;
    }

    static List<String> matches(String text, String regex) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile(regex).matcher(text);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @Test
    void aCopiedDocumentNamesItsLineInTheTemplateInEveryFormat(@TempDir Path tmp)
            throws IOException {
        Path chart = exampleChart(tmp);
        Path template = chart.resolve("templates/lb.yaml");
        TestSupport.Run direct =
                TestSupport.run("scan", EXAMPLE, "--format", "json", "--fail-on", "none");
        assertEquals(0, direct.code(), direct.err());
        List<String> expected = lines(direct);
        assertTrue(expected.contains("k8s-lb-probe-fails-fast@30"), expected.toString());
        assertTrue(expected.contains("k8s-lb-probe-fails-fast@33"), expected.toString());
        for (Map<String, String> env : ChartConfinementTest.backends(Map.of())) {
            TestSupport.Run json =
                    ChartConfinementTest.scan(
                            env, "scan", chart.toString(), "--format", "json", "--fail-on", "none");
            assertEquals(0, json.code(), json.err());
            assertEquals(expected, lines(json), env.toString());
            for (JsonNode f : json.json().path("findings")) {
                assertEquals(template.toString(), f.path("location").path("file").asString());
            }

            TestSupport.Run gh =
                    ChartConfinementTest.scan(
                            env,
                            "scan",
                            chart.toString(),
                            "--format",
                            "github",
                            "--fail-on",
                            "none");
            TestSupport.Run ghDirect =
                    TestSupport.run("scan", EXAMPLE, "--format", "github", "--fail-on", "none");
            assertEquals(
                    matches(ghDirect.out(), "il-0495-risky-ingress\\.yaml,line=(\\d+),"),
                    matches(gh.out(), "templates/lb\\.yaml,line=(\\d+),"));
            assertFalse(gh.out().contains("line=48"), gh.out());

            TestSupport.Run sarif =
                    ChartConfinementTest.scan(
                            env,
                            "scan",
                            chart.toString(),
                            "--format",
                            "sarif",
                            "--fail-on",
                            "none");
            TestSupport.Run sarifDirect =
                    TestSupport.run("scan", EXAMPLE, "--format", "sarif", "--fail-on", "none");
            assertEquals(
                    matches(sarifDirect.out(), "\"startLine\" ?: ?(\\d+)"),
                    matches(sarif.out(), "\"startLine\" ?: ?(\\d+)"));

            TestSupport.Run junit =
                    ChartConfinementTest.scan(
                            env,
                            "scan",
                            chart.toString(),
                            "--format",
                            "junit",
                            "--fail-on",
                            "none");
            TestSupport.Run junitDirect =
                    TestSupport.run("scan", EXAMPLE, "--format", "junit", "--fail-on", "none");
            assertEquals(
                    matches(junitDirect.out(), "line=\"(\\d+)\""),
                    matches(junit.out(), "line=\"(\\d+)\""));

            TestSupport.Run text =
                    ChartConfinementTest.scan(env, "scan", chart.toString(), "--fail-on", "none");
            assertTrue(text.out().contains(template + ":30)"), text.out());
        }
    }

    /**
     * The risky-ingress chart's Deployment is made by template logic: its findings name the
     * template and no line, in JSON, GitHub, SARIF and JUnit.
     */
    @Test
    void aTemplatedDocumentNamesTheTemplateWithoutALine() {
        String chart = ChartAndKustomizeInputTest.CHART;
        String deployment = ChartAndKustomizeInputTest.DEPLOYMENT;
        for (Map<String, String> env : ChartConfinementTest.backends(Map.of())) {
            TestSupport.Run json =
                    ChartConfinementTest.scan(
                            env, "scan", chart, "--format", "json", "--fail-on", "none");
            assertEquals(0, json.code(), json.err());
            assertEquals(4, json.json().path("findings").size(), json.out());
            for (JsonNode f : json.json().path("findings")) {
                assertEquals(deployment, f.path("location").path("file").asString());
                assertTrue(f.path("location").path("line").isMissingNode(), f.toString());
            }
            TestSupport.Run gh =
                    ChartConfinementTest.scan(
                            env, "scan", chart, "--format", "github", "--fail-on", "none");
            assertTrue(gh.out().contains("file=" + deployment + ",title="), gh.out());
            assertFalse(gh.out().contains(",line="), gh.out());
            TestSupport.Run sarif =
                    ChartConfinementTest.scan(
                            env, "scan", chart, "--format", "sarif", "--fail-on", "none");
            assertTrue(sarif.out().contains("templates/controller-deployment.yaml"), sarif.out());
            assertFalse(sarif.out().contains("startLine"), sarif.out());
            TestSupport.Run junit =
                    ChartConfinementTest.scan(
                            env, "scan", chart, "--format", "junit", "--fail-on", "none");
            assertTrue(junit.out().contains("file=\"" + deployment + "\""), junit.out());
            assertFalse(junit.out().contains(" line=\""), junit.out());
        }
    }

    @Test
    void aCopyIsFoundOnlyWhereItIsUnique() {
        List<String> t = List.of("a: 1", "  b: 2", "---", "a: 1", "  b: 2", "c: 3");
        assertEquals(-1, HelmRenderer.uniqueCopy(t, List.of("a: 1", "  b: 2")));
        assertEquals(3, HelmRenderer.uniqueCopy(t, List.of("a: 1", "  b: 2", "c: 3")));
        assertEquals(5, HelmRenderer.uniqueCopy(t, List.of("c: 3")));
        assertEquals(-1, HelmRenderer.uniqueCopy(t, List.of("c: 4")));
        assertEquals(-1, HelmRenderer.uniqueCopy(t, List.of()));
    }
}
