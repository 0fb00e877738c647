package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.TestSupport.Run;
import dev.deja.engine.Catalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class CliTest {
    @TempDir Path tmp;

    @Test
    void versionPrintsTheProjectVersion() {
        Run r = TestSupport.run("--version");
        assertEquals(0, r.code());
        assertTrue(r.out().startsWith("deja "), r.out());
        assertFalse(r.out().contains("${"), "version must be filtered in: " + r.out());
    }

    @Test
    void everyCommandListsTheExitCodesInHelp() {
        for (String[] args : new String[][] {{"--help"}, {"scan", "--help"}}) {
            Run r = TestSupport.run(args);
            assertEquals(0, r.code(), String.join(" ", args));
            assertTrue(r.out().contains("Exit codes"), String.join(" ", args) + ": " + r.out());
            for (int code = 0; code <= 4; code++) {
                assertTrue(
                        r.out().contains("  " + code + "  "),
                        "exit code " + code + " in " + String.join(" ", args));
            }
        }
        // the catalog commands never scan: their own codes, not --fail-on's or an incomplete scan's
        for (String[] args :
                new String[][] {{"rules", "--help"}, {"explain", "--help"}, {"cases", "--help"}}) {
            Run r = TestSupport.run(args);
            assertEquals(0, r.code(), String.join(" ", args));
            String help = r.out();
            assertTrue(help.contains("Exit codes:"), String.join(" ", args) + ": " + help);
            String codes = help.substring(help.indexOf("Exit codes:"));
            for (int code : new int[] {0, 2, 4}) {
                assertTrue(
                        codes.contains("  " + code + "  "),
                        "exit code " + code + " in " + String.join(" ", args));
            }
            assertFalse(
                    codes.contains("--fail-on")
                            || codes.contains("  1  ")
                            || codes.contains("  3  "),
                    String.join(" ", args) + ": " + codes);
        }
    }

    @Test
    void scanWithoutSourceIsAUsageErrorWithAHint() {
        Run r = TestSupport.run("scan");
        assertEquals(2, r.code());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("--cluster"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void unknownOptionAndBadValuesAreUsageErrors() {
        assertEquals(2, TestSupport.run("scan", "--no-such-flag", "x").code());
        Run sev = TestSupport.run("scan", "--fail-on", "huge", "x.cfg");
        assertEquals(2, sev.code());
        assertTrue(sev.err().contains("--fail-on: unknown severity 'huge'"), sev.err());
        Run rule = TestSupport.run("scan", "--rules", "no-such-rule", "x.cfg");
        assertEquals(2, rule.code());
        assertTrue(rule.err().contains("unknown rule 'no-such-rule'"), rule.err());
        Run fmt = TestSupport.run("scan", "--format", "pdf", tmp.toString());
        assertEquals(2, fmt.code());
        assertTrue(fmt.err().contains("unknown format 'pdf'"), fmt.err());
    }

    @Test
    void missingFileAndEmptyFolderNameThePath() throws Exception {
        Run missing = TestSupport.run("scan", tmp.resolve("nope.cfg").toString());
        assertEquals(2, missing.code());
        assertTrue(missing.err().contains("nope.cfg: no such file or folder"), missing.err());
        assertFalse(missing.err().contains("\tat "), "no stack trace");
        Files.writeString(tmp.resolve("notes.txt"), "hello");
        Run empty = TestSupport.run("scan", tmp.toString());
        assertEquals(2, empty.code());
        assertTrue(empty.err().contains("folder holds no HAProxy configuration"), empty.err());
    }

    @Test
    void binaryFileIsRefusedWithFileAndLine() throws Exception {
        Path bin = tmp.resolve("blob.cfg");
        Files.write(bin, new byte[] {'g', 'l', 'o', 'b', 'a', 'l', '\n', 'x', 0, 1, 2});
        Run r = TestSupport.run("scan", bin.toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("blob.cfg:2: binary file"), r.err());
    }

    @Test
    void unrecognisedExplicitFileIsAnError() throws Exception {
        Path f = tmp.resolve("notes.yaml");
        Files.writeString(f, "just: data\n");
        Run r = TestSupport.run("scan", f.toString());
        assertEquals(2, r.code());
        assertTrue(
                r.err()
                        .contains(
                                "notes.yaml: not a HAProxy configuration, Kubernetes manifest or deja snapshot"),
                r.err());
    }

    @Test
    void manifestWithoutApiVersionNamesTheMissingField() throws Exception {
        Path f = tmp.resolve("deploy.yaml");
        Files.writeString(f, "# a Deployment\nkind: Deployment\nmetadata:\n  name: web\n");
        Run r = TestSupport.run("scan", f.toString());
        assertEquals(2, r.code(), r.err());
        assertEquals(
                "deja: "
                        + f
                        + ":2: 'kind' without 'apiVersion': not a Kubernetes manifest, which needs"
                        + " both (nor a HAProxy configuration or deja snapshot)",
                r.err().strip());
        Path g = tmp.resolve("half.yml");
        Files.writeString(g, "apiVersion: v1\nmetadata: {}\n");
        Run h = TestSupport.run("scan", g.toString());
        assertEquals(2, h.code(), h.err());
        assertTrue(h.err().contains("half.yml:1: 'apiVersion' without 'kind'"), h.err());
        // a .cfg keeps its HAProxy reading of the first line
        Path c = tmp.resolve("odd.cfg");
        Files.writeString(c, "kind: Deployment\n");
        Run o = TestSupport.run("scan", c.toString());
        assertEquals(2, o.code(), o.err());
        assertTrue(o.err().contains("odd.cfg:1: not a HAProxy configuration"), o.err());
    }

    @Test
    void explainUnknownIdIsOneLineExit2() {
        Run r = TestSupport.run("explain", "IL-9999");
        assertEquals(2, r.code());
        assertEquals(1, r.err().strip().lines().count(), r.err());
    }

    @Test
    void explainCaseTellsTheStory() {
        Run r = TestSupport.run("explain", "IL-0264");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("Healthchecks.io"));
        assertTrue(r.out().contains("tarpit"));
        assertTrue(r.out().contains("Timeline (UTC):"));
        assertTrue(r.out().contains("Follow-ups:"));
        assertTrue(r.out().contains("https://incidentlib-api.benchlet.com/cases/IL-0264"));
        assertTrue(r.out().contains("Rules that check for it:"));
    }

    @Test
    void rulesJsonListsEveryRuleWithTheRequiredFields() {
        Run r = TestSupport.run("rules", "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode arr = JsonMapper.builder().build().readTree(r.out());
        assertTrue(arr.isArray());
        for (JsonNode n : arr) {
            for (String f : new String[] {"id", "title", "severity", "source", "caseIds"}) {
                assertTrue(n.has(f), f + " in " + n);
            }
        }
        assertEquals(Catalog.packaged().rules().size(), arr.size());
    }

    @Test
    void casesJsonIsAnArrayLikeRulesJson() {
        Run r = TestSupport.run("cases", "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode arr = JsonMapper.builder().build().readTree(r.out());
        assertTrue(arr.isArray(), r.out());
        assertEquals(Catalog.packaged().cases().size(), arr.size());
        for (JsonNode n : arr) {
            for (String f :
                    new String[] {"id", "title", "organisation", "date", "summary", "ruleIds"}) {
                assertTrue(n.has(f), f + " in " + n);
            }
            assertTrue(n.path("ruleIds").size() > 0, n.toString());
        }
        assertEquals(2, TestSupport.run("cases", "--format", "xml").code());
    }

    @Test
    void rulesTableHasAHeaderAndAlignedColumns() {
        Run r = TestSupport.run("rules");
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        String header = lines.get(0);
        assertTrue(header.matches("RULE +SEVERITY +SOURCE +CASES +TITLE"), header);
        int titleAt = header.indexOf("TITLE");
        int rows = 0;
        for (String line : lines.subList(1, lines.size() - 1)) {
            // every title starts in the TITLE column, also on a row whose rule comes from two cases
            assertTrue(
                    line.length() > titleAt
                            && line.charAt(titleAt - 1) == ' '
                            && line.charAt(titleAt) != ' ',
                    line);
            rows++;
        }
        assertEquals(Catalog.packaged().rules().size(), rows);
        assertTrue(
                lines.stream().anyMatch(l -> l.matches(".*IL-\\d+,IL-\\d+.*")),
                "a multi-case row is listed");
    }

    @Test
    void casesListsAllFourCases() {
        Run r = TestSupport.run("cases");
        assertEquals(0, r.code());
        for (String id : new String[] {"IL-0081", "IL-0264", "IL-0364", "IL-0495"}) {
            assertTrue(r.out().contains(id), id);
        }
    }

    @Test
    void anIgnoreEntryThatMatchesNothingIsReported() throws Exception {
        Path ignore = tmp.resolve("ignore.yaml");
        Files.writeString(
                ignore,
                "- rule: haproxy-tarpit-holds-slots\n  object: frontend/hc_pnig\n  reason: typo in the name\n"
                        + "- rule: haproxy-tarpit-holds-slots\n  object: hc_ping\n  reason: accepted\n");
        Run r =
                TestSupport.run(
                        "scan",
                        "--ignore-file",
                        ignore.toString(),
                        "examples/haproxy/il-0264-before.cfg");
        assertEquals(1, r.code(), r.err());
        assertTrue(
                r.err()
                        .contains(
                                ignore
                                        + ":1: suppression of haproxy-tarpit-holds-slots for object 'frontend/hc_pnig'"
                                        + " matched no finding of this scan"),
                r.err());
        assertFalse(
                r.err().contains(ignore + ":4:"),
                "the entry that matched is not reported: " + r.err());
        assertTrue(r.out().contains("1 suppressed"), r.out());
    }
}
