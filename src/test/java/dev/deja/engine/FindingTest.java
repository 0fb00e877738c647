package dev.deja.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The fingerprint's masking is hand-written for speed; these regexes are what it was and must stay
 * equal to (a baseline written before keeps matching): checked on examples and on 50,000 generated
 * messages.
 */
class FindingTest {
    private static final Pattern NUMBER = Pattern.compile("\\d+");
    private static final Pattern FILE_LINE =
            Pattern.compile("(\\.[A-Za-z0-9_-]+|#[^\\s:]+):\\d+(?::\\d+)?");
    private static final Pattern LINE_WORD =
            Pattern.compile("(?i)\\b(lines?) \\d+(?:(?:-|\\.\\.| and | to )\\d+)?");

    private static String regexWithoutLineNumbers(String m) {
        return LINE_WORD.matcher(FILE_LINE.matcher(m).replaceAll("$1")).replaceAll("$1 _");
    }

    private static void same(String m) {
        String lines = regexWithoutLineNumbers(m);
        assertEquals(
                lines,
                Finding.withoutLineNumbers(m),
                () -> "withoutLineNumbers of " + printable(m));
        assertEquals(
                NUMBER.matcher(lines).replaceAll("#"),
                Finding.maskNumbers(lines),
                () -> "maskNumbers of " + printable(m));
    }

    @Test
    void examplesAreMaskedAsTheRegexesDid() {
        List<String> examples =
                List.of(
                        "frontend fe_0 tarpits requests ('http-request tarpit if abuse' at /tmp/x/haproxy.cfg:23): tarpit holds"
                                + " each request 10s (timeout tarpit at /tmp/x/haproxy.cfg:22); one client at 300 req/s holds 50"
                                + " (wants 3000) of 50 slots (6000%; maxconn 50 at /tmp/x/haproxy.cfg:18)",
                        "see line 12, lines 3-5, Lines 3..5, LINES 3 and 5, line 3 to 5, lines 3 TO 5, line 7 AND 8",
                        "kustomization.yaml#haproxy.cfg:12:5 and cm.yaml#key:3 and a.b.c:4 and .x:1:2:3",
                        "outline 5, line5, line  5, 1line 5, _line 5, éline 5, \u0301line 5, a\u0301line 5, ıine 5, lıne 5",
                        "line 5-, line 5..x, line 5 and x, line 5 to, lines 1-2-3, line 3 and 4 to 5",
                        ".:1 #:1 # x:1 #x:1 .-_:9 .é:1 .a: 1 .a:x line 4 line");
        for (String m : examples) {
            same(m);
        }
        assertEquals("", Finding.withoutLineNumbers(null));
        assertEquals(
                "m.cfg ('x' at m.cfg), line _ and lines _",
                Finding.withoutLineNumbers("m.cfg:1 ('x' at m.cfg:2:3), line 4 and lines 5-6"));
        assertEquals("a # b #.# c", Finding.maskNumbers("a 12 b 3.45 c"));
    }

    @Test
    void generatedMessagesAreMaskedAsTheRegexesDid() {
        // JDK 19 changed \b to ASCII word characters (JDK-8264160); the masking keeps JDK 17's rule
        // (any letter or
        // digit), so on a newer JDK only ASCII text is compared
        boolean jdk17Boundary = Runtime.version().feature() < 19;
        String[] pieces = {
            "line",
            "Line",
            "LINES",
            "lines",
            "lInE",
            "s",
            "S",
            " ",
            "  ",
            "\t",
            "\n",
            "0",
            "12",
            "345",
            "-",
            "..",
            ".",
            ":",
            "#",
            " and ",
            " AND ",
            " to ",
            " To ",
            "a",
            "x",
            "_",
            "cfg",
            "yaml",
            "(",
            ")",
            "'",
            "/",
            "%",
            ",",
            ";",
            "é",
            "ı",
            "\u0301",
            "\u212A",
            "\uD835\uDC00",
            "\uD834\uDD67",
            "\uD800",
            "\uDC00",
            "ſ",
            "٣"
        };
        Random r = new Random(17);
        for (int k = 0; k < 50_000; k++) {
            StringBuilder sb = new StringBuilder();
            int parts = 1 + r.nextInt(12);
            for (int p = 0; p < parts; p++) {
                String piece = pieces[r.nextInt(pieces.length)];
                if (!jdk17Boundary && piece.chars().anyMatch(c -> c >= 128)) {
                    continue;
                }
                sb.append(piece);
            }
            same(sb.toString());
        }
    }

    @Test
    void theFingerprintMasksLinesAndNumbersAndTheKeyWinsOverTheMessage() {
        Location loc = Location.section("haproxy.cfg", 12, "frontend", "fe");
        String a = Finding.fingerprint("r", loc, null, "maxconn 50 at haproxy.cfg:12 (line 12)");
        assertEquals("r|frontend/null/fe|haproxy.cfg|m:maxconn # at haproxy.cfg (line _)", a);
        assertEquals(
                a, Finding.fingerprint("r", loc, null, "maxconn 70 at haproxy.cfg:40 (line 40)"));
        assertEquals(
                "r|frontend/null/fe|haproxy.cfg|k:slots",
                Finding.fingerprint("r", loc, "slots", "maxconn 50"));
        assertEquals(
                "r|frontend/null/fe|haproxy.cfg|maxconn 50 at haproxy.cfg (line _)",
                Finding.legacyFingerprint("r", loc, "maxconn 50 at haproxy.cfg:12 (line 12)"));
    }

    private static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        s.codePoints()
                .forEach(
                        c ->
                                sb.append(
                                        c >= 32 && c < 127
                                                ? String.valueOf((char) c)
                                                : String.format("\\u%04X", c)));
        return sb.toString();
    }
}
