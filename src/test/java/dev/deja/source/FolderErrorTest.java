package dev.deja.source;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
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
}
