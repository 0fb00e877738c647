package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.TestSupport.Run;
import dev.deja.engine.DidYouMean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user who mistypes gets: the closest command, option, rule or case id; and {@code deja}
 * alone lists every command.
 */
class DidYouMeanTest {
    static final String EXAMPLE = "examples/haproxy/il-0264-before.cfg";

    @TempDir Path tmp;

    static void usage(Run r, String expected) {
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains(expected), r.err());
        assertTrue(!r.err().contains("\tat "), "no stack trace: " + r.err());
    }

    @Test
    void explainSuggestsTheRuleOrCaseMeant() {
        Run r = TestSupport.run("explain", "haproxy-tarpit");
        usage(
                r,
                "deja: unknown rule or case 'haproxy-tarpit' (did you mean haproxy-tarpit-holds-slots?)");
        assertEquals(1, r.err().lines().count(), r.err());
        usage(TestSupport.run("explain", "IL-026"), "(did you mean IL-0264?)");
        usage(
                TestSupport.run("explain", "haproxy-tarpit-hold-slots"),
                "(did you mean haproxy-tarpit-holds-slots?)");
        // nothing close: no suggestion
        Run none = TestSupport.run("explain", "zzzzzz");
        usage(none, "unknown rule or case 'zzzzzz'; see 'deja rules' and 'deja cases'");
    }

    @Test
    void rulesOptionsAndConfigSuggestTheRuleMeant() throws Exception {
        usage(
                TestSupport.run("scan", "--rules", "haproxy-tarpt", EXAMPLE),
                "--rules: unknown rule 'haproxy-tarpt' (did you mean haproxy-tarpit-holds-slots?)");
        Path cfg = tmp.resolve("deja.yaml");
        Files.writeString(cfg, "rules:\n  severity:\n    haproxy-tarpit-holds-slot: high\n");
        usage(
                TestSupport.run("scan", "--config", cfg.toString(), EXAMPLE),
                cfg
                        + ":3: unknown rule 'haproxy-tarpit-holds-slot' (did you mean"
                        + " haproxy-tarpit-holds-slots?)");
        Path ignore = tmp.resolve("ignore.yaml");
        Files.writeString(ignore, "- rule: haproxy-tarpit\n  object: '*'\n  reason: r\n");
        usage(
                TestSupport.run("scan", "--ignore-file", ignore.toString(), EXAMPLE),
                ignore
                        + ":1: unknown rule 'haproxy-tarpit' (did you mean haproxy-tarpit-holds-slots?)");
    }

    @Test
    void unknownOptionsAndCommandsSuggestTheClosest() {
        usage(
                TestSupport.run("scan", "--formt", "json", EXAMPLE),
                "deja: Unknown option: '--formt'; did you mean --format?");
        usage(
                TestSupport.run("scan", "--basline", "b.json", EXAMPLE),
                "; did you mean --baseline?");
        usage(TestSupport.run("scn", EXAMPLE), "; did you mean scan?");
        usage(TestSupport.run("complete", "bash"), "; did you mean completion?");
    }

    @Test
    void dejaAloneListsEveryCommand() {
        Run r = TestSupport.run();
        assertEquals(2, r.code(), r.err());
        assertTrue(
                r.err()
                        .startsWith(
                                "deja: a command is needed: scan, rules, cases, explain, prove, report or"
                                        + " completion\n"),
                r.err());
        for (String c : Cli.SUBCOMMANDS.keySet()) {
            assertTrue(r.err().contains("\n  " + c + " "), c + " in " + r.err());
        }
    }

    @Test
    void suggestionsArePrefixesThenSubstringsThenNearMisses() {
        List<String> ids = List.of("scan", "rules", "cases", "explain", "report", "completion");
        assertEquals(List.of("cases", "completion"), DidYouMean.closest("c", ids));
        assertEquals(List.of("explain"), DidYouMean.closest("expl", ids));
        assertEquals(List.of("report"), DidYouMean.closest("port", ids));
        assertEquals(List.of("rules"), DidYouMean.closest("rulse", ids));
        assertEquals(List.of(), DidYouMean.closest("zzzzzz", ids));
        assertEquals("", DidYouMean.hint("", ids));
    }
}
