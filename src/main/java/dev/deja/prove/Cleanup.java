package dev.deja.prove;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Everything a proof starts, stopped on every exit path: the haproxy processes, the stub and the
 * temporary folder. {@link #close()} on the normal paths; a JVM shutdown hook for Ctrl-C
 * (SIGINT/SIGTERM), removed again by close().
 */
final class Cleanup implements AutoCloseable {
    private final Path dir;
    private final List<Process> processes = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();
    private final Thread hook;
    private volatile boolean closed;

    /** The file in a sandbox folder that names the deja process it belongs to. */
    static final String OWNER = ".owner";

    Cleanup() throws IOException {
        dir = Files.createTempDirectory("deja-prove-");
        ProcessHandle me = ProcessHandle.current();
        Files.writeString(dir.resolve(OWNER), me.pid() + " " + startOf(me));
        removeStale(dir);
        hook = new Thread(this::cleanNow, "deja-prove-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    Path dir() {
        return dir;
    }

    boolean closed() {
        return closed;
    }

    /**
     * Registers a process to stop; one started after the clean-up ran (a race with Ctrl-C) is
     * stopped at once.
     */
    void add(Process p) {
        processes.add(p);
        if (closed) {
            stop(p);
        }
    }

    void add(AutoCloseable c) {
        closeables.add(c);
        if (closed) {
            try {
                c.close();
            } catch (Exception e) {
                // stopping anyway
            }
        }
    }

    /**
     * Stops one process now (TERM, then KILL after a second), and the processes under it: haproxy
     * runs under bubblewrap or setpriv, and outlives them for a moment when only they are stopped.
     * Each wait is bounded.
     */
    static void stop(Process p) {
        if (p == null || !p.isAlive()) {
            return;
        }
        List<ProcessHandle> under = p.toHandle().descendants().toList();
        p.destroy();
        try {
            if (!p.waitFor(1, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(2, TimeUnit.SECONDS);
            }
            for (ProcessHandle h : under) {
                stop(h);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            under.forEach(ProcessHandle::destroyForcibly);
            Thread.currentThread().interrupt();
        }
    }

    private static void stop(ProcessHandle h) throws InterruptedException {
        if (!h.isAlive()) {
            return;
        }
        h.destroy();
        try {
            h.onExit().get(1, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException
                | java.util.concurrent.ExecutionException e) {
            h.destroyForcibly();
            try {
                h.onExit().get(2, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException
                    | java.util.concurrent.ExecutionException gone) {
                // killed; the kernel reaps it
            }
        }
    }

    private synchronized void cleanNow() {
        if (closed) {
            return;
        }
        closed = true;
        for (Process p : processes) {
            stop(p);
        }
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception e) {
                // stopping anyway
            }
        }
        // the proof's own thread may still write into the folder while it is deleted (Ctrl-C
        // arrives mid-run):
        // walk it again until it is gone, a bounded number of times
        for (int attempt = 0; attempt < 20 && Files.exists(dir); attempt++) {
            delete(dir);
            if (Files.exists(dir)) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    delete(dir);
                    return;
                }
            }
        }
    }

    private static String startOf(ProcessHandle h) {
        return h.info().startInstant().map(Object::toString).orElse("?");
    }

    /**
     * Sandbox folders of deja processes that are gone (killed with SIGKILL, by the OOM killer or a
     * CI timeout: no hook ran; their haproxy died with them): removed, at most 100 per call. A
     * folder whose owner still runs, or that names no owner, is left alone.
     */
    static void removeStale(Path self) {
        Path tmp = self.getParent();
        java.nio.file.LinkOption nf = java.nio.file.LinkOption.NOFOLLOW_LINKS;
        try (var s = Files.newDirectoryStream(tmp, "deja-prove-*")) {
            var me = Files.getOwner(self, nf);
            int n = 0;
            for (Path d : s) {
                if (n++ >= 100) {
                    break;
                }
                Path owner = d.resolve(OWNER);
                // only real folders of this user, never a link another user left in /tmp
                if (!Files.isDirectory(d, nf)
                        || !Files.getOwner(d, nf).equals(me)
                        || !Files.isRegularFile(owner, nf)
                        || Files.size(owner) > 100) {
                    continue;
                }
                String[] w = Files.readString(owner).strip().split(" ");
                long pid;
                try {
                    pid = Long.parseLong(w[0]);
                } catch (NumberFormatException e) {
                    continue;
                }
                boolean alive =
                        ProcessHandle.of(pid)
                                .filter(ProcessHandle::isAlive)
                                .map(h -> w.length < 2 || startOf(h).equals(w[1]))
                                .orElse(false);
                if (!alive) {
                    delete(d);
                }
            }
        } catch (IOException | RuntimeException e) {
            // best effort: a folder that cannot be read is left
        }
    }

    static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try {
            Files.walkFileTree(
                    dir,
                    new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                                throws IOException {
                            Files.deleteIfExists(file);
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult postVisitDirectory(Path d, IOException exc)
                                throws IOException {
                            Files.deleteIfExists(d);
                            return FileVisitResult.CONTINUE;
                        }
                    });
        } catch (IOException e) {
            // best effort
        }
    }

    @Override
    public void close() {
        cleanNow();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // already shutting down
        }
    }
}
