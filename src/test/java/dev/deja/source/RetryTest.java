package dev.deja.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** The retry policy on a fake clock: every wait is recorded, none is slept. */
class RetryTest {
    /** Nanoseconds of the fake clock; each wait moves it on. */
    private long now = 1_000_000_000L;

    private final List<Long> waits = new ArrayList<>();

    private Retry fake(Retry r) {
        return r.timedBy(
                ms -> {
                    waits.add(ms);
                    now += ms * 1_000_000L;
                },
                () -> now);
    }

    @Test
    void retriesThrottlingAndServerErrorsOnly() {
        assertTrue(Retry.retryable(429));
        assertTrue(Retry.retryable(500));
        assertTrue(Retry.retryable(503));
        for (int code : new int[] {200, 301, 400, 401, 403, 404, 409, 410}) {
            assertFalse(Retry.retryable(code), "HTTP " + code);
        }
    }

    @Test
    void connectionFailuresButNotTls() {
        assertTrue(Retry.connectionFailure(new ConnectException("refused")));
        assertTrue(Retry.connectionFailure(new HttpConnectTimeoutException("slow")));
        assertTrue(
                Retry.connectionFailure(
                        new RuntimeException(
                                "wrapped", new CompletionException(new IOException()))));
        assertFalse(Retry.connectionFailure(new RuntimeException("no I/O")));
        assertFalse(
                Retry.connectionFailure(
                        new IOException("tls", new SSLHandshakeException("PKIX path building"))));
    }

    @Test
    void theDefaultMakesFourAttemptsDoublingTheBackOff() throws InterruptedException {
        Retry.Attempts tries = fake(Retry.DEFAULT).start();
        int more = 0;
        while (tries.again(null)) {
            more++;
        }
        assertEquals(3, more);
        assertEquals(4, tries.made());
        assertEquals(List.of(250L, 500L, 1000L), waits);
    }

    @Test
    void attemptsAndBackOffArePerCaller() throws InterruptedException {
        Retry.Attempts tries = fake(Retry.DEFAULT.with(3, 500)).start();
        assertTrue(tries.again(null));
        assertTrue(tries.again(null));
        assertFalse(tries.again(null));
        assertEquals(3, tries.made());
        assertEquals(List.of(500L, 1000L), waits);
        Retry.Attempts once = fake(Retry.DEFAULT.with(1, 500)).start();
        assertFalse(once.again(null));
        assertEquals(1, once.made());
        assertThrows(IllegalArgumentException.class, () -> Retry.DEFAULT.with(0, 500));
    }

    @Test
    void retryAfterIsHonouredButBounded() {
        Retry r = Retry.DEFAULT;
        assertEquals(2_000, r.waitMillis(1, "2"));
        assertEquals(2_000, r.waitMillis(1, " 2 "));
        assertEquals(Retry.MAX_RETRY_AFTER_MS, r.waitMillis(1, "3600"), "at most 5 s");
        assertEquals(250, r.waitMillis(1, "0"), "never shorter than the back-off");
        assertEquals(500, r.waitMillis(2, "-3"));
        assertEquals(1_000, r.waitMillis(3, "Wed, 21 Oct 2015 07:28:00 GMT"), "a date: back-off");
        assertEquals(1_000, r.waitMillis(3, null));
    }

    @Test
    void noWaitEndsPastTheDeadline() throws InterruptedException {
        long deadline = now + 600 * 1_000_000L; // 600 ms from now
        Retry.Attempts tries = fake(Retry.DEFAULT).start(deadline);
        assertTrue(tries.again(null)); // 250 ms: ends at 250
        assertFalse(tries.again(null), "500 ms more would end at 750 ms, past 600");
        assertEquals(2, tries.made());
        assertEquals(List.of(250L), waits);
        Retry.Attempts throttled = fake(Retry.DEFAULT).start(now + 1_000 * 1_000_000L);
        assertFalse(throttled.again("5"), "a Retry-After past the deadline is not waited for");
    }

    @Test
    void theRealSleeperWaitsBriefly() throws InterruptedException {
        Retry.Attempts tries = Retry.DEFAULT.with(2, 1).start(System.nanoTime() + 60_000_000_000L);
        assertTrue(tries.again(null));
        assertFalse(tries.again(null));
    }
}
