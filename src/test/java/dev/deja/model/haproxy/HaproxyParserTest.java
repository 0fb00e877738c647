package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.SourceFile;
import dev.deja.source.ScanRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

class HaproxyParserTest {

    static ScanRequest req(Map<String, String> env, String version) {
        ScanRequest.Builder b = ScanRequest.builder();
        b.processEnv = Map.of("FROM_PROCESS", "proc", "SHADOWED", "process");
        b.env.putAll(env);
        b.haproxyVersion = version;
        return b.build();
    }

    static HaproxyConfig parse(String text) {
        return HaproxyParser.parse("t.cfg", text, req(Map.of(), null).haproxyParsing());
    }

    static List<String> words(String line) {
        HaproxyConfig c =
                HaproxyParser.parse(
                        "t.cfg",
                        "global\n" + line + "\n",
                        req(Map.of("NAME", "v a l"), null).haproxyParsing());
        return c.sections().get(0).directives().get(0).words();
    }

    @Test
    void splitsWordsWithQuotesEscapesAndComments() {
        assertEquals(
                List.of("log", "127.0.0.1:514", "local0"),
                words("  log\t127.0.0.1:514   local0  # comment"));
        assertEquals(List.of("a b", "c"), words("\"a b\" c"));
        assertEquals(List.of("a#b"), words("'a#b'"));
        assertEquals(List.of("a"), words("a#b"));
        assertEquals(List.of("abcdef"), words("\"ab\"'cd'ef"));
        assertEquals(
                List.of("a b", "#c", "x\\y", "q'\"", "$"), words("a\\ b \\#c x\\\\y q\\'\\\" \\$"));
        assertEquals(List.of("\n\r\t"), words("\\n\\r\\t"));
        assertEquals(List.of("AZ"), words("\\x41\\x5a"));
        assertEquals(List.of("^/a\\.b$"), words("^/a\\.b$"));
        assertEquals(List.of("'$NAME' \\n"), words("\"'\\$NAME' \\\\n\""));
        assertEquals(List.of("$NAME \\n"), words("'$NAME \\n'"));
        assertEquals(List.of("", "x"), words("\"\" x"));
    }

    @Test
    void expandsVariablesInDoubleQuotesOnly() {
        assertEquals(List.of("v a l", "v a l!", "$NAME"), words("\"$NAME\" \"${NAME}!\" $NAME"));
        assertEquals(List.of("dflt", "proc"), words("\"${UNSET-dflt}\" \"$FROM_PROCESS\""));
        HaproxyConfig c =
                HaproxyParser.parse(
                        "t.cfg",
                        "global\n  maxconn \"${MAXCONN}\"\n  x \"$SHADOWED\"\n",
                        req(Map.of("SHADOWED", "from-env-option"), null).haproxyParsing());
        Directive d = c.sections().get(0).directives().get(0);
        assertEquals("${MAXCONN}", d.word(1));
        assertEquals(List.of("MAXCONN"), d.unresolved());
        assertTrue(d.unresolved(1));
        assertEquals(
                "from-env-option",
                c.sections().get(0).directives().get(1).word(1),
                "--env comes before the environment");
        assertTrue(
                c.notes().stream().anyMatch(n -> n.contains("t.cfg:2") && n.contains("MAXCONN")),
                c.notes().toString());
    }

    @Test
    void keepsEverySectionAndUnknownKeywords() {
        HaproxyConfig c =
                parse(
                        "global\n  frobnicate 1\nuserlist admins\n  user a password $6$hash\n"
                                + "crt-store web\n  load crt a.pem\nacme le\n  directory x\nring buf\n  size 1\n"
                                + "frontend fe\n  brand-new-keyword 1 2 3\n");
        assertEquals(
                List.of("global", "userlist", "crt-store", "acme", "ring", "frontend"),
                c.sections().stream().map(Section::kind).toList());
        assertEquals("brand-new-keyword", c.sections().get(5).directives().get(0).keyword());
        assertEquals(12, c.sections().get(5).directives().get(0).line());
    }

    @Test
    void defaultsInheritanceNamedFromAndAnonymous() {
        HaproxyConfig c =
                parse(
                        "defaults base\n  mode http\n  timeout client 10s\n"
                                + "defaults web from base\n  timeout client 20s\n"
                                + "defaults\n  mode tcp\n"
                                + "frontend a\n  bind :1\n"
                                + "frontend b from web\n  bind :2\n");
        Section a = c.sections().get(3);
        Section b = c.sections().get(4);
        assertEquals(
                "tcp", a.effective("mode").word(1), "anonymous proxy inherits the last defaults");
        assertNull(
                a.effective("timeout", "client"), "a defaults section without from starts afresh");
        assertEquals("http", b.effective("mode").word(1));
        assertEquals("20s", b.effective("timeout", "client").word(2));
        assertEquals("web", b.from());
        assertSame(c.sections().get(1), b.defaults());
    }

