package dev.deja.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.source.InputFiles;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17 (4): reads are bounded by the bytes read, special files in folders are skipped, OOM is
 * one line.
 */
class UnboundedInputTest {
    @TempDir Path tmp;

    private static final Duration HANG_GUARD = Duration.ofMinutes(3);
    private static final String CFG =
            "global\n  maxconn 100\n  stats socket /run/h.sock\ndefaults\n  mode http\n"
                    + "  timeout client 5s\n  timeout server 5s\n  timeout connect 5s\n  timeout http-request 5s\n"
                    + "frontend f\n  bind :80\n  default_backend b\nbackend b\n  server s 127.0.0.1:8080\n";

    /** An endless stream of YAML lines (as `yes 'abc: def'`), counting what was taken from it. */
    static final class Endless extends InputStream {
        final byte[] line = "abc: def\n".getBytes(StandardCharsets.UTF_8);
        long read;

        @Override
        public int read() {
            return line[(int) (read++ % line.length)];
        }

        @Override
        public int read(byte[] b, int off, int len) {
            for (int i = 0; i < len; i++) {
                b[off + i] = (byte) read();
            }
            return len;
        }
    }

    @Test
    void anEndlessStdinStopsAtTheLimit() {
        Endless in = new Endless();
        TestSupport.Run r =
                assertTimeoutPreemptively(
                        HANG_GUARD, () -> TestSupport.runWith(in, Map.of(), "scan", "-"));
        assertEquals(2, r.code(), r.err());
        assertEquals("deja: <stdin>: input is larger than 64 MiB\n", r.err());
        assertEquals(
                InputFiles.MAX_FILE_BYTES + 1,
                in.read,
                "no more than one byte past the limit is read");
    }

    @Test
    void devZeroAndANamedPipeEnd() throws Exception {
        Assumptions.assumeTrue(Files.exists(Path.of("/dev/zero")), "no /dev/zero on this system");
        TestSupport.Run zero =
                assertTimeoutPreemptively(HANG_GUARD, () -> TestSupport.run("scan", "/dev/zero"));
        assertEquals(2, zero.code(), zero.err());
        assertEquals("deja: /dev/zero: input is larger than 64 MiB\n", zero.err());

        Path fifo = mkfifo(tmp.resolve("yes.yaml"));
        Thread writer =
                new Thread(
                        () -> { // yes 'abc: def' > fifo
                            try (OutputStream o = Files.newOutputStream(fifo)) {
                                byte[] chunk =
                                        "abc: def\n".repeat(1000).getBytes(StandardCharsets.UTF_8);
                                while (true) {
                                    o.write(chunk);
                                }
                            } catch (Exception e) {
                                // the reader closed the pipe: done
                            }
                        },
                        "endless-writer");
        writer.setDaemon(true);
        writer.start();
        TestSupport.Run pipe =
                assertTimeoutPreemptively(
                        HANG_GUARD, () -> TestSupport.run("scan", fifo.toString()));
        assertEquals(2, pipe.code(), pipe.err());
        assertEquals("deja: " + fifo + ": input is larger than 64 MiB\n", pipe.err());
        writer.join(TimeUnit.MINUTES.toMillis(1));
    }

    /**
     * A FIFO named on the command line with a writer is read like a file (as `deja scan <(helm
     * template ...)`).
     */
    @Test
    void aNamedPipeWithAWriterIsScanned() throws Exception {
        Path fifo = mkfifo(tmp.resolve("haproxy.cfg"));
        Thread writer =
                new Thread(
                        () -> { // blocks in open until deja opens the pipe for reading
                            try (OutputStream o = Files.newOutputStream(fifo)) {
                                o.write(CFG.getBytes(StandardCharsets.UTF_8));
                            } catch (Exception e) {
                                // the test fails on the scan's result
                            }
                        },
                        "config-writer");
        writer.setDaemon(true);
        writer.start();
        TestSupport.Run r =
                assertTimeoutPreemptively(
                        HANG_GUARD,
                        () ->
                                TestSupport.runWith(
                                        new ByteArrayInputStream(new byte[0]),
                                        Map.of("DEJA_OPEN_DEADLINE", "600"),
                                        "scan",
                                        "--format",
                                        "json",
                                        fifo.toString()));
        assertEquals(0, r.code(), r.err());
        assertEquals(
                fifo.toString(),
                TestSupport.json(r.out()).at("/coverage/entries/0/scope").asString(),
                r.out());
        writer.join(TimeUnit.MINUTES.toMillis(1));
    }

