package dev.deja.prove;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Starts deja prove's child processes from one thread that lives as long as deja. Linux's
 * parent-death signal ({@code PR_SET_PDEATHSIG}, set by {@code setpriv --pdeathsig} and {@code
 * bwrap --die-with-parent}) fires when the <em>thread</em> that started the child ends, not the
 * process: a child started from a short-lived worker thread would be killed when that thread ends,
 * and one started from the thread of a proof would outlive nothing. This thread never ends before
 * the JVM does, so the signal fires exactly when deja dies, however it dies (SIGKILL, the OOM
 * killer, a CI timeout).
 */
final class Launcher {
    private static final ExecutorService THREAD =
            Executors.newSingleThreadExecutor(
                    r -> {
                        Thread t = new Thread(r, "deja-prove-launcher");
                        t.setDaemon(true);
                        return t;
                    });

    private Launcher() {}

    static Process start(ProcessBuilder pb) throws IOException {
        Future<Process> f = THREAD.submit(pb::start);
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.cancel(false);
            throw new IOException("interrupted while starting " + pb.command().get(0));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException(e.getCause());
        }
    }
}
