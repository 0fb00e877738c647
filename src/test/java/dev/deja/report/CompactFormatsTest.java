package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** --format github (Actions workflow commands) and --format table (one line per finding). */
class CompactFormatsTest {
    static final String RISKY = "examples/haproxy/il-0264-before.cfg";

    static JsonNode findings(String... args) {
        TestSupport.Run r = TestSupport.run(args);
        return JsonMapper.builder().build().readTree(r.out()).path("findings");
    }

    @Test
    void githubAnnotatesEachFindingOnItsFileAndLine() {
        JsonNode expected = findings("scan", RISKY, "--format", "json", "--fail-on", "none");
        TestSupport.Run r =
                TestSupport.run("scan", RISKY, "--format", "github", "--fail-on", "high");
        assertEquals(1, r.code(), r.err());
        List<String> commands = r.out().lines().filter(l -> l.startsWith("::")).toList();
        assertEquals(expected.size(), commands.size(), r.out());
        Pattern p =
                Pattern.compile(
                        "::(error|warning|notice) file=([^,]+),line=(\\d+),title=deja (\\w+)%3A ([a-z0-9-]+) "
                                + "\\([^:]*\\)::(.+)");
        for (int i = 0; i < commands.size(); i++) {
            Matcher m = p.matcher(commands.get(i));
            assertTrue(m.matches(), commands.get(i));
            JsonNode f = expected.get(i);
            assertEquals(f.path("ruleId").asString(), m.group(5));
            assertEquals(f.path("severity").asString(), m.group(4));
            assertEquals(
                    switch (m.group(4)) {
                        case "critical", "high" -> "error";
                        case "medium" -> "warning";
                        default -> "notice";
                    },
                    m.group(1));
            assertEquals(RISKY, m.group(2));
            assertEquals(f.path("location").path("line").asInt(), Integer.parseInt(m.group(3)));
            assertTrue(
                    m.group(6).contains("%0AFix%3A ") || m.group(6).contains("%0AFix: "),
                    m.group(6));
        }
        assertTrue(
                r.out()
                        .lines()
                        .anyMatch(l -> l.startsWith("deja: " + expected.size() + " findings")),
                r.out());
    }

    @Test
    void githubEscapesAndAnnotatesObjectsWithoutAFile() {
        assertEquals("50%25 a%0Ab%0Dc", GithubReporter.data("50% a\nb\rc"));
        assertEquals("a%3Ab%2Cc%25", GithubReporter.property("a:b,c%"));
        assertEquals("x\\x1b[31my", GithubReporter.data("x\u001b[31my"));
        Finding onObject =
                new Finding(
                        ReportFixtures.KUBE_RULE,
                        Severity.CRITICAL,
                        List.of("IL-0495"),
                        "one line",
                        "Fix it.",
                        Location.kube("Deployment", "edge", "lb"),
                        List.of(),
                        List.of());
        String out =
                ReportFixtures.render(
                        new GithubReporter(),
                        ReportFixtures.report(ReportFixtures.result(List.of(onObject))));
        String line = out.lines().filter(l -> l.startsWith("::")).findFirst().orElseThrow();
        assertTrue(
                line.startsWith("::error title=deja critical%3A " + ReportFixtures.KUBE_RULE),
                line);
        assertFalse(line.contains("file="), line);
        assertTrue(line.contains("::Deployment edge/lb: one line%0AFix: Fix it."), line);
    }

    @Test
    void tableHasOneAlignedLinePerFinding() {
        JsonNode expected = findings("scan", RISKY, "--format", "json", "--fail-on", "none");
        TestSupport.Run r =
                TestSupport.run("scan", RISKY, "--format", "table", "--fail-on", "none");
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        String header = lines.get(0);
        assertTrue(header.matches("SEVERITY +RULE +OBJECT +MESSAGE"), header);
        int ruleAt = header.indexOf("RULE");
        int objectAt = header.indexOf("OBJECT");
        int messageAt = header.indexOf("MESSAGE");
        for (int i = 0; i < expected.size(); i++) {
            String line = lines.get(i + 1);
            JsonNode f = expected.get(i);
            assertEquals(f.path("ruleId").asString(), line.substring(ruleAt).split(" ")[0], line);
            assertTrue(line.substring(objectAt, messageAt).contains(RISKY + ":"), line);
            assertTrue(line.length() - messageAt <= TableReporter.MESSAGE_WIDTH, line);
            assertTrue(line.startsWith(f.path("severity").asString()), line);
        }
        assertTrue(
                lines.get(expected.size() + 1).startsWith(expected.size() + " findings"), r.out());
        ScanResult escape =
                ReportFixtures.result(
                        List.of(
                                new Finding(
                                        ReportFixtures.KUBE_RULE,
                                        Severity.HIGH,
                                        List.of(),
                                        "m",
                                        "f",
                                        Location.kube("Deployment", "edge", "lb\u001b[2J"),
                                        List.of(),
                                        List.of())));
        String t = ReportFixtures.render(new TableReporter(), ReportFixtures.report(escape));
        assertFalse(t.contains("\u001b"), t);
        assertTrue(t.contains("lb\\x1b[2J"), t);
    }
}
