package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Issue 17 (10): a time too large for HAProxy saturates at its maximum and says so, never wraps
 * around.
 */
class TimesOverflowTest {
    @Test
    void hugeTimesSaturate() {
        assertEquals(Times.MAX, Times.millis("640511947004d"));
        assertEquals(Times.MAX, Times.millis("30d"));
        assertEquals(Times.MAX, Times.millis("99999999999999s"));
        assertEquals(86_400_000L, Times.millis("1d"));
        assertEquals(2L, Times.millis("1001us"));
        assertEquals(
                "24.8 days (at least: HAProxy's longest time)",
                Times.format(Times.millis("640511947004d")));
        assertEquals("1d", Times.format(86_400_000L));
    }
}
