package dev.deja.source;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Opens a file named by the user for reading without waiting forever for a FIFO's writer. Opening a
 * named pipe for reading blocks in open(2) until something opens it for writing; {@code mkfifo f;
 * deja scan f} with no writer would wait forever, as {@code cat f} does. A file that is not a
 * regular one (a FIFO, a device, {@code /dev/stdin}, {@code <(command)}) is opened on a daemon
 * thread and given {@value #DEFAULT_SECONDS} s ({@value #ENV}, 1 to 86400) to open; after that it
 * is an input error naming the path. Only the open is bounded: once a writer has the pipe open, it
 * may take its time (a {@code helm template} behind a process substitution).
 */
public final class OpenDeadline {
    public static final String ENV = "DEJA_OPEN_DEADLINE";
    public static final int DEFAULT_SECONDS = 30;

    private OpenDeadline() {}

    /**
     * The deadline in milliseconds; a value that is not a number of seconds from 1 to 86400 is a
     * usage error.
     */
    public static long millis(Map<String, String> env) {
        return ListDeadline.secondsMillis(env, ENV, DEFAULT_SECONDS);
    }

    /**
     * The open took longer than the deadline: a FIFO with no other end (the message names no path:
     * callers do).
     */
    public static final class NoWriter extends IOException {
        NoWriter(String message) {
            super(message);
        }
    }

    /**
     * The file open for reading: a regular file (or a folder, which fails as usual) at once;
     * anything else within {@code deadlineMs}, else {@link NoWriter}.
     */
    public static InputStream open(Path path, long deadlineMs) throws IOException {
        if (!special(path)) {
            return Files.newInputStream(path);
        }
        return within(
                path,
                deadlineMs,
                () -> Files.newInputStream(path),
                "a named pipe (FIFO) that nothing opened for writing within ");
    }

    /**
     * The file open for writing (created or truncated): a named pipe nothing opens for reading is
     * {@link NoWriter} after {@code deadlineMs} (as {@code deja scan -o fifo} with no reader),
     * anything else at once.
     */
    public static OutputStream create(Path path, long deadlineMs) throws IOException {
        if (!special(path)) {
            return Files.newOutputStream(path);
        }
        return within(
                path,
                deadlineMs,
                () -> Files.newOutputStream(path),
                "a named pipe (FIFO) that nothing opened for reading within ");
    }

    /** Writes the text as UTF-8 to the file (created or truncated), through {@link #create}. */
    public static void writeString(Path path, String text, long deadlineMs) throws IOException {
        try (OutputStream out = create(path, deadlineMs)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Whether the path (links followed) exists and is neither a regular file nor a folder. */
    private static boolean special(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class).isOther();
        } catch (IOException e) {
            return false; // absent or unreadable: opened as usual, failing the usual way
        }
    }

    private interface Opener<T extends Closeable> {
        T open() throws IOException;
    }

    // the closing stages chained on `opened` after a timeout run on their own; nothing waits on
    // them
    @SuppressWarnings("FutureReturnValueIgnored")
    private static <T extends Closeable> T within(
            Path path, long deadlineMs, Opener<T> opener, String what) throws IOException {
        CompletableFuture<T> opened = new CompletableFuture<>();
        Thread t =
                new Thread(
                        () -> {
                            try {
                                opened.complete(opener.open());
                            } catch (Throwable e) {
                                opened.completeExceptionally(e);
                            }
                        },
                        "deja-open");
        t.setDaemon(true);
        t.start();
        try {
            return opened.get(deadlineMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // should the other end come after all
            CompletableFuture<Void> closed = opened.thenAccept(OpenDeadline::closeQuietly);
            if (release(path)) {
                // the blocked open returns at once now; wait for its end to be closed, so that a
                // reader or writer coming later (another scan in the same process) never meets
                // this stale end: it counts as the pipe's other end until closed, and would hand
                // that reader an empty stream
                try {
                    closed.get(RELEASE_WAIT_MS, TimeUnit.MILLISECONDS);
                } catch (ExecutionException | TimeoutException ignored) {
                    // best effort: the open failed, or its thread has not run yet
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
            }
            throw new NoWriter(what + deadlineMs / 1000 + " s (" + ENV + ")");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IOException(String.valueOf(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            opened.thenAccept(OpenDeadline::closeQuietly);
            throw new InterruptedIOException("interrupted while opening");
        }
    }

    /**
     * Lets the thread blocked opening a FIFO go: on Linux, opening a FIFO for reading and writing
     * never blocks and gives the blocked reader its writer (or the blocked writer its reader); both
     * ends are then closed. Other systems: the daemon thread stays blocked until the process ends.
     * Whether it was released.
     */
    @SuppressWarnings("try") // the channel is opened only to be closed: that releases the reader
    private static boolean release(Path path) {
        try {
            Object mode = Files.getAttribute(path, "unix:mode");
            if (!(mode instanceof Integer m) || (m & 0170000) != 0010000 || !isLinux()) {
                return false;
            }
            try (FileChannel c =
                    FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                // opened and closed: the reader's open(2) returns
            }
            return true;
        } catch (IOException
                | UnsupportedOperationException
                | IllegalArgumentException
                | SecurityException e) {
            return false; // best effort
        }
    }

    /** How long a released open may take to return and be closed (it is one thread wake-up). */
    private static final long RELEASE_WAIT_MS = 10_000;

    private static boolean isLinux() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    }

    private static void closeQuietly(Closeable in) {
        try {
            in.close();
        } catch (IOException ignored) {
            // nothing read from it
        }
    }
}
