package dev.deja.source.helm;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Runs a child process (the chart renderer) with a deadline, a cap on its resident memory (the sum
 * of the process's and its descendants' RSS, polled: the Go renderer's memory is outside any JVM
 * heap, and a cgroup needs privileges) and a cap on what it prints. A bound that is hit kills the
 * process and its descendants and says which bound it was.
 */
final class BoundedProcess {
    /** How often the watchdog looks at the clock and the child's memory. */
    static final long POLL_MS = 50;

    /** At most this much of the child's stderr is kept (its first line is what matters). */
    static final int MAX_STDERR = 1 << 20;

    record Result(int exit, byte[] out, String err) {}

    /** A bound was hit: {@code what} says which, ready for "rendering ... stopped: WHAT". */
    static final class Bound extends Exception {
        private static final long serialVersionUID = 1L;

        Bound(String what) {
            super(what);
        }
    }

    private BoundedProcess() {}

    /**
     * Runs {@code command} with exactly {@code env} (nothing inherited), stdin from /dev/null, in
     * {@code dir}.
     */
    static Result run(
            List<String> command,
            Map<String, String> env,
            Path dir,
            long timeoutMs,
            long maxRssBytes,
            long maxOutBytes,
            String timeoutName,
            String memoryName)
            throws Bound, IOException {
        ProcessBuilder pb =
                new ProcessBuilder(command)
                        .directory(dir.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        CompletableFuture<byte[]> out = read(p.getInputStream(), maxOutBytes + 1);
        CompletableFuture<byte[]> err = read(p.getErrorStream(), MAX_STDERR);
        long start = System.nanoTime();
        try {
            while (true) {
                if (p.waitFor(POLL_MS, TimeUnit.MILLISECONDS)) {
                    break;
                }
                long elapsedMs = (System.nanoTime() - start) / 1_000_000;
                if (elapsedMs >= timeoutMs) {
                    kill(p);
                    throw new Bound(
                            "it did not finish within "
                                    + seconds(timeoutMs)
                                    + " ("
                                    + timeoutName
                                    + ")");
                }
                long rss = rss(p);
                if (rss > maxRssBytes) {
                    kill(p);
                    throw new Bound(
                            "it used more than "
                                    + (maxRssBytes >> 20)
                                    + " MiB of memory ("
                                    + memoryName
                                    + ")");
                }
                if (out.isDone() && out.getNow(new byte[0]).length > maxOutBytes) {
                    kill(p);
                    throw new Bound("its output is larger than " + (maxOutBytes >> 20) + " MiB");
                }
            }
            byte[] o = out.get(10, TimeUnit.SECONDS);
            if (o.length > maxOutBytes) {
                kill(p);
                throw new Bound("its output is larger than " + (maxOutBytes >> 20) + " MiB");
            }
            byte[] e = err.get(10, TimeUnit.SECONDS);
            return new Result(p.exitValue(), o, new String(e, StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            kill(p);
            Thread.currentThread().interrupt();
            throw new Bound("it was interrupted");
        } catch (ExecutionException | TimeoutException e) {
            // the process ended but a descendant keeps its output open: stop it
            kill(p);
            throw new IOException("cannot read the renderer's output: " + e);
        } finally {
            if (p.isAlive()) {
                kill(p);
            }
        }
    }

    static String seconds(long ms) {
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }

    private static CompletableFuture<byte[]> read(InputStream in, long max) {
        CompletableFuture<byte[]> f = new CompletableFuture<>();
        Thread t =
                new Thread(
                        () -> {
                            try (in) {
                                byte[] b =
                                        in.readNBytes((int) Math.min(max, Integer.MAX_VALUE - 8));
                                // past the cap: known at once (the watchdog kills the child);
                                // the rest is drained so the child never blocks on a full pipe
                                f.complete(b);
                                in.transferTo(OutputStream.nullOutputStream());
                            } catch (IOException e) {
                                f.complete(new byte[0]);
                            }
                        },
                        "deja-render-io");
        t.setDaemon(true);
        t.start();
        return f;
    }

    /** The process and its descendants, killed (descendants first). */
    static void kill(Process p) {
        try (Stream<ProcessHandle> d = p.descendants()) {
            d.forEach(ProcessHandle::destroyForcibly);
        }
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Resident memory of the process and its descendants in bytes: {@code /proc/PID/status} on
     * Linux; elsewhere (macOS) {@code ps -o rss=}; 0 when neither can tell.
     */
    static long rss(Process p) {
        long total = rssOf(p.pid());
        try (Stream<ProcessHandle> d = p.descendants()) {
            for (ProcessHandle h : (Iterable<ProcessHandle>) d::iterator) {
                total += rssOf(h.pid());
            }
        }
        return total;
    }

    static long rssOf(long pid) {
        Path status = Path.of("/proc/" + pid + "/status");
        if (Files.isDirectory(Path.of("/proc/self"))) {
            try {
                for (String l : Files.readAllLines(status, StandardCharsets.ISO_8859_1)) {
                    if (l.startsWith("VmRSS:")) {
                        return kib(l.substring(6));
                    }
                }
            } catch (IOException e) {
                return 0; // it has just ended
            }
            return 0;
        }
        try {
            Process ps =
                    new ProcessBuilder("ps", "-o", "rss=", "-p", Long.toString(pid))
                            .redirectErrorStream(true)
                            .start();
            byte[] b = ps.getInputStream().readNBytes(256);
            ps.waitFor(5, TimeUnit.SECONDS);
            return kib(new String(b, StandardCharsets.US_ASCII));
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    private static long kib(String s) {
        String digits = s.strip().split("\\s+")[0];
        try {
            return Long.parseLong(digits) * 1024;
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
