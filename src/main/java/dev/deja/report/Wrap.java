package dev.deja.report;

import java.util.ArrayList;
import java.util.List;

/**
 * Text broken into lines that fit a terminal's width, with a hanging indent: the first line after
 * its own prefix, the following ones after a continuation prefix (spaces lining them up under the
 * text). Lines break at spaces; a word longer than the room left is cut where the line ends. Colour
 * codes (ESC [ ... m) take no columns. A width of 0 or less leaves the text on one line.
 */
public final class Wrap {
    private Wrap() {}

    /** The smallest room left for text after a prefix: narrower prefixes give way to the text. */
    static final int MIN_TEXT = 20;

    /**
     * {@code first + text} broken to {@code width} columns, continuation lines starting with {@code
     * rest}; each returned line without its newline. The text holds no newline.
     */
    public static List<String> lines(String text, int width, String first, String rest) {
        List<String> out = new ArrayList<>();
        if (width <= 0 || visible(first) + visible(text) <= width) {
            out.add(first + text);
            return out;
        }
        String prefix = first;
        int pos = 0;
        int n = text.length();
        while (pos < n) {
            int room = Math.max(MIN_TEXT, width - visible(prefix));
            // the longest run from pos that fits in room visible columns, ending before a space
            int cols = 0;
            int i = pos;
            int lastSpace = -1;
            while (i < n) {
                char c = text.charAt(i);
                if (c == '\u001B') {
                    i = skipEscape(text, i);
                    continue;
                }
                if (c == ' ') {
                    lastSpace = i;
                }
                if (cols == room) {
                    break;
                }
                cols++;
                i++;
            }
            int end;
            int next;
            if (i >= n) {
                end = n;
                next = n;
            } else if (text.charAt(i) == ' ') {
                end = i;
                next = i + 1;
            } else if (lastSpace > pos) {
                end = lastSpace;
                next = lastSpace + 1;
            } else {
                end = i; // one word longer than the line: cut it
                next = i;
            }
            out.add(prefix + text.substring(pos, end).stripTrailing());
            pos = next;
            while (pos < n && text.charAt(pos) == ' ') {
                pos++;
            }
            prefix = rest;
        }
        return out;
    }

    /** {@code s} cut to {@code width} columns, ending with "..." when it was longer. */
    public static String cut(String s, int width) {
        if (width <= 0 || s.length() <= width) {
            return s;
        }
        return width <= 3 ? s.substring(0, width) : s.substring(0, width - 3) + "...";
    }

    /**
     * {@code s} cut to {@code width} columns in its middle ("frontend a (...ples/x.cfg:27)"): its
     * start and its end, where a location's file:line is, are kept.
     */
    public static String cutMiddle(String s, int width) {
        if (width <= 0 || s.length() <= width) {
            return s;
        }
        if (width <= 5) {
            return cut(s, width);
        }
        int tail = (width - 3) / 2;
        int head = width - 3 - tail;
        return s.substring(0, head) + "..." + s.substring(s.length() - tail);
    }

    /** Spaces as wide as {@code s} is on screen. */
    public static String blank(String s) {
        return " ".repeat(visible(s));
    }

    /** Columns {@code s} takes on a terminal: its characters but colour codes. */
    public static int visible(String s) {
        int cols = 0;
        for (int i = 0; i < s.length(); ) {
            if (s.charAt(i) == '\u001B') {
                i = skipEscape(s, i);
            } else {
                cols++;
                i++;
            }
        }
        return cols;
    }

    /** The index after an SGR sequence (ESC [ digits ; m) starting at {@code i}. */
    private static int skipEscape(String s, int i) {
        int j = i + 1;
        if (j < s.length() && s.charAt(j) == '[') {
            j++;
            while (j < s.length() && (Character.isDigit(s.charAt(j)) || s.charAt(j) == ';')) {
                j++;
            }
            if (j < s.length() && s.charAt(j) == 'm') {
                return j + 1;
            }
        }
        return i + 1;
    }
}
