package dev.deja.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.deja.engine.Coverage;
import dev.deja.engine.InputException;
import dev.deja.source.ScanRequest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A subfolder without read permission, met while walking a folder (Files.walk wraps the
 * AccessDeniedException in an UncheckedIOException): the line names that subfolder, not
 * "java.nio.file.AccessDeniedException". Tested on the exception itself, because chmod 000 does not
 * stop root, and the build may run as root.
 */
class FolderErrorTest {
    @Test
    void deniedSubfolderIsNamedPlainly() {
        Path dir = Path.of("conf");
        assertEquals(
                "conf/private: permission denied",
                Inputs.folderError(
                                dir,
                                new UncheckedIOException(new AccessDeniedException("conf/private")))
                        .getMessage());
    }

    private static ScanRequest request(boolean allowPartial, StringWriter err) {
        ScanRequest.Builder b = ScanRequest.builder();
        b.allowPartial = allowPartial;
        b.err = new PrintWriter(err, true);
        return b.build();
    }

    /**
     * The walk's answer to a subfolder it cannot open, as Files.walkFileTree reports it (the same
     * trick: no chmod, so it holds as root; PartialInputsTest has the real mode-000 folder).
     */
    @Test
    void deniedSubfolderStopsTheWalkWithoutAllowPartial() {
        StringWriter err = new StringWriter();
        Inputs.FolderWalk w = new Inputs.FolderWalk(Path.of("conf"), request(false, err));
        InputException e =
                assertThrows(
                        InputException.class,
                        () ->
                                w.visitFileFailed(
                                        Path.of("conf/private"),
                                        new AccessDeniedException("conf/private")));
        assertEquals("conf/private: permission denied", e.getMessage());
        assertEquals("", err.toString());
    }

    @Test
    void deniedSubfolderIsNotCheckedWithAllowPartial() {
        StringWriter err = new StringWriter();
        Inputs.FolderWalk w = new Inputs.FolderWalk(Path.of("conf"), request(true, err));
        assertEquals(
                FileVisitResult.CONTINUE,
                w.visitFileFailed(
                        Path.of("conf/private"), new AccessDeniedException("conf/private")));
        // a hidden one is never read, so never reported
        w.visitFileFailed(Path.of("conf/.git"), new AccessDeniedException("conf/.git"));
        assertEquals(
                List.of(
                        new Coverage.Entry(
                                "files",
                                "conf/private",
                                Coverage.Status.FAILED,
                                "conf/private: permission denied",
                                -1)),
                w.unopened);
        assertEquals("deja: conf/private: permission denied", err.toString().strip());
    }
}
