package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.ByteArrayInputStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The text and table reports fit the terminal's width (COLUMNS injected here, as a shell exporting
 * it would; no tty needed) and are left unwrapped when piped without it.
 */
class TerminalWidthTest {
    private static final String CFG = "examples/haproxy/il-0264-before.cfg";

    private static TestSupport.Run scan(Map<String, String> env, String... more) {
        String[] args = new String[more.length + 4];
        args[0] = "scan";
        args[1] = CFG;
        args[2] = "--fail-on";
        args[3] = "none";
        System.arraycopy(more, 0, args, 4, more.length);
        return TestSupport.runWith(new ByteArrayInputStream(new byte[0]), env, args);
    }

    private static int longest(String text) {
        return text.lines().mapToInt(String::length).max().orElse(0);
    }

    /** The words of a report in order: wrapping only moves line breaks. */
    private static List<String> words(String text) {
        return List.of(text.strip().split("\\s+"));
    }

    @Test
    void textWrapsToColumnsAndKeepsEveryWord() {
        String piped = scan(Map.of()).out();
        assertTrue(longest(piped) > 160, "piped without COLUMNS: unwrapped, as before\n" + piped);
        for (int cols : new int[] {160, 100, 72}) {
            String wrapped = scan(Map.of("COLUMNS", Integer.toString(cols))).out();
            assertTrue(longest(wrapped) <= cols, cols + " columns:\n" + wrapped);
            assertEquals(words(piped), words(wrapped), "the same words at " + cols);
        }
    }

    @Test
    void hangingIndentsKeepTheLayout() {
        List<String> lines = scan(Map.of("COLUMNS", "100")).out().lines().toList();
        int fix = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("      fix: Answer rate-limited requests")) {
                fix = i;
            }
        }
        assertTrue(fix >= 0, String.join("\n", lines));
        // the fix's next line lines up under its text, after "      fix: "
        assertTrue(lines.get(fix + 1).startsWith(" ".repeat(11)), lines.get(fix + 1));
        assertFalse(lines.get(fix + 1).startsWith(" ".repeat(12)), lines.get(fix + 1));
        // the case's story is indented by two on every line
        int story =
                lines.indexOf(
                        lines.stream()
                                .filter(l -> l.startsWith("IL-0264"))
                                .findFirst()
                                .orElseThrow());
        assertTrue(
                lines.get(story + 1).startsWith("  One misconfigured client"),
                lines.get(story + 1));
        assertTrue(
                lines.get(story + 2).startsWith("  ") && !lines.get(story + 2).startsWith("   "));
    }

    @Test
    void columnsZeroTurnsWrappingOff() {
        assertEquals(scan(Map.of()).out(), scan(Map.of("COLUMNS", "0")).out());
    }

    @Test
    void tableRowsFitAndKeepTheObjectsLine() {
        String piped = scan(Map.of(), "--format", "table").out();
        assertTrue(longest(piped) > 200, piped);
        String table = scan(Map.of("COLUMNS", "120"), "--format", "table").out();
        assertTrue(longest(table) <= 120, table);
        List<String> rows = table.lines().toList();
        assertTrue(rows.get(0).startsWith("SEVERITY"), table);
        String tarpit =
                rows.stream()
                        .filter(l -> l.contains("haproxy-tarpit-holds-slots"))
                        .findFirst()
                        .orElseThrow();
        // the object is cut in its middle: its start and its file:line remain
        assertTrue(tarpit.contains("frontend hc_") && tarpit.contains(".cfg:31)"), tarpit);
        assertTrue(tarpit.stripTrailing().endsWith("..."), tarpit);
    }

    @Test
    void wrapCountsNoColourCodesAndCutsWordsLongerThanALine() {
        String red = "\u001B[31m";
        String reset = "\u001B[0m";
        List<String> l = Wrap.lines(red + "aaaa bbbb" + reset + " cccc", 30, "", "  ");
        assertEquals(1, l.size(), "14 visible columns fit in 30: " + l);
        List<String> cut = Wrap.lines("x".repeat(50), 30, "> ", "  ");
        assertEquals(List.of("> " + "x".repeat(28), "  " + "x".repeat(22)), cut);
        assertEquals(
                List.of("alpha beta gamma delta", "  epsilon zeta eta theta"),
                Wrap.lines("alpha beta gamma delta epsilon zeta eta theta", 24, "", "  "));
    }
}
