package dev.deja.source;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A file replaced whole or not at all: written to a temporary file beside it, then moved onto it;
 * an existing file's permissions are kept. A failed write (a full disk) leaves the old file and no
 * temporary one.
 */
public final class FileReplace {
    private FileReplace() {}

    /** Writes the contents to the stream of the temporary file. */
    @FunctionalInterface
    public interface Contents {
        void writeTo(OutputStream out) throws IOException;
    }

    /** The file replaced by one holding what {@code contents} writes. */
    public static void replace(Path file, Contents contents) throws IOException {
        Path abs = file.toAbsolutePath();
        Path tmp =
                abs.resolveSibling(
                        "."
                                + abs.getFileName()
                                + "."
                                + ProcessHandle.current().pid()
                                + "-"
                                + System.nanoTime()
                                + ".tmp");
        try {
            try (OutputStream out =
                    Files.newOutputStream(
                            tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                contents.writeTo(out);
            }
            if (Files.isRegularFile(abs, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    Files.setPosixFilePermissions(tmp, Files.getPosixFilePermissions(abs));
                } catch (UnsupportedOperationException e) {
                    // not a POSIX file system: its default permissions
                }
            }
            try {
                Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp); // gone once moved
        }
    }
}
