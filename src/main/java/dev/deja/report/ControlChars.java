package dev.deja.report;

import java.util.Locale;

/** Text from inputs (object names, messages) made safe for a terminal or a CI log line. */
final class ControlChars {
    private ControlChars() {}

    /**
     * Control characters (a terminal escape in an object name, say) shown as \\xNN, never passed
     * through.
     */
    static String asHex(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ((c < 0x20 && c != '\n' && c != '\r') || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
                sb.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