    @Test
    void timeValues() {
        assertEquals(1000, Times.millis("1s"));
        assertEquals(1500, Times.millis("1500"));
        assertEquals(1500, Times.millis("1500ms"));
        assertEquals(1, Times.millis("10us"));
        assertEquals(120_000, Times.millis("2m"));
        assertEquals(3_600_000, Times.millis("1h"));
        assertEquals(86_400_000, Times.millis("1d"));
        assertEquals(-1, Times.millis("1x"));
        assertEquals(-1, Times.millis("s"));
        assertEquals(-1, Times.millis(""));
        assertEquals("1s", Times.format(1000));
        assertEquals("500ms", Times.format(500));
    }

    @Test
    void conditionalBlocksDecidedAndUndecided() {
        String text =
                ".if version_atleast(2.4)\nglobal\n  a 1\n.else\nglobal\n  b 1\n.endif\n"
                        + "defaults\n"
                        + ".if defined(KNOWN) && streq(\"$KNOWN\",yes)\n  x known\n.elif 1\n  x other\n.endif\n"
                        + ".if defined(UNKNOWN_VAR)\n  timeout client 5s\n.else\n  timeout client 50s\n.endif\n"
                        + ".if 0\n  .if defined(NESTED)\n   dead 1\n  .endif\n.endif\n"
                        + ".if version_before(3.0)\n  old 1\n.endif\n"
                        + ".if !feature(QUIC) || 0\n  quic 1\n.endif\n";
        HaproxyConfig c =
                HaproxyParser.parse(
                        "t.cfg", text, req(Map.of("KNOWN", "yes"), "3.2").haproxyParsing());
        assertEquals("a", c.sections().get(0).directives().get(0).keyword());
        assertEquals(1, c.globals().size());
        List<Directive> d = c.sections().get(1).directives();
        assertEquals(
                List.of("x", "timeout", "timeout", "quic"),
                d.stream().map(Directive::keyword).toList());
        assertEquals("known", d.get(0).word(1));
        assertNull(d.get(0).condition());
        assertTrue(d.get(1).condition().contains("defined(UNKNOWN_VAR)"), d.get(1).condition());
        assertTrue(d.get(2).condition().startsWith(".else"), d.get(2).condition());
        assertTrue(d.get(3).condition().contains("feature(QUIC)"));
        assertTrue(
                c.notes().stream()
                        .anyMatch(n -> n.contains("undecided") && n.contains("UNKNOWN_VAR")),
                c.notes().toString());

        HaproxyConfig old =
                HaproxyParser.parse(
                        "t.cfg", text, req(Map.of("KNOWN", "no"), "2.2").haproxyParsing());
        assertEquals("b", old.sections().get(0).directives().get(0).keyword());
        List<String> kws =
                old.sections().get(1).directives().stream().map(Directive::keyword).toList();
        assertEquals(List.of("x", "timeout", "timeout", "old", "quic"), kws);
        assertEquals("other", old.sections().get(1).directives().get(0).word(1));
    }

    @Test
    void versionDefaultsToTheCurrentLts() {
        HaproxyConfig c =
                parse(".if version_atleast(3.2) && version_before(3.3)\nglobal\n  lts 1\n.endif\n");
        assertEquals(1, c.sections().size());
        assertEquals("3.2", HaproxyParser.DEFAULT_VERSION);
    }

    @Test
    void diagnosticDirectivesBecomeNotes() {
        HaproxyConfig c =
                parse("global\n.warning \"deprecated setup\"\n.if 0\n.alert never\n.endif\n");
        assertEquals(1, c.notes().size());
        assertTrue(
                c.notes().get(0).startsWith("t.cfg:2: warning: deprecated setup"),
                c.notes().toString());
    }

    @Test
    void conditionsAndMessagesAreShownWithoutTheirComment() {
        HaproxyConfig c =
                parse(
                        ".if feature(QUIC) # only with quic\nglobal\n  a 1\n.endif\n"
                                + "global\n.notice port \"$PORT\" # set by the chart\n");
        assertEquals(
                ".if feature(QUIC) (t.cfg:1)", c.sections().get(0).directives().get(0).condition());
        assertTrue(c.notes().contains("t.cfg:6: notice: port \"$PORT\""), c.notes().toString());
        assertTrue(
                c.notes().stream().noneMatch(n -> n.contains("#")),
                "the comment's '#' was once kept: " + c.notes());
    }

