package dev.deja.haproxy;

/** HAProxy time values: a number with an optional unit (us, ms, s, m, h, d); a bare number is milliseconds. */
public final class Times {
    private Times() {
    }

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
                return -1;
            }
            i++;
        }
        if (i == 0) {
            return -1;
        }
        String unit = text.substring(i);
        return switch (unit) {
            case "", "ms" -> v;
            case "us" -> (v + 999) / 1000;
            case "s" -> v * 1000;
            case "m" -> v * 60_000;
            case "h" -> v * 3_600_000;
            case "d" -> v * 86_400_000;
            default -> -1;
        };
    }

    /** "1s", "500ms", "2m", "1.5s" style rendering of milliseconds. */
    public static String format(long ms) {
        if (ms == 0) {
            return "0s";
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
            return String.format(java.util.Locale.ROOT, "%.1fs", ms / 1000.0).replace(".0s", "s");
        }
        return ms + "ms";
    }
}
