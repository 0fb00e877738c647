package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.InlineSuppression;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Section assembly alone: directives into sections, defaults inheritance, inline ignores. */
class SectionAssemblerTest {
    private final List<String> notes = new ArrayList<>();
    private final SectionAssembler assembler = new SectionAssembler(notes);
    private String file = "a.cfg";
    private int line;

    private static List<String> words(String text) {
        return Arrays.asList(text.strip().split(" +"));
    }

    private void open(String text) {
        assembler.open(words(text), file, ++line, null, null);
    }

    private void directive(String text) {
        directive(text, null);
    }

    private void directive(String text, String condition) {
        assembler.directive(new Directive(file, ++line, words(text), condition, List.of(), null));
    }

    private void ignore(String rule, String reason) {
        assembler.ignore(new LineLexer.Ignore(rule, reason, file + ":" + ++line));
    }

    @Test
    void directivesJoinTheSectionAboveThemUntilTheNextOne() {
        open("global");
        directive("maxconn 10");
        open("frontend fe");
        directive("bind :80");
        directive("mode http");
        assembler.endFile();
        List<Section> s = assembler.sections();
        assertEquals(List.of("global", "frontend"), s.stream().map(Section::kind).toList());
        assertEquals("fe", s.get(1).name());
        assertEquals(3, s.get(1).line());
        assertEquals(List.of(4, 5), s.get(1).directives().stream().map(Directive::line).toList());
        assertEquals(List.of(), notes);
    }

    @Test
    void proxiesInheritTheLastDefaultsOrTheNamedOne() {
        open("defaults base");
        directive("mode http");
        open("defaults web from base");
        directive("timeout client 20s");
        open("defaults");
        directive("mode tcp");
        open("frontend a");
        open("backend b from web");
        open("listen c from nosuch");
        open("peers p");
        assembler.endFile();
        List<Section> s = assembler.sections();
        assertSame(s.get(0), s.get(1).defaults(), "defaults web from base");
        assertNull(s.get(2).defaults(), "a defaults section without from starts afresh");
        assertSame(s.get(2), s.get(3).defaults(), "the last defaults above");
        assertSame(
                s.get(1), s.get(4).defaults(), "from names any defaults above, not only the last");
        assertEquals("web", s.get(4).from());
        assertNull(s.get(5).defaults());
        assertNull(s.get(6).defaults(), "peers inherit nothing");
        assertEquals(
                List.of(
                        "a.cfg:9: listen c from nosuch: no defaults section named 'nosuch' above (HAProxy would"
                                + " refuse it)"),
                notes);
    }

    @Test
    void aFileEndsItsSectionButTheLastDefaultsCarriesOver() {
        open("defaults");
        directive("mode http");
        open("frontend fe");
        assembler.endFile();
        file = "b.cfg";
        line = 0;
        HaproxyParseException e =
                assertThrows(HaproxyParseException.class, () -> directive("orphan 1"));
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "b.cfg:1: unknown keyword 'orphan' out of section (HAProxy refuses the"
                                        + " file"),
                e.getMessage());
        open("backend be");
        assembler.endFile();
        assertSame(assembler.sections().get(0), assembler.sections().get(2).defaults());
        assertEquals(0, assembler.sections().get(1).directives().size());
    }

    @Test
    void aDirectiveOutsideAnySectionUnderAnUndecidedBranchIsANote() {
        directive("maxconn 10", ".if feature(X) (a.cfg:1)");
        assertEquals(
                List.of(
                        "a.cfg:1: keyword 'maxconn' outside any section (HAProxy refuses it when"
                                + " .if feature(X) (a.cfg:1) holds); ignored"),
                notes);
        assembler.endFile();
        assertEquals(List.of(), assembler.sections());
    }

    @Test
    void ignoresApplyToTheNextDirectiveOrTheWholeSection() {
        open("global");
        ignore("rule-a", "sized by the platform team");
        directive("maxconn 10");
        directive("nbthread 4");
        ignore("rule-b", "metrics come from elsewhere");
        open("frontend fe");
        directive("bind :1");
        directive("mode http");
        ignore("rule-c", "nothing follows");
        assembler.endFile();
        List<String> got =
                assembler.suppressions().stream().map(SectionAssemblerTest::describe).toList();
        assertEquals(
                List.of(
                        "rule-a@a.cfg:3 from a.cfg:2",
                        "rule-b@a.cfg:6 from a.cfg:5",
                        "rule-b@a.cfg:7 from a.cfg:5",
                        "rule-b@a.cfg:8 from a.cfg:5"),
                got);
        assertEquals(
                List.of(
                        "a.cfg:9: deja:ignore rule-c is followed by no directive; it suppresses nothing"),
                notes);
    }

    @Test
    void anIgnoreBeforeASkippedLineSuppressesNothing() {
        open("global");
        ignore("rule-a", "why");
        assembler.skipped();
        directive("maxconn 10");
        assertEquals(List.of(), assembler.suppressions());
        assertEquals(
                List.of(
                        "a.cfg:2: deja:ignore rule-a is followed by a line HAProxy skips (false .if branch); it"
                                + " suppresses nothing"),
                notes);
    }

    private static String describe(InlineSuppression s) {
        return s.ruleId()
                + "@"
                + s.target().file()
                + ":"
                + s.target().line()
                + " from "
                + s.origin();
    }
}
