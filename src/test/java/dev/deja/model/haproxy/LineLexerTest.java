package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The lexer alone: one line into words, comments, variables, and the line's arguments as written.
 */
class LineLexerTest {
    private final LineLexer lexer = new LineLexer(Map.of("NAME", "v a l", "EMPTY", "")::get);

    private List<String> words(String line) {
        lexer.lex(line, 0, line.length(), "t.cfg", 7);
        return List.copyOf(lexer.words());
    }

    @Test
    void wordsQuotesAndEscapes() {
        assertEquals(
                List.of("log", "127.0.0.1:514", "local0"),
                words("  log\t127.0.0.1:514   local0  "));
        assertEquals(List.of("a b", "c"), words("\"a b\" c"));
        assertEquals(
                List.of("abcdef"),
                words("\"ab\"'cd'ef"),
                "quoted and plain parts side by side are one word");
        assertEquals(List.of("a b", "#c", "x\\y", "q'\""), words("a\\ b \\#c x\\\\y q\\'\\\""));
        assertEquals(List.of("\n\r\t", "AZ"), words("\\n\\r\\t \\x41\\x5a"));
        assertEquals(
                List.of("^/a\\.b$"), words("^/a\\.b$"), "an unknown escape keeps its backslash");
        assertEquals(
                List.of("$NAME \\n"),
                words("'$NAME \\n'"),
                "strong quotes: no escape, no variable");
        assertEquals(List.of("", "x"), words("\"\" x"), "an empty quoted word is a word");
        assertEquals(List.of(), words(" \t "));
    }

    /**
     * Issue 17 (6): the words as written keep every variable that had a value, one for one with the
     * words.
     */
    @Test
    void wordsAsWrittenKeepVariables() {
        assertEquals(
                List.of("acl", "a", "hdr(x)", "-m", "str", "v a l!"),
                words("acl a hdr(x) -m str \"${NAME}!\""));
        assertEquals(List.of("acl", "a", "hdr(x)", "-m", "str", "${NAME}!"), lexer.written());
        words("x \"$NAME\" \"${EMPTY}\" \"${UNSET-dflt}\" '${NAME}' plain");
        assertEquals(List.of("x", "v a l", "", "dflt", "${NAME}", "plain"), lexer.words());
        assertEquals(
                List.of("x", "$NAME", "${EMPTY}", "${UNSET-dflt}", "${NAME}", "plain"),
                lexer.written());
        words("x \"${UNSET}\" y");
        assertNull(lexer.written(), "no variable had a value: the words are as written");
        assertEquals(List.of("UNSET"), lexer.unresolved());
    }

    @Test
    void commentsStartAtAnUnprotectedHash() {
        assertEquals(List.of("a"), words("a#b"));
        assertEquals(2, lexer.commentStart(), "index just after '#'");
        assertEquals(List.of("a#b"), words("'a#b'"));
        assertEquals(-1, lexer.commentStart());
        assertEquals(List.of(), words("# only a comment"));
        assertEquals(1, lexer.commentStart());
    }

    @Test
    void variablesExpandInDoubleQuotesOnly() {
        assertEquals(
                List.of("v a l", "v a l!", "$NAME", ""),
                words("\"$NAME\" \"${NAME}!\" $NAME \"$EMPTY\""));
        assertEquals(List.of(), lexer.unresolved());
        assertEquals(
                List.of("dflt", "${UNSET}", "${OTHER}x", "$", "${UNSET}"),
                words("\"${UNSET-dflt}\" \"$UNSET\" \"${OTHER}x\" \"$\" \"${UNSET}\""));
        assertEquals(
                List.of("UNSET", "OTHER"),
                lexer.unresolved(),
                "each unset variable once, in order of use");
        assertEquals(
                List.of("v a l"),
                words("\"${NAME[1]}\""),
                "an index after the name is ignored, as HAProxy does");
        words("plain");
        assertEquals(
                List.of(), lexer.unresolved(), "a new line starts with no unresolved variable");
    }

    @Test
    void errorsNameFileAndLine() {
        assertError("log \"open", "t.cfg:7: unterminated double quote");
        assertError("log 'open", "t.cfg:7: unterminated single quote");
        assertError("x \\xZ1", "t.cfg:7: invalid escape '\\x'");
        assertError("x \"${OPEN\"", "t.cfg:7: unterminated variable");
        assertError("x \"${BAD NAME}\"", "t.cfg:7: invalid variable name");
    }

    private void assertError(String line, String expected) {
        HaproxyParseException e = assertThrows(HaproxyParseException.class, () -> words(line));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
    }

    @Test
    void onlyTheGivenRangeOfTheTextIsRead() {
        String text = "first line\nsecond \"line\" # c\nthird";
        int start = text.indexOf("second");
        int end = text.indexOf("\nthird");
        lexer.lex(text, start, end, "t.cfg", 2);
        assertEquals(List.of("second", "line"), lexer.words());
        assertEquals(text.indexOf('#') + 1, lexer.commentStart());
    }

    @Test
    void rawArgumentsOfDotDirectivesAreAsWritten() {
        String line = ".if defined(NAME) && streq(\"$NAME\",x)   # why";
        lexer.lex(line, 0, line.length(), "t.cfg", 1);
        assertEquals(
                "defined(NAME) && streq(\"$NAME\",x)",
                lexer.rawArgs(line, 0, line.length()),
                "variables unexpanded, comment cut");
        String plain = "  maxconn \"$NAME\"";
        lexer.lex(plain, 0, plain.length(), "t.cfg", 2);
        assertNull(lexer.rawArgs(plain, 0, plain.length()), "only dot-directives");
    }

    @Test
    void ignoreCommentsNeedARuleAndAReason() {
        String line =
                "  maxconn 10 # deja:ignore haproxy-maxconn-headroom sized by the platform team ";
        lexer.lex(line, 0, line.length(), "t.cfg", 3);
        LineLexer.Ignore ig =
                LineLexer.ignore(line, lexer.commentStart(), line.length(), "t.cfg", 3);
        assertEquals(
                new LineLexer.Ignore(
                        "haproxy-maxconn-headroom", "sized by the platform team", "t.cfg:3"),
                ig);
        String other = "# just a comment mentioning deja";
        assertNull(LineLexer.ignore(other, 1, other.length(), "t.cfg", 4));
        String bare = "# deja:ignore";
        assertNull(LineLexer.ignore(bare, 1, bare.length(), "t.cfg", 5), "no rule: not an ignore");
        String noReason = "# deja:ignore some-rule   ";
        HaproxyParseException e =
                assertThrows(
                        HaproxyParseException.class,
                        () -> LineLexer.ignore(noReason, 1, noReason.length(), "t.cfg", 6));
        assertTrue(
                e.getMessage().startsWith("t.cfg:6: deja:ignore some-rule gives no reason"),
                e.getMessage());
        String twoLines = "# nothing here\n# deja:ignore r why\n";
        assertNull(
                LineLexer.ignore(twoLines, 1, twoLines.indexOf('\n'), "t.cfg", 1),
                "an ignore on the next line does not belong to this one");
    }
}
