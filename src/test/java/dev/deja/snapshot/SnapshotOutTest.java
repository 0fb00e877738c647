package dev.deja.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * --snapshot-out: a regular file is replaced whole (temporary file + move); a named pipe is written
 * into when a reader comes, within DEJA_OPEN_DEADLINE, as -o does.
 */
class SnapshotOutTest {
    @TempDir Path tmp;

    private static final Duration HANG_GUARD = Duration.ofMinutes(3);
    private static final String MANIFEST = "examples/kubernetes/il-0053-risky-ingress-nginx.yaml";

    private static TestSupport.Run scan(String deadline, Path snapshotOut) {
        return assertTimeoutPreemptively(
                HANG_GUARD,
                () ->
                        TestSupport.runWith(
                                new ByteArrayInputStream(new byte[0]),
                                Map.of("DEJA_OPEN_DEADLINE", deadline),
                                "scan",
                                "--fail-on",
                                "none",
                                "--snapshot-out",
                                snapshotOut.toString(),
                                MANIFEST));
    }

    /** What a saved snapshot must hold: the manifest's Deployment, readable by a later scan. */
    private static void assertSnapshot(String text) {
        assertEquals("deja-snapshot", TestSupport.json(text).path("format").asString(), text);
        assertTrue(
                TestSupport.json(text).at("/parts/kubernetes/workloads").size() > 0,
                "the manifest's workloads are in the snapshot: " + text);
    }

    @Test
    void aNamedPipeGetsTheSnapshotWrittenIntoIt() throws Exception {
        Path fifo = TestSupport.mkfifo(tmp.resolve("snap.json"));
        CompletableFuture<String> read = new CompletableFuture<>();
        Thread reader =
                new Thread(
                        () -> { // cat snap.json
                            try (InputStream in = Files.newInputStream(fifo)) {
                                read.complete(
                                        new String(in.readAllBytes(), StandardCharsets.UTF_8));
                            } catch (Exception e) {
                                read.completeExceptionally(e);
                            }
                        },
                        "snapshot-reader");
        reader.setDaemon(true);
        reader.start();
        TestSupport.Run r = scan("600", fifo);
        assertEquals(0, r.code(), r.err());
        assertSnapshot(read.get(1, TimeUnit.MINUTES));
        assertTrue(
                !Files.isRegularFile(fifo) && Files.exists(fifo),
                "the named pipe is still a named pipe, not replaced by a file");
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(fifo), left.toList(), "no temporary file left next to it");
        }
    }

    @Test
    void aNamedPipeNothingReadsIsOneLineAfterTheDeadline() throws Exception {
        Path fifo = TestSupport.mkfifo(tmp.resolve("nobody.json"));
        TestSupport.Run r = scan("1", fifo);
        assertEquals(2, r.code(), r.err());
        assertEquals(
                "deja: "
                        + fifo
                        + ": cannot write snapshot: a named pipe (FIFO) that nothing opened for"
                        + " reading within 1 s (DEJA_OPEN_DEADLINE)\n",
                r.err());
    }

    @Test
    void aRegularFileIsReplacedWholeKeepingItsPermissions() throws Exception {
        Path snap = tmp.resolve("snap.json");
        Files.writeString(snap, "old\n".repeat(100_000)); // longer than the snapshot
        Files.setPosixFilePermissions(snap, PosixFilePermissions.fromString("rw-r-----"));
        Object inode = Files.getAttribute(snap, "unix:ino");
        TestSupport.Run r = scan("600", snap);
        assertEquals(0, r.code(), r.err());
        assertSnapshot(Files.readString(snap));
        assertNotEquals(inode, Files.getAttribute(snap, "unix:ino"), "a new file moved onto it");
        assertEquals(
                "rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(snap)));
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(snap), left.toList(), "no temporary file left next to it");
        }
        TestSupport.Run again = TestSupport.run("scan", "--fail-on", "none", snap.toString());
        assertEquals(0, again.code(), "the saved snapshot scans: " + again.err());
    }

    @Test
    void aLinkIsWrittenThroughAndStaysALink() throws Exception {
        Path target = Files.writeString(tmp.resolve("real.json"), "old\n");
        Path link = Files.createSymbolicLink(tmp.resolve("link.json"), target);
        TestSupport.Run r = scan("600", link);
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.isSymbolicLink(link), "the link is kept");
        assertSnapshot(Files.readString(target));
    }
}
