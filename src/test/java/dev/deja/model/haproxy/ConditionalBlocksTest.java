package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The .if/.elif/.else/.endif evaluator and the message directives alone, fed one dot-directive at a
 * time.
 */
class ConditionalBlocksTest {
    private final List<String> notes = new ArrayList<>();
    private final ConditionalBlocks blocks =
            new ConditionalBlocks(Map.of("SET", "yes")::get, "2.8", notes);
    private int line;

    /** One dot-directive line; words split on spaces (no quoting here: that is the lexer's job). */
    private void dot(String text) {
        line++;
        List<String> words = Arrays.asList(text.split(" +"));
        String raw = text.substring(words.get(0).length()).strip();
        blocks.directive(words, raw, new ArrayList<>(), "t.cfg", line);
    }

    private void skipLine() {
        line++;
    }

    @Test
    void decidedBranchesSkipOrKeepLines() {
        dot(".if 1");
        assertFalse(blocks.inactive());
        assertNull(blocks.condition(), "a decided branch puts no condition on its lines");
        dot(".else");
        assertTrue(blocks.inactive());
        dot(".endif");
        assertFalse(blocks.inactive());
        dot(".if version_atleast(3.0)");
        assertTrue(blocks.inactive(), "2.8 is before 3.0");
        dot(".if 1");
        assertTrue(blocks.inactive(), "a true .if inside a false branch stays skipped");
        dot(".else");
        assertTrue(blocks.inactive(), "and so does its .else");
        dot(".endif");
        dot(".elif defined(SET) && streq(yes,yes)");
        assertFalse(blocks.inactive(), "the first true .elif is taken");
        dot(".elif 1");
        assertTrue(blocks.inactive(), "only one branch is taken");
        dot(".endif");
        blocks.endFile("t.cfg");
        assertEquals(List.of(), blocks.undecided());
        assertEquals(List.of(), notes);
    }

    @Test
    void undecidedBranchesAreKeptWithTheirConditionAndGuard() {
        dot(".if feature(QUIC)");
        assertFalse(blocks.inactive());
        assertEquals(".if feature(QUIC) (t.cfg:1)", blocks.condition());
        assertEquals(new Guard(new int[] {0}, new int[] {0}), blocks.guard());
        dot(".if defined(UNSET_VAR)");
        assertEquals(
                ".if feature(QUIC) (t.cfg:1) and .if defined(UNSET_VAR) (t.cfg:2)",
                blocks.condition(),
                "outermost first");
        assertEquals(new Guard(new int[] {0, 1}, new int[] {0, 0}), blocks.guard());
        dot(".endif");
        dot(".else");
        assertEquals(".else (t.cfg:4, of .if feature(QUIC) at line 1)", blocks.condition());
        assertEquals(new Guard(new int[] {0}, new int[] {1}), blocks.guard());
        dot(".endif");
        assertNull(blocks.condition());
        assertNull(blocks.guard());
        blocks.endFile("t.cfg");
        List<UndecidedBlock> u = blocks.undecided();
        assertEquals(2, u.size());
        assertEquals(
                new UndecidedBlock(
                        0,
                        "t.cfg:1",
                        List.of(
                                ".if feature(QUIC) (t.cfg:1)",
                                ".else (t.cfg:4, of .if feature(QUIC) at line 1)"),
                        false),
                u.get(0),
                "with .else, one branch is taken");
        assertEquals(
                new UndecidedBlock(1, "t.cfg:2", List.of(".if defined(UNSET_VAR) (t.cfg:2)"), true),
                u.get(1),
                "without .else, a path may take none");
        assertEquals(2, notes.size(), notes.toString());
        assertTrue(
                notes.get(0).startsWith("t.cfg:1: undecided condition 'feature(QUIC)' ("),
                notes.get(0));
        assertTrue(
                notes.get(1).contains("defined(UNSET_VAR): the variable is not set here"),
                notes.get(1));
    }

