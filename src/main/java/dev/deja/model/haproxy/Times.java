package dev.deja.model.haproxy;

import java.util.Locale;

/**
 * HAProxy time values: a number with an optional unit (us, ms, s, m, h, d); a bare number is
 * milliseconds.
 */
public final class Times {
    private Times() {}

    /** Milliseconds (microseconds rounded up), or -1 when the text is not a time value. */
    public static long millis(String text) {
        if (text == null || text.isEmpty()) {
            return -1;
        }
        int i = 0;
        int n = text.length();
        long v = 0;
        while (i < n && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
            v = v * 10 + (text.charAt(i) - '0');
            if (v > Long.MAX_VALUE / 100_000) {
                v = Long.MAX_VALUE / 100_000; // far past HAProxy's maximum: saturates below
            }
            i++;
        }
        if (i == 0) {
            return -1;
        }
        String unit = text.substring(i);
        long per =
                switch (unit) {
                    case "", "ms" -> 1;
                    case "us" -> 0;
                    case "s" -> 1000;
                    case "m" -> 60_000;
                    case "h" -> 3_600_000;
                    case "d" -> 86_400_000;
                    default -> -1;
                };
        if (per < 0) {
            return -1;
        }
        long ms = per == 0 ? (v + 999) / 1000 : v > MAX / per ? MAX : v * per;
        return Math.min(ms, MAX); // saturated: format() says so, never a wrapped-around number
    }

    /**
     * For a value that is not a time but starts with one (digits and a unit followed by more,
     * '5sec'), that time as HAProxy reads it ('5s'); null otherwise.
     */
    public static String unitPrefix(String text) {
        int i = 0;
        while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
            i++;
        }
        if (i == 0 || i == text.length()) {
            return null;
        }
        for (String unit : new String[] {"us", "ms", "s", "m", "h", "d"}) {
            if (text.startsWith(unit, i)) {
                return text.substring(0, i + unit.length());
            }
        }
        return null;
    }

    /**
     * The longest time HAProxy keeps (2^31-1 ms, about 24.8 days); longer values are read as this.
     */
    public static final long MAX = Integer.MAX_VALUE;

    /** "1s", "500ms", "2m", "1.5s" style rendering of milliseconds. */
    public static String format(long ms) {
        if (ms == 0) {
            return "0s";
        }
        if (ms >= MAX) {
            return "24.8 days (at least: HAProxy's longest time)";
        }
        if (ms % 86_400_000 == 0) {
            return ms / 86_400_000 + "d";
        }
        if (ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        if (ms > 1000) {
            return String.format(Locale.ROOT, "%.1fs", ms / 1000.0).replace(".0s", "s");
        }
        return ms + "ms";
    }
}
