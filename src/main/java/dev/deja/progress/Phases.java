package dev.deja.progress;

import java.io.Writer;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Long work told in phases ("deja: prove: before: haproxy on 127.0.0.1:41234"): each line written
 * here becomes the status line, with the seconds the phase has run, counted once a second ("... - 5
 * s"). Lines are not kept: the terminal's first screen after the work is its report. Close it when
 * the work ends: the counting stops and the line is erased.
 */
public final class Phases extends Writer {
    private final StatusLine line;
    private final LongSupplier nanos;
    private final StringBuilder pending = new StringBuilder();
    private final ScheduledExecutorService ticker;
    private String phase = "";
    private long since;

    /** On {@code line}, counting with the system clock once a second. */
    public Phases(StatusLine line) {
        this(line, System::nanoTime, true);
    }

    /** With a clock of its own, and no ticking thread when {@code tick} is false (tests). */
    Phases(StatusLine line, LongSupplier nanos, boolean tick) {
        this.line = line;
        this.nanos = nanos;
        this.since = nanos.getAsLong();
        if (tick) {
            ticker =
                    Executors.newSingleThreadScheduledExecutor(
                            r -> {
                                Thread t = new Thread(r, "deja-progress");
                                t.setDaemon(true);
                                return t;
                            });
            ticker.scheduleAtFixedRate(this::show, 1, 1, TimeUnit.SECONDS);
        } else {
            ticker = null;
        }
    }

    /** Shows the phase with its seconds so far. */
    synchronized void show() {
        if (!phase.isEmpty()) {
            long s = (nanos.getAsLong() - since) / 1_000_000_000L;
            line.status(s > 0 ? phase + " - " + s + " s" : phase);
        }
    }

    @Override
    public synchronized void write(char[] buf, int off, int len) {
        for (int i = off; i < off + len; i++) {
            char c = buf[i];
            if (c == '\n') {
                phase = pending.toString().strip();
                pending.setLength(0);
                since = nanos.getAsLong();
                show();
            } else if (c != '\r') {
                pending.append(c);
            }
        }
    }

    @Override
    public void flush() {}

    @Override
    public synchronized void close() {
        if (ticker != null) {
            ticker.shutdownNow();
        }
        phase = "";
        line.clear();
    }
}