    @Test
    void aTrueBranchAfterAnUndecidedOneEndsTheChoices() {
        dot(".if feature(X)");
        dot(".elif 1");
        assertEquals(
                ".elif 1 (t.cfg:2, of .if feature(X) at line 1)",
                blocks.condition(),
                "taken unless the undecided .if was");
        dot(".elif 0");
        assertTrue(blocks.inactive(), "a false .elif is skipped");
        dot(".else");
        assertTrue(blocks.inactive(), "a true .elif came before: .else is never taken");
        dot(".endif");
        blocks.endFile("t.cfg");
        UndecidedBlock b = blocks.undecided().get(0);
        assertEquals(2, b.branches().size());
        assertFalse(b.noneTaken());
        assertEquals(2, b.choices());
    }

    @Test
    void messagesBecomeNotesWhenTheirBranchIsRead() {
        dot(".notice starting");
        dot(".if 0");
        dot(".alert never printed");
        dot(".endif");
        dot(".if feature(X)");
        dot(".warning maybe");
        dot(".endif");
        dot(".alert stop with $SET");
        dot(".frobnicate 1");
        assertEquals(
                List.of(
                        "t.cfg:1: notice: starting",
                        "t.cfg:5: undecided condition 'feature(X)' (feature(X) depends on the HAProxy build or host): every"
                                + " branch is analysed",
                        "t.cfg:6: warning: maybe [only when .if feature(X) (t.cfg:5)]",
                        "t.cfg:8: alert: stop with $SET (HAProxy refuses to start on this .alert)",
                        "t.cfg:9: unknown directive .frobnicate kept as is"),
                notes,
                "a message with a variable is shown as written, never with the variable's value");
    }

    @Test
    void nestingAndBalanceErrorsNameTheLine() {
        for (int i = 0; i < ConditionalBlocks.MAX_NESTING; i++) {
            dot(".if 1");
        }
        HaproxyParseException deep = assertThrows(HaproxyParseException.class, () -> dot(".if 1"));
        assertEquals(
                "t.cfg:100: too many nested '.if', max is 100 (as HAProxy)", deep.getMessage());

        assertError(List.of(".endif"), "t.cfg:1: .endif without .if");
        assertError(List.of(".else"), "t.cfg:1: .else without .if");
        assertError(
                List.of(".if 1", ".else", ".elif 1"),
                "t.cfg:3: .elif after .else (of the .if at line 1)");
        assertError(
                List.of(".if 1", ".else", ".else"),
                "t.cfg:3: .else after .else (of the .if at line 1)");
        assertError(List.of(".if streq(a)"), "t.cfg:1: cannot evaluate condition 'streq(a)': ");
        assertError(
                List.of(".if streq(\"$SECRET\")"),
                "t.cfg:1: cannot evaluate condition 'streq(\"$SECRET\")' (the values of its variables are not shown)");
    }

    private static void assertError(List<String> lines, String expected) {
        ConditionalBlocksTest t = new ConditionalBlocksTest();
        HaproxyParseException e =
                assertThrows(HaproxyParseException.class, () -> lines.forEach(t::dot));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
    }

    @Test
    void anIfLeftOpenAtTheEndOfAFileIsAnErrorNamingIt() {
        dot(".if 1");
        skipLine();
        dot(".if 1");
        dot(".endif");
        HaproxyParseException e =
                assertThrows(HaproxyParseException.class, () -> blocks.endFile("a.cfg"));
        assertEquals(
                "a.cfg:1: .if without matching .endif before the end of the file", e.getMessage());
    }

    @Test
    void blocksAreNumberedAcrossTheFilesOfOneInstance() {
        dot(".if feature(A)");
        dot(".endif");
        blocks.endFile("a.cfg");
        line = 0;
        dot(".if feature(B)");
        assertEquals(new Guard(new int[] {1}, new int[] {0}), blocks.guard());
        dot(".endif");
        blocks.endFile("b.cfg");
        assertEquals(List.of(0, 1), blocks.undecided().stream().map(UndecidedBlock::id).toList());
    }
}
