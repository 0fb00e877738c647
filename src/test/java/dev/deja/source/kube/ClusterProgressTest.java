package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.cli.Cli;
import dev.deja.progress.StatusLine;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster scan on a terminal (injected: a {@link StatusLine} over a buffer, as {@code
 * Cli.Io.system()} makes one when stderr is a tty) keeps one progress line; piped, none.
 */
class ClusterProgressTest {
    private static final String ERASE = "\r\u001B[K";

    /**
     * A live scan on a terminal: "kinds listed, objects read" in place, erased before the report.
     */
    @Test
    void clusterScanOnATerminalSaysWhatItReads(@TempDir Path dir) throws Exception {
        try (MockCluster cluster = new MockCluster()) {
            cluster.apply(Path.of("examples/kubernetes/il-0495-risky-ingress.yaml"), "edge");
            Path kubeconfig = cluster.kubeconfig(dir);
            String[] args = {
                "scan", "--cluster", "--kubeconfig", kubeconfig.toString(), "--fail-on", "none"
            };
            StringWriter out = new StringWriter();
            StringWriter screen = new StringWriter();
            StatusLine line = new StatusLine(screen);
            int code =
                    Cli.run(
                            new Cli.Io(
                                    new PrintWriter(out),
                                    new PrintWriter(line, true),
                                    new ByteArrayInputStream(new byte[0]),
                                    Map.of(),
                                    false,
                                    line),
                            args);
            assertEquals(0, code, screen.toString());
            String err = screen.toString();
            assertTrue(err.contains("deja: reading: kubernetes 1 kind, "), err);
            assertTrue(err.matches("(?s).*kubernetes \\d+ kinds, \\d+ objects.*"), err);
            // the progress line is erased before anything else is written: what follows it (the
            // scanned-cluster line) is whole lines, with no progress text left on the screen
            int erased = err.indexOf(ERASE, err.lastIndexOf("deja: reading: "));
            assertTrue(erased > 0, "the line is erased before the report: " + err);
            String after = err.substring(erased + ERASE.length());
            assertFalse(after.contains("deja: reading"), after);
            assertTrue(after.isEmpty() || after.endsWith("\n"), "whole lines after it: " + after);
            assertTrue(out.toString().contains("IL-0495"), out.toString());
            // not a terminal: not a character of it
            TestSupport.Run piped = TestSupport.run(args);
            assertFalse(piped.err().contains("deja: reading"), piped.err());
            assertFalse(piped.err().contains("\u001B"), piped.err());
        }
    }
}
