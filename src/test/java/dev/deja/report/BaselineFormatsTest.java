package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.TestSupport.Run;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import tools.jackson.databind.JsonNode;

/**
 * {@code --baseline} in the CI formats, through the command line: a baseline of the IL-0264 example
 * (6 findings), then the same file with one problem fixed (timeout http-request added: two findings
 * gone), one figure changed (frontend maxconn 5000 to 5001) and one new frontend hc_api, without a
 * rate limit and above the global maxconn (three new medium findings). Text says "3 new, 4
 * unchanged, 2 fixed"; GitHub annotations, JUnit failures and SARIF's baselineState say the same,
 * and follow the exit code.
 */
class BaselineFormatsTest {
    static final String EXAMPLE = "examples/haproxy/il-0264-before.cfg";

    @TempDir Path tmp;

    Path cfg;
    Path baseline;

    @BeforeEach
    void baselineThenChange() throws Exception {
        cfg = tmp.resolve("edge.cfg");
        Files.copy(Path.of(EXAMPLE), cfg);
        baseline = tmp.resolve("baseline.json");
        Run b = run("--format", "json", "-o", baseline.toString(), "--fail-on", "none");
        assertEquals(0, b.code(), b.err());
        assertEquals(6, TestSupport.json(Files.readString(baseline)).path("findings").size());
        String changed =
                Files.readString(cfg)
                                .replace(
                                        "timeout tarpit 1s",
                                        "timeout tarpit 1s\n    timeout http-request 10s")
                                .replace("maxconn 5000", "maxconn 5001")
                        + "\nfrontend hc_api\n    bind :8082\n    maxconn 9000\n    default_backend be_app\n";
        Files.writeString(cfg, changed);
    }

    Run run(String... args) {
        List<String> all = new ArrayList<>(List.of("scan", cfg.toString()));
        all.addAll(List.of(args));
        return TestSupport.runWith(
                new ByteArrayInputStream(new byte[0]), Map.of(), all.toArray(String[]::new));
    }

    @Test
    void textCountsAndTheExitCodeFollowTheNewFinding() {
        Run r = run("--baseline", baseline.toString());
        assertEquals(1, r.code(), r.out() + r.err());
        assertTrue(
                r.out()
                        .contains(
                                "Against the baseline "
                                        + baseline
                                        + ": 3 new, 4 unchanged, 2 fixed"),
                r.out());
        // the new findings are medium and low: they do not fail --fail-on high
        assertEquals(0, run("--baseline", baseline.toString(), "--fail-on", "high").code());
    }

    @Test
    void githubAnnotatesOnlyWhatFailsAsErrorsAndUnchangedFindingsAsNotices() {
        Run r = run("--baseline", baseline.toString(), "--format", "github");
        assertEquals(1, r.code(), r.err());
        List<String> commands = r.out().lines().filter(l -> l.startsWith("::")).toList();
        assertEquals(7, commands.size(), r.out());
        List<String> errors = commands.stream().filter(l -> l.startsWith("::error ")).toList();
        // the two new medium findings fail --fail-on medium; the new low one is a notice
        assertEquals(2, errors.size(), r.out());
        errors.forEach(l -> assertTrue(l.contains("frontend hc_api"), l));
        List<String> unchanged =
                commands.stream().filter(l -> l.contains("unchanged since the baseline")).toList();
        assertEquals(4, unchanged.size(), r.out());
        unchanged.forEach(l -> assertTrue(l.startsWith("::notice "), l));
        assertTrue(
                r.out()
                        .contains(
                                "deja: against the baseline "
                                        + baseline
                                        + ": 3 new, 4 unchanged, 2 fixed"),
                r.out());

        // --fail-on high: the run passes, and no annotation is an error
        Run high =
                run("--baseline", baseline.toString(), "--format", "github", "--fail-on", "high");
        assertEquals(0, high.code(), high.err());
        assertTrue(high.out().lines().noneMatch(l -> l.startsWith("::error ")), high.out());
        assertTrue(
                high.out()
                        .lines()
                        .anyMatch(l -> l.startsWith("::warning ") && l.contains("hc_api")),
                high.out());
    }