    /**
     * A FIFO named on the command line that nothing opens for writing (`mkfifo f; deja scan f`):
     * one line naming it after the open deadline (injected: 1 s), exit 2; the thread that waited in
     * open(2) is let go.
     */
    @Test
    void aNamedPipeWithoutAWriterIsAnErrorAfterTheDeadline() throws Exception {
        Path fifo = mkfifo(tmp.resolve("nobody.cfg"));
        TestSupport.Run r =
                assertTimeoutPreemptively(
                        HANG_GUARD,
                        () ->
                                TestSupport.runWith(
                                        new ByteArrayInputStream(new byte[0]),
                                        Map.of("DEJA_OPEN_DEADLINE", "1"),
                                        "scan",
                                        fifo.toString()));
        assertEquals(2, r.code(), r.err());
        assertEquals(
                "deja: "
                        + fifo
                        + ": a named pipe (FIFO) that nothing opened for writing within 1 s"
                        + " (DEJA_OPEN_DEADLINE)\n",
                r.err());
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("deja-open")) {
                t.join(TimeUnit.MINUTES.toMillis(1));
                assertTrue(!t.isAlive(), "the thread blocked opening the FIFO was released");
            }
        }
    }

    /**
     * -o naming a FIFO: written when a reader comes; with none, one line after the deadline (1 s
     * here), exit 2.
     */
    @Test
    void aNamedPipeAsOutputNeedsAReader() throws Exception {
        Path cfg = Files.writeString(tmp.resolve("h.cfg"), CFG);
        Path fifo = mkfifo(tmp.resolve("report.json"));
        TestSupport.Run none =
                assertTimeoutPreemptively(
                        HANG_GUARD,
                        () ->
                                TestSupport.runWith(
                                        new ByteArrayInputStream(new byte[0]),
                                        Map.of("DEJA_OPEN_DEADLINE", "1"),
                                        "scan",
                                        "--format",
                                        "json",
                                        "-o",
                                        fifo.toString(),
                                        cfg.toString()));
        assertEquals(2, none.code(), none.err());
        assertTrue(
                none.err()
                        .contains(
                                "deja: json to "
                                        + fifo
                                        + ": cannot write report: a named pipe (FIFO) that"
                                        + " nothing opened for reading within 1 s (DEJA_OPEN_DEADLINE)\n"),
                none.err());

        CompletableFuture<String> read = new CompletableFuture<>();
        Thread reader =
                new Thread(
                        () -> { // cat fifo
                            try (InputStream in = Files.newInputStream(fifo)) {
                                read.complete(
                                        new String(in.readAllBytes(), StandardCharsets.UTF_8));
                            } catch (Exception e) {
                                read.completeExceptionally(e);
                            }
                        },
                        "report-reader");
        reader.setDaemon(true);
        reader.start();
        TestSupport.Run r =
                assertTimeoutPreemptively(
                        HANG_GUARD,
                        () ->
                                TestSupport.runWith(
                                        new ByteArrayInputStream(new byte[0]),
                                        Map.of("DEJA_OPEN_DEADLINE", "600"),
                                        "scan",
                                        "--format",
                                        "json",
                                        "-o",
                                        fifo.toString(),
                                        cfg.toString()));
        assertEquals(0, r.code(), r.err());
        assertEquals(0, TestSupport.json(read.get(1, TimeUnit.MINUTES)).at("/findings").size());
    }

    @Test
    void aMalformedOpenDeadlineIsAUsageError() {
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of("DEJA_OPEN_DEADLINE", "0"),
                        "scan",
                        "examples/");
        assertEquals(2, r.code(), r.err());
        assertEquals(
                "deja: DEJA_OPEN_DEADLINE=0: expected a number of seconds from 1 to 86400\n",
                r.err());
    }

    @Test
    void specialFilesInAFolderAreSkippedNeverOpened() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("conf"));
        Files.writeString(dir.resolve("haproxy.cfg"), CFG);
        Path fifo = mkfifo(dir.resolve("waiting.cfg")); // no writer: opening it would block forever
        Files.createSymbolicLink(dir.resolve("zero.yaml"), Path.of("/dev/zero"));
        TestSupport.Run r =
                assertTimeoutPreemptively(
                        HANG_GUARD,
                        () -> TestSupport.run("scan", "--format", "json", dir.toString()));
        assertEquals(0, r.code(), r.err());
        for (Path p : List.of(fifo, dir.resolve("zero.yaml"))) {
            assertTrue(
                    r.out()
                            .contains(
                                    "\"scope\" : \""
                                            + p
                                            + "\",\n      \"status\" : \"skipped\",\n      \"detail\" : "
                                            + "\"not a regular file: a pipe, device or socket\""),
                    r.out());
        }
        TestSupport.Run text =
                assertTimeoutPreemptively(
                        HANG_GUARD, () -> TestSupport.run("scan", dir.toString()));
        assertTrue(
                text.out()
                        .contains(
                                "Skipped (not a regular file: a pipe, device or socket): "
                                        + fifo
                                        + ", "
                                        + dir.resolve("zero.yaml")),
                text.out());
    }

    /**
     * A heap too small for the input: one line naming the heap and DEJA_JAVA_OPTS, exit 4, no
     * trace.
     */
    @Test
    void outOfMemoryIsOneLineAndExit4() throws Exception {
        Path big = tmp.resolve("big.cfg");
        String line = "  http-request set-header X-Pad " + "p".repeat(200) + "\n";
        try (var w = Files.newBufferedWriter(big)) {
            w.write(CFG);
            for (int i = 0; i < 200_000; i++) { // ~46 MB, in the backend
                w.write(line);
            }
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                java,
                                "-Xmx32m",
                                "-XX:TieredStopAtLevel=1",
                                "-cp",
                                System.getProperty("java.class.path"),
                                "dev.deja.Main",
                                "scan",
                                big.toString()));
        Process p =
                new ProcessBuilder(cmd)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(tmp.resolve("err.txt").toFile())
                        .start();
        assertTrue(p.waitFor(3, TimeUnit.MINUTES), "the scan ended");
        String err = Files.readString(tmp.resolve("err.txt"));
        assertEquals(4, p.exitValue(), err);
        assertTrue(
                err.startsWith("deja: out of memory (Java heap of ")
                        && err.contains("DEJA_JAVA_OPTS=-Xmx")
                        && err.lines().count() == 1,
                err);
    }

    static Path mkfifo(Path p) throws Exception {
        return TestSupport.mkfifo(p);
    }
}
