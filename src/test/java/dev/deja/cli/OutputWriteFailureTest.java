package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A report that cannot be written is never lost in silence, nor left half written: stdout on a full
 * disk is exit 2 with one line; a report file on a full file system keeps its previous content and
 * leaves no temporary file.
 */
class OutputWriteFailureTest {
    static List<String> java(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("dev.deja.Main");
        cmd.addAll(List.of(args));
        return cmd;
    }

    @Test
    void stdoutOnAFullDiskIsExit2WithOneLine(@TempDir Path tmp) throws Exception {
        Path err = tmp.resolve("err.txt");
        Process p =
                new ProcessBuilder(java("scan", "examples/haproxy"))
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                        .redirectOutput(new File("/dev/full"))
                        .redirectError(err.toFile())
                        .start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS));
        String e = Files.readString(err);
        assertEquals(2, p.exitValue(), e);
        assertEquals(1, e.lines().count(), e);
        assertTrue(e.startsWith("deja: text to stdout: cannot write report: write error"), e);
    }

    /**
     * {@code -o r.html} on an 8 KiB file system (a tmpfs mounted in a user and mount namespace of
     * its own, where Linux allows one): exit 2 naming the file, r.html as it was, nothing else.
     */
    @Test
    void aReportFileOnAFullFileSystemIsWholeOrAsItWas(@TempDir Path tmp) throws Exception {
        Process probe =
                new ProcessBuilder("unshare", "--user", "--map-root-user", "--mount", "true")
                        .redirectErrorStream(true)
                        .start();
        probe.getInputStream().readAllBytes();
        Assumptions.assumeTrue(
                probe.waitFor(30, TimeUnit.SECONDS) && probe.exitValue() == 0,
                "no unprivileged mount namespace here (unshare): the full file system test skips");
        Path small = Files.createDirectories(tmp.resolve("small"));
        StringBuilder script =
                new StringBuilder(
                        "mount -t tmpfs -o size=8k tmpfs \"$0\" || exit 99\n"
                                + "printf 'old report\\n' > \"$0/r.html\"\n");
        for (String a :
                java("scan", "examples/haproxy", "--format", "html", "-o", small + "/r.html")) {
            script.append('\'').append(a.replace("'", "'\\''")).append("' ");
        }
        script.append("2>\"$0.err\"; echo \"rc=$?\"; ls -A \"$0\"; cat \"$0/r.html\"\n");
        Process p =
                new ProcessBuilder(
                                "unshare",
                                "--user",
                                "--map-root-user",
                                "--mount",
                                "sh",
                                "-c",
                                script.toString(),
                                small.toString())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS));
        Assumptions.assumeTrue(p.exitValue() != 99, "cannot mount a tmpfs here: " + out);
        String err = Files.readString(Path.of(small + ".err"));
        assertEquals("rc=2\nr.html\nold report\n", out, err);
        assertEquals(1, err.lines().count(), err);
        assertTrue(
                err.startsWith("deja: html to " + small + "/r.html: cannot write report: "), err);
    }

    /** The same report written whole where there is room, replacing the old one. */
    @Test
    void aReportFileIsReplacedWhole(@TempDir Path tmp) throws IOException {
        Path r = tmp.resolve("r.html");
        Files.writeString(r, "old report\n");
        dev.deja.TestSupport.Run run =
                dev.deja.TestSupport.run(
                        "scan", "examples/haproxy", "--format", "html", "-o", r.toString());
        assertEquals(1, run.code(), run.err());
        assertTrue(Files.readString(r).contains("</html>"));
        try (var s = Files.list(tmp)) {
            assertEquals(List.of(r), s.toList(), "no temporary file left");
        }
    }
}