    @Test
    void junitFailsOnlyTheNewFinding() throws Exception {
        Run r = run("--baseline", baseline.toString(), "--format", "junit");
        assertEquals(1, r.code(), r.err());
        Document doc =
                DocumentBuilderFactory.newInstance()
                        .newDocumentBuilder()
                        .parse(new ByteArrayInputStream(r.out().getBytes(StandardCharsets.UTF_8)));
        Element root = doc.getDocumentElement();
        assertEquals("2", root.getAttribute("failures"), r.out());
        NodeList failures = doc.getElementsByTagName("failure");
        assertEquals(2, failures.getLength());
        for (int i = 0; i < failures.getLength(); i++) {
            Element failure = (Element) failures.item(i);
            assertTrue(failure.getTextContent().contains("hc_api"), failure.getTextContent());
        }
        long unchanged =
                r.out().lines().filter(l -> l.contains("(unchanged since the baseline)")).count();
        assertEquals(4, unchanged, r.out());
        // without a baseline every finding at or above --fail-on fails
        Run all = run("--format", "junit");
        Element allRoot =
                DocumentBuilderFactory.newInstance()
                        .newDocumentBuilder()
                        .parse(new ByteArrayInputStream(all.out().getBytes(StandardCharsets.UTF_8)))
                        .getDocumentElement();
        assertEquals("6", allRoot.getAttribute("failures"), all.out());
    }

    @Test
    void sarifGivesEachResultItsBaselineStateAndTheFixedOnesAsAbsent() throws Exception {
        Path out = tmp.resolve("deja.sarif");
        Run r = run("--baseline", baseline.toString(), "--format", "sarif", "-o", out.toString());
        assertEquals(1, r.code(), r.err());
        String sarif = Files.readString(out);
        SarifJunitReporterTest.assertValid(sarif);
        JsonNode results = TestSupport.json(sarif).path("runs").get(0).path("results");
        Map<String, List<String>> byState = new TreeMap<>();
        for (JsonNode res : results) {
            byState.computeIfAbsent(
                            res.path("baselineState").asString("(none)"), k -> new ArrayList<>())
                    .add(
                            res.path("ruleId").asString()
                                    + " "
                                    + res.path("properties").path("object").asString());
        }
        assertEquals(
                Set.of("new", "unchanged", "updated", "absent"),
                byState.keySet(),
                byState.toString());
        assertEquals(3, byState.get("new").size(), byState.toString());
        assertEquals(
                List.of(
                        "haproxy-rate-limit-not-everywhere frontend hc_api",
                        "haproxy-maxconn-headroom frontend hc_api",
                        "haproxy-maxconn-headroom global"),
                byState.get("new").stream().map(n -> n.substring(0, n.indexOf(" ("))).toList());
        // the same problems with other figures: maxconn 5001, three frontends instead of two
        assertTrue(
                byState.get("updated").stream()
                        .anyMatch(u -> u.startsWith("haproxy-maxconn-headroom frontend hchk_io")),
                byState.toString());
        assertEquals(
                4,
                byState.get("unchanged").size() + byState.get("updated").size(),
                byState.toString());
        assertEquals(
                List.of(
                        "haproxy-missing-http-request-timeout",
                        "haproxy-missing-http-request-timeout"),
                byState.get("absent").stream().map(a -> a.split(" ")[0]).toList());
        for (JsonNode res : results) {
            if (res.path("baselineState").asString().equals("absent")) {
                // a fixed finding is not an open problem to a consumer that ignores baselineState
                assertEquals("pass", res.path("kind").asString(), res.toString());
                assertEquals("none", res.path("level").asString(), res.toString());
                assertTrue(
                        res.path("message")
                                .path("text")
                                .asString()
                                .startsWith("Fixed since the baseline: "),
                        res.toString());
                assertTrue(res.path("locations").get(0).has("physicalLocation"), res.toString());
            }
        }
        // the stderr summary says how many are new
        assertTrue(
                r.err().contains(", 3 new against the baseline (4 unchanged, 2 fixed)"), r.err());
        assertTrue(r.err().contains("2 new at or above --fail-on medium"), r.err());
    }
}
