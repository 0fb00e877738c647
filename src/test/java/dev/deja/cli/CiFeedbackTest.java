package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.TestSupport.Run;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a CI log shows: a run whose report goes to a file still says on stderr what it found and
 * where it went.
 */
class CiFeedbackTest {
    static final String RISKY = "examples/haproxy/il-0264-before.cfg";

    @TempDir Path tmp;

    @Test
    void aReportWrittenToAFileIsSummarisedOnStderr() throws Exception {
        Path sarif = tmp.resolve("deja.sarif");
        Path html = tmp.resolve("deja.html");
        Run r =
                TestSupport.run(
                        "scan",
                        RISKY,
                        "--format",
                        "sarif",
                        "-o",
                        sarif.toString(),
                        "--fail-on",
                        "high",
                        "--output",
                        "html=" + html);
        assertEquals(1, r.code(), r.err());
        assertEquals("", r.out(), "the report is in the file, not on stdout");
        assertTrue(Files.size(sarif) > 0 && Files.size(html) > 0);
        String line = r.err().strip();
        assertEquals(1, line.lines().count(), r.err());
        assertTrue(
                line.matches(
                        "deja: \\d+ findings \\((\\d+ (critical|high|medium|low|info)(, )?)+\\), \\d+ at or"
                                + " above --fail-on high; report: sarif to .*deja\\.sarif, html to .*deja\\.html"),
                line);
        // the counts are the report's
        Run text = TestSupport.run("scan", RISKY, "--fail-on", "high");
        String summary =
                text.out()
                        .lines()
                        .filter(l -> l.matches("\\d+ findings? .*"))
                        .findFirst()
                        .orElseThrow();
        assertTrue(
                line.startsWith("deja: " + summary.substring(0, summary.indexOf(')') + 1)),
                line + " vs " + summary);
    }

    @Test
    void aReportOnStdoutPrintsNoExtraLine() {
        Run r = TestSupport.run("scan", RISKY, "--fail-on", "none");
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.err());
    }

    @Test
    void nothingReadIsNotNoFindings() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path kc = tmp.resolve("kubeconfig");
        Files.writeString(
                kc,
                """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "http://127.0.0.1:%d"}}]
                users: [{name: u, user: {token: t}}]
                contexts: [{name: x, context: {cluster: c, user: u}}]
                current-context: x
                """
                        .formatted(port));
        Run r = TestSupport.run("scan", "--cluster", "--kubeconfig", kc.toString());
        assertEquals(3, r.code(), r.err());
        assertFalse(r.out().contains("No findings."), r.out());
        assertTrue(r.out().startsWith("Nothing could be read, so nothing was checked"), r.out());
        assertTrue(r.out().indexOf("Not checked:") > 0, r.out());
    }
}
