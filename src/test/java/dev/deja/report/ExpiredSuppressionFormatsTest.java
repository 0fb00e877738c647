package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.TestSupport.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * An ignore-file entry whose {@code expires} date has passed no longer suppresses, and every format
 * says so by name (the entry's file:line, rule and date), as does the stderr summary of a report
 * written to a file. The date is in the past for good: the test does not expire.
 */
class ExpiredSuppressionFormatsTest {
    static final String EXAMPLE = "examples/haproxy/il-0264-before.cfg";
    static final String RULE = "haproxy-tarpit-holds-slots";

    @TempDir Path tmp;

    Path ignore;

    @BeforeEach
    void ignoreFile() throws Exception {
        ignore = tmp.resolve("deja-ignore.yaml");
        Files.writeString(
                ignore,
                "# kept until the tarpit is replaced\n"
                        + "- rule: "
                        + RULE
                        + "\n  object: '*'\n  reason: replaced next sprint\n  expires: 2020-01-31\n");
    }

    Run scan(String format) {
        Run r =
                TestSupport.run(
                        "scan",
                        EXAMPLE,
                        "--ignore-file",
                        ignore.toString(),
                        "--format",
                        format,
                        "--fail-on",
                        "none");
        assertEquals(0, r.code(), r.err());
        return r;
    }

    String where() {
        return ignore + ":2";
    }

    @Test
    void textTableAndHtmlNameIt() {
        String line =
                "suppression at "
                        + where()
                        + " for "
                        + RULE
                        + " expired on 2020-01-31 and no longer applies";
        assertTrue(scan("text").out().contains(line), "text");
        assertTrue(scan("table").out().contains("warning: " + line), "table");
        assertTrue(
                scan("html").out().contains("expired on 2020-01-31 and no longer applies"), "html");
        // and the finding it used to suppress is reported again
        assertTrue(scan("table").out().contains(RULE), "table");
    }

    @Test
    void jsonAndSarifNameIt() throws Exception {
        JsonNode json = TestSupport.json(scan("json").out());
        JsonNode e = json.path("expiredSuppressions").get(0);
        assertEquals(RULE, e.path("rule").asString());
        assertEquals(where(), e.path("origin").asString());
        assertEquals("2020-01-31", e.path("expires").asString());

        String sarif = scan("sarif").out();
        SarifJunitReporterTest.assertValid(sarif);
        JsonNode notes =
                TestSupport.json(sarif)
                        .path("runs")
                        .get(0)
                        .path("invocations")
                        .get(0)
                        .path("toolExecutionNotifications");
        JsonNode n = null;
        for (JsonNode x : notes) {
            if (x.path("descriptor").path("id").asString().equals("deja/expired-suppression")) {
                n = x;
            }
        }
        assertTrue(n != null, notes.toString());
        assertEquals("warning", n.path("level").asString());
        assertTrue(n.path("message").path("text").asString().contains(where()), n.toString());
        assertEquals(RULE, n.path("properties").path("rule").asString());
        assertEquals("2020-01-31", n.path("properties").path("expires").asString());
    }

    @Test
    void junitGithubAndPrometheusNameIt() {
        String junit = scan("junit").out();
        assertTrue(
                junit.contains("<testsuite name=\"deja.expired-suppressions\" tests=\"1\""), junit);
        assertTrue(junit.contains("name=\"" + RULE + " at " + where() + "\""), junit);

        String github = scan("github").out();
        assertTrue(
                github.lines()
                        .anyMatch(
                                l ->
                                        l.startsWith(
                                                        "::warning file="
                                                                + GithubReporter.property(
                                                                        ignore.toString())
                                                                + ",line=2,title=deja%3A expired suppression::")
                                                && l.contains("expired on 2020-01-31")),
                github);

        String prom = scan("prometheus").out();
        assertTrue(
                prom.contains(
                        "deja_expired_suppressions{rule=\""
                                + RULE
                                + "\",origin=\""
                                + where()
                                + "\",expires=\"2020-01-31\"} 1"),
                prom);
    }

    @Test
    void theStderrSummaryOfAReportInAFileNamesIt() {
        Path out = tmp.resolve("deja.sarif");
        Run r =
                TestSupport.run(
                        "scan",
                        EXAMPLE,
                        "--ignore-file",
                        ignore.toString(),
                        "--format",
                        "sarif",
                        "-o",
                        out.toString(),
                        "--fail-on",
                        "none");
        assertEquals(0, r.code(), r.err());
        assertTrue(
                r.err()
                        .contains(
                                ", 1 expired suppression ("
                                        + RULE
                                        + " at "
                                        + where()
                                        + " on 2020-01-31)"),
                r.err());
    }
}