    @Test
    void inlineSuppressionsBeforeOrAtTheEndOfALine() {
        HaproxyConfig c =
                parse(
                        "global\n# deja:ignore haproxy-maxconn-headroom sized by the platform team\n"
                                + "  maxconn 10\n  log x # deja:ignore some-rule reason here\n"
                                + "# deja:ignore haproxy-no-saturation-visibility metrics come from elsewhere\nfrontend fe\n  bind :1\n");
        assertEquals(4, c.suppressions().size(), c.suppressions().toString());
        assertEquals(3, c.suppressions().get(0).target().line());
        assertEquals("sized by the platform team", c.suppressions().get(0).reason());
        assertEquals("t.cfg:2", c.suppressions().get(0).origin());
        assertEquals(4, c.suppressions().get(1).target().line());
        assertEquals(6, c.suppressions().get(2).target().line(), "section header");
        assertEquals(
                7,
                c.suppressions().get(3).target().line(),
                "a header ignore covers the section's directives");
    }

    @Test
    void sectionsEndWithTheirFileButDefaultsCarryOver() {
        HaproxyConfig c =
                HaproxyParser.parse(
                        "inst",
                        List.of(
                                new SourceFile(
                                        "a.cfg", "defaults\n  mode http\nfrontend fe\n  bind :1\n"),
                                new SourceFile("b.cfg", "frontend fe2\n  bind :2\n")),
                        req(Map.of(), null).haproxyParsing());
        assertEquals(List.of("a.cfg", "b.cfg"), c.files());
        Section fe2 = c.sections().get(2);
        assertEquals("b.cfg", fe2.file());
        assertEquals("http", fe2.effective("mode").word(1));
        assertEquals(1, c.sections().get(1).directives().size());
        // a file starts outside any section: a directive before its first section is not added to
        // fe of a.cfg,
        // HAProxy refuses it ("unknown keyword 'orphan' out of section")
        HaproxyParseException e =
                Assertions.assertThrows(
                        HaproxyParseException.class,
                        () ->
                                HaproxyParser.parse(
                                        "inst",
                                        List.of(
                                                new SourceFile("a.cfg", "frontend fe\n  bind :1\n"),
                                                new SourceFile(
                                                        "b.cfg",
                                                        "  orphan 1\nfrontend fe2\n  bind :2\n")),
                                        req(Map.of(), null).haproxyParsing()));
        assertTrue(
                e.getMessage().startsWith("b.cfg:1: unknown keyword 'orphan' out of section"),
                e.getMessage());
    }

    @Test
    void parseErrorsNameFileAndLine() {
        assertError("global\n  log \"unterminated\n", "t.cfg:2: unterminated double quote");
        assertError("global\n  log 'x\n", "t.cfg:2: unterminated single quote");
        assertError("global\n.if 1\n  a\n", "t.cfg:2: .if without matching .endif");
        assertError("global\n.endif\n", "t.cfg:2: .endif without .if");
        assertError(".if 1\n.else\n.elif 1\n.endif\n", "t.cfg:3: .elif after .else");
        assertError(".else\n", "t.cfg:1: .else without .if");
        assertError("global\n  x \\xZZ\n", "t.cfg:2: invalid escape");
        assertError("global\n  x \"${OPEN\"\n", "t.cfg:2: unterminated variable");
        assertError(".if streq(a)\n.endif\n", "t.cfg:1: cannot evaluate condition");
        assertError(".if (1\n.endif\n", "t.cfg:1: cannot evaluate condition");
        assertError(".if foo\n.endif\n", "t.cfg:1: cannot evaluate condition");
        assertError(
                ".if " + "(".repeat(20_000) + "1" + ")".repeat(20_000) + "\n.endif\n",
                "t.cfg:1: cannot evaluate condition");
        assertError(
                ".if " + "!".repeat(30_000) + "1\n.endif\n", "t.cfg:1: cannot evaluate condition");
    }

    static void assertError(String text, String expected) {
        HaproxyParseException e = assertThrows(HaproxyParseException.class, () -> parse(text));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), "one line");
        assertTrue(e.getMessage().length() < 300, "short: " + e.getMessage().length());
    }

    @Test
    void versionComparison() {
        assertTrue(Conditions.compareVersions("3.2", "2.10") > 0);
        assertTrue(Conditions.compareVersions("2.10", "2.9") > 0);
        assertTrue(Conditions.compareVersions("3.2-dev1", "3.2") < 0);
        assertEquals(0, Conditions.compareVersions("3.2", "3.2.0"));
    }

    @Test
    void directiveTextRedactsCredentials() {
        HaproxyConfig c =
                parse(
                        "userlist u\n  user admin password $6$secrethash\n  user bob insecure-password hunter2\n"
                                + "frontend f\n  stats auth admin:topsecret\n");
        String all =
                c.sections().stream()
                        .flatMap(s -> s.directives().stream())
                        .map(Directive::text)
                        .toList()
                        .toString();
        assertTrue(
                !all.contains("secrethash")
                        && !all.contains("hunter2")
                        && !all.contains("topsecret"),
                all);
        assertTrue(all.contains("stats auth admin:***"), all);
    }
}
