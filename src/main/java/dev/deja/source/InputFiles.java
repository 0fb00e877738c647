package dev.deja.source;

import dev.deja.engine.Catalog;
import dev.deja.engine.Coverage;
import dev.deja.engine.InputException;
import dev.deja.engine.SourceFile;
import dev.deja.engine.Suppressions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reading one input file, bounded: the scanned files and the small files deja reads besides them
 * (kubeconfig, token, ignore file, config, baseline). Every source reads through here.
 */
public final class InputFiles {
    private InputFiles() {}

    /** Largest file deja reads. */
    public static final long MAX_FILE_BYTES = 64L * 1024 * 1024;

    /**
     * With {@code --allow-partial}, one input that cannot be read, rendered or parsed is not the
     * end of the scan: its one-line message goes to stderr and becomes a coverage entry "failed"
     * (shown under "Not checked"), and the other inputs are scanned. Without it, or for an error
     * about an option ({@code --helm-values x: no such file}: the command line, not the input), the
     * error is thrown as before (exit 2).
     *
     * @param source the kind of the input when known (haproxy, kubernetes), else "files"
     * @param scope the input as the user would name it (the file, the chart folder)
     */
    public static Coverage.Entry failed(
            ScanRequest req, String source, String scope, InputException e) {
        String message = String.valueOf(e.getMessage());
        if (!req.allowPartial || message.startsWith("--")) {
            throw e;
        }
        req.err.println("deja: " + message);
        return new Coverage.Entry(source, scope, Coverage.Status.FAILED, message, -1);
    }

    /**
     * Reads a file as text; binary content (a NUL byte) and oversized files are input errors. The
     * size limit counts the bytes actually read (a pipe, a device or process substitution claims a
     * size of 0), never more than {@link #MAX_FILE_BYTES} + 1. A named pipe nothing opens for
     * writing is an input error after {@link OpenDeadline} (from the process environment).
     */
    public static SourceFile read(Path path, String display) {
        return read(path, display, OpenDeadline.millis(System.getenv()));
    }

    /**
     * As {@link #read(Path, String)}, waiting at most {@code openDeadlineMs} for a FIFO's writer.
     */
    public static SourceFile read(Path path, String display, long openDeadlineMs) {
        byte[] bytes;
        try {
            if (Files.isRegularFile(path) && Files.size(path) > MAX_FILE_BYTES) {
                throw new InputException(
                        display + ": file is larger than " + (MAX_FILE_BYTES >> 20) + " MiB");
            }
            try (InputStream in = OpenDeadline.open(path, openDeadlineMs)) {
                bytes = readBounded(in, display);
            }
        } catch (OpenDeadline.NoWriter e) {
            throw new InputException(display + ": " + e.getMessage());
        } catch (NoSuchFileException e) {
            throw new InputException(display + ": no such file or folder");
        } catch (AccessDeniedException e) {
            throw new InputException(display + ": permission denied");
        } catch (IOException e) {
            throw new InputException(display + ": cannot read: " + e.getMessage());
        }
        return new SourceFile(display, decode(display, bytes));
    }

    /**
     * A small file deja reads besides the scanned ones (kubeconfig, token, ignore file, config,
     * baseline) as UTF-8, bounded like scanned files by the bytes actually read: a pipe or {@code
     * /dev/zero} given as one of them ends, and a named pipe nothing writes to is an IOException
     * after {@link OpenDeadline}.
     */
    public static String readText(Path path) throws IOException {
        byte[] bytes;
        try (InputStream in = OpenDeadline.open(path, OpenDeadline.millis(System.getenv()))) {
            bytes = in.readNBytes((int) MAX_FILE_BYTES + 1);
        }
        if (bytes.length > MAX_FILE_BYTES) {
            throw new IOException("larger than " + (MAX_FILE_BYTES >> 20) + " MiB");
        }
        return StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes))
                .toString();
    }

    /**
     * At most {@link #MAX_FILE_BYTES} bytes of a stream; more is an input error (read no further
     * than one byte past).
     */
    public static byte[] readBounded(InputStream in, String display) throws IOException {
        byte[] bytes = in.readNBytes((int) MAX_FILE_BYTES + 1);
        if (bytes.length > MAX_FILE_BYTES) {
            throw new InputException(
                    display + ": input is larger than " + (MAX_FILE_BYTES >> 20) + " MiB");
        }
        return bytes;
    }

    public static String decode(String display, byte[] bytes) {
        if (bytes.length > MAX_FILE_BYTES) {
            throw new InputException(
                    display + ": input is larger than " + (MAX_FILE_BYTES >> 20) + " MiB");
        }
        String s = new String(bytes, StandardCharsets.UTF_8);
        // the String's own search (compiled early, as the JDK uses it everywhere) instead of a loop
        // over the bytes
        // here, which a short-lived JVM runs interpreted for its first tens of thousands of turns;
        // the line number is
        // counted only for the message. A NUL byte is a NUL char: UTF-8 encodes nothing else with a
        // 0 byte.
        int nul = s.indexOf('\0');
        if (nul >= 0) {
            int line = 1;
            for (int i = s.indexOf('\n'); i >= 0 && i < nul; i = s.indexOf('\n', i + 1)) {
                line++;
            }
            throw new InputException(
                    display
                            + ":"
                            + line
                            + ": binary file (NUL byte), not a configuration or manifest");
        }
        return s.startsWith("\uFEFF") ? s.substring(1) : s;
    }

    /** The ignore file ({@code --ignore-file}), read and parsed. */
    public static Suppressions suppressions(Path file, Catalog catalog) {
        String text;
        try {
            text = readText(file);
        } catch (NoSuchFileException e) {
            throw new InputException(file + ": ignore file not found");
        } catch (IOException e) {
            throw new InputException(file + ": cannot read ignore file: " + e.getMessage());
        }
        return Suppressions.parse(text, file.toString(), catalog);
    }
}
