package dev.deja.source;

import java.io.IOException;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLException;

/**
 * deja's one retry policy for HTTP APIs (the Kubernetes lists, the report ConfigMap): which answers
 * are retried ({@link #retryable(int) 429 and 5xx}, and for callers that choose to, {@link
 * #connectionFailure connection failures}), how many attempts in all, an exponential back-off
 * (doubling from {@code backoffMs}), a {@code Retry-After} in seconds honoured but never shorter
 * than the back-off nor longer than {@code maxRetryAfterMs}, and an overall deadline: no wait ends
 * past it. The clock and the sleeper are injectable (tests never sleep).
 *
 * <p>Callers keep their own loop (what an attempt is, and what a final failure says, differ) and
 * ask an {@link Attempts} whether to go on: {@code if (Retry.retryable(code) &&
 * tries.again(retryAfter)) continue;}.
 *
 * <p>The AWS clients use the SDK's own retry strategy instead, with {@link #ATTEMPTS} attempts.
 */
public final class Retry {
    /** Attempts in all for a list call (Kubernetes, AWS). */
    public static final int ATTEMPTS = 4;

    /** The first back-off of a list call; it doubles after each attempt. */
    public static final long BACKOFF_MS = 250;

    /** The longest wait a {@code Retry-After} can ask for. */
    public static final long MAX_RETRY_AFTER_MS = 5_000;

    /** Waits; {@link Thread#sleep} but for tests. */
    public interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    /** The default policy: {@value #ATTEMPTS} attempts, back-off from {@value #BACKOFF_MS} ms. */
    public static final Retry DEFAULT =
            new Retry(ATTEMPTS, BACKOFF_MS, MAX_RETRY_AFTER_MS, Thread::sleep, System::nanoTime);

    private final int attempts;
    private final long backoffMs;
    private final long maxRetryAfterMs;
    private final Sleeper sleeper;
    private final LongSupplier nanoTime;

    private Retry(
            int attempts,
            long backoffMs,
            long maxRetryAfterMs,
            Sleeper sleeper,
            LongSupplier nanoTime) {
        if (attempts < 1 || backoffMs < 0 || maxRetryAfterMs < 0) {
            throw new IllegalArgumentException(
                    "attempts " + attempts + ", back-off " + backoffMs + " ms");
        }
        this.attempts = attempts;
        this.backoffMs = backoffMs;
        this.maxRetryAfterMs = maxRetryAfterMs;
        this.sleeper = sleeper;
        this.nanoTime = nanoTime;
    }

    /** This policy with {@code attempts} attempts in all and the first back-off {@code ms}. */
    public Retry with(int attempts, long backoffMs) {
        return new Retry(attempts, backoffMs, maxRetryAfterMs, sleeper, nanoTime);
    }

    /** This policy waiting through {@code sleeper} and reading the time from {@code nanoTime}. */
    public Retry timedBy(Sleeper sleeper, LongSupplier nanoTime) {
        return new Retry(attempts, backoffMs, maxRetryAfterMs, sleeper, nanoTime);
    }

    public int attempts() {
        return attempts;
    }

    /** 429 Too Many Requests and every 5xx: the server may answer the same request later. */
    public static boolean retryable(int code) {
        return code == 429 || code >= 500;
    }

    /**
     * The request failed before any answer (refused, reset, timed out, unknown host): an {@link
     * IOException} in the chain and no {@link SSLException} (a TLS failure is the same next time).
     */
    public static boolean connectionFailure(Throwable e) {
        boolean io = false;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SSLException) {
                return false;
            }
            io |= t instanceof IOException;
        }
        return io;
    }

    /**
     * The wait after attempt {@code attempt} (1 for the first): the back-off, or the answer's
     * {@code Retry-After} seconds (null when none) when longer, at most {@link
     * #MAX_RETRY_AFTER_MS}; an HTTP date is not read (the back-off then).
     */
    public long waitMillis(int attempt, String retryAfter) {
        long backoff = backoffMs << Math.min(attempt - 1, 20);
        if (retryAfter != null) {
            try {
                long asked = Long.parseLong(retryAfter.trim());
                return Math.min(
                        Math.max(maxRetryAfterMs, backoff), Math.max(backoff, asked * 1000));
            } catch (NumberFormatException ignored) {
                // an HTTP date: the back-off
            }
        }
        return backoff;
    }

    /** A series of attempts with no deadline but the number of attempts. */
    public Attempts start() {
        return new Attempts(Long.MAX_VALUE, false);
    }

    /** A series of attempts that waits past no {@code deadlineNanos} (of the policy's clock). */
    public Attempts start(long deadlineNanos) {
        return new Attempts(deadlineNanos, true);
    }

    /** One request's attempts: the first is being made when the series starts. */
    public final class Attempts {
        private final long deadline;
        private final boolean bounded;
        private int made = 1;

        private Attempts(long deadline, boolean bounded) {
            this.deadline = deadline;
            this.bounded = bounded;
        }

        /** The attempts made so far, the current one included. */
        public int made() {
            return made;
        }

        /**
         * After an attempt that failed in a way worth retrying: waits ({@link #waitMillis}) and
         * returns true for one more attempt, or returns false at once when every attempt is spent
         * or the wait would end past the deadline.
         */
        public boolean again(String retryAfter) throws InterruptedException {
            if (made >= attempts) {
                return false;
            }
            long wait = waitMillis(made, retryAfter);
            if (bounded && nanoTime.getAsLong() + wait * 1_000_000L - deadline > 0) {
                return false;
            }
            sleeper.sleep(wait);
            made++;
            return true;
        }
    }
}
