package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * HAProxy and AWS findings carry a key (the stable part of the finding on its object: "no timeout
 * http-request", "target group X zone Y without healthy target"), so that a finding keeps its
 * fingerprint, and its baseline entry and suppressions, when what is around it changes: a line
 * inserted above, another frontend, a reworded detail.
 */
class StableFingerprintTest {
    static final Path FIXTURES = Path.of("src/test/resources/fixtures");

    @TempDir Path tmp;

    /** The firing fixtures of every HAProxy and AWS rule. */
    static List<Path> firingFixtures() throws IOException {
        return firingFixtures("(haproxy|aws)-.*");
    }

    /**
     * The firing fixtures (not *_ok, not expect.yaml) of the rules whose folder matches {@code
     * folders}.
     */
    static List<Path> firingFixtures(String folders) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(FIXTURES)) {
            for (Path d :
                    dirs.filter(p -> p.getFileName().toString().matches(folders))
                            .sorted()
                            .toList()) {
                try (Stream<Path> files = Files.list(d)) {
                    files.filter(
                                    f ->
                                            f.toString().matches(".*\\.(cfg|json|ya?ml)")
                                                    && !f.toString().contains("_ok.")
                                                    && !f.getFileName()
                                                            .toString()
                                                            .equals("expect.yaml"))
                            .sorted()
                            .forEach(out::add);
                }
            }
        }
        return out;
    }

    static JsonNode scan(Path file, String... more) {
        List<String> args =
                new ArrayList<>(
                        List.of("scan", file.toString(), "--format", "json", "--fail-on", "none"));
        args.addAll(List.of(more));
        TestSupport.Run r = TestSupport.run(args.toArray(String[]::new));
        assertEquals(0, r.code(), file + ": " + r.err());
        return r.json();
    }

    static List<String> fingerprints(JsonNode report) {
        List<String> out = new ArrayList<>();
        report.path("findings").forEach(f -> out.add(f.path("fingerprint").asString()));
        return out;
    }

    @Test
    void everyHaproxyAndAwsFindingHasAKey() throws IOException {
        Set<String> rulesSeen = new TreeSet<>();
        List<String> keyless = new ArrayList<>();
        for (Path f : firingFixtures()) {
            for (JsonNode finding : scan(f).path("findings")) {
                String rule = finding.path("ruleId").asString();
                rulesSeen.add(rule);
                if (finding.path("key").asString("").isBlank()) {
                    keyless.add(
                            f.getFileName()
                                    + ": "
                                    + rule
                                    + ": "
                                    + finding.path("message").asString());
                }
            }
        }
        assertEquals(
                List.of(), keyless, "findings without a key (their fingerprint is their message)");
        assertTrue(
                rulesSeen.containsAll(
                        Set.of(
                                "haproxy-maxconn-headroom",
                                "haproxy-missing-http-request-timeout",
                                "haproxy-no-saturation-visibility",
                                "haproxy-rate-limit-not-everywhere",
                                "haproxy-tarpit-holds-slots",
                                "haproxy-sessions-near-limit",
                                "aws-nlb-cross-zone-off-uneven",
                                "aws-nlb-zonal-shift-disabled",
                                "aws-nlb-zone-health-unreported",
                                "aws-nlb-zone-without-healthy-target",
                                "aws-tg-health-check-slow-detection")),
                "the fixtures fire these rules: " + rulesSeen);
    }

    @Test
    void everyRuleGivesItsFindingsAKey() throws IOException {
        Set<String> rules = new TreeSet<>();
        try (Stream<Path> dirs = Files.list(FIXTURES)) {
            dirs.filter(Files::isDirectory).forEach(d -> rules.add(d.getFileName().toString()));
        }
        Set<String> rulesSeen = new TreeSet<>();
        List<String> keyless = new ArrayList<>();
        for (Path f : firingFixtures(".*")) {
            for (JsonNode finding : scan(f).path("findings")) {
                rulesSeen.add(finding.path("ruleId").asString());
                if (finding.path("key").asString("").isBlank()) {
                    keyless.add(f.getFileName() + ": " + finding.path("ruleId").asString());
                }
            }
        }
        assertEquals(
                List.of(),
                keyless,
                "a rule must give .key(..) (the stable identity of a finding for baselines,"
                        + " never a number): these findings have none");
        assertTrue(
                rulesSeen.containsAll(rules),
                "every rule fires on its fixtures: " + rulesSeen + " of " + rules);
    }

    @Test
    void anUnrelatedLineInsertedAboveKeepsEveryHaproxyFingerprint() throws IOException {
        int compared = 0;
        for (Path f : firingFixtures()) {
            if (!f.toString().endsWith(".cfg")) {
                continue;
            }
            String text = Files.readString(f);
            Path copy = tmp.resolve(f.getFileName());
            Files.writeString(copy, text);
            List<String> before = fingerprints(scan(copy));
            // a comment on top and a directive no rule reads in the first section: every line moves
            // down by 3
            String first =
                    text.lines()
                            .filter(
                                    l ->
                                            l.matches(
                                                    "(global|defaults|frontend|backend|listen)\\b.*"))
                            .findFirst()
                            .orElseThrow();
            Files.writeString(
                    copy,
                    "# moved by a colleague\n\n"
                            + text.replaceFirst(
                                    "(?m)^" + Pattern.quote(first) + "$",
                                    Matcher.quoteReplacement(
                                            first + "\n    description unrelated")));
            JsonNode after = scan(copy);
            assertEquals(
                    before, fingerprints(after), f.getFileName() + ": " + after.path("findings"));
            assertFalse(before.isEmpty(), f + " fires");
            compared += before.size();
        }
        assertTrue(compared >= 15, "findings compared: " + compared);
    }

    @Test
    void anotherFrontendOrAnotherTarpitConditionKeepsTheFingerprint() throws IOException {
        String cfg =
                """
                global
                    maxconn 1000

                defaults
                    mode http
                    timeout connect 5s
                    timeout client 30s
                    timeout server 30s
                    timeout tarpit 10s
                    timeout http-request 5s

                frontend fe_www
                    bind :80
                    maxconn 200
                    http-request tarpit if { path_beg /admin }
                    default_backend be

                backend be
                    server s1 10.0.0.1:80
                """;
        Path f = tmp.resolve("haproxy.cfg");
        Files.writeString(f, cfg);
        JsonNode before = scan(f);
        Files.writeString(
                f,
                cfg.replace("/admin", "/wp-login")
                        .replace(
                                "backend be\n",
                                "frontend fe_api\n    bind :81\n    default_backend be\n\nbackend be\n"));
        JsonNode after = scan(f);
        assertEquals(2, before.path("findings").size(), before.toString());
        for (String rule :
                List.of("haproxy-tarpit-holds-slots", "haproxy-no-saturation-visibility")) {
            JsonNode b = find(before, rule);
            JsonNode a = find(after, rule);
            assertNotEquals(
                    b.path("message").asString(),
                    a.path("message").asString(),
                    "the message changed");
            assertEquals(b.path("fingerprint").asString(), a.path("fingerprint").asString(), rule);
        }
    }

    @Test
    void anotherThinnestZoneKeepsTheAwsFingerprint() throws IOException {
        Path src = FIXTURES.resolve("aws-nlb-cross-zone-off-uneven/four-one-two.json");
        String json = Files.readString(src);
        Path f = tmp.resolve("aws.json");
        Files.writeString(f, json);
        JsonNode before = scan(f);
        // the one target of eu-west-2b and the two of eu-west-2c swap zones: 2c is now the thin one
        Files.writeString(
                f,
                json.replace("\"zone\": \"eu-west-2b\"", "\"zone\": \"eu-west-2x\"")
                        .replace("\"zone\": \"eu-west-2c\"", "\"zone\": \"eu-west-2b\"")
                        .replace("\"zone\": \"eu-west-2x\"", "\"zone\": \"eu-west-2c\""));
        JsonNode after = scan(f);
        JsonNode b = find(before, "aws-nlb-cross-zone-off-uneven");
        JsonNode a = find(after, "aws-nlb-cross-zone-off-uneven");
        assertTrue(
                a.path("message").asString().contains("each target in eu-west-2c takes 4x"),
                a.toString());
        assertEquals(b.path("fingerprint").asString(), a.path("fingerprint").asString());
    }

    @Test
    void aBaselineWrittenBeforeTheKeysStillMatches() throws IOException {
        Path cfg = FIXTURES.resolve("haproxy-tarpit-holds-slots/tarpit-in-shared-backend.cfg");
        Path aws = FIXTURES.resolve("aws-nlb-zone-without-healthy-target/zone-c-unhealthy.json");
        for (Path input : List.of(cfg, aws)) {
            JsonNode report = scan(input);
            int n = report.path("findings").size();
            assertTrue(n > 0, input.toString());
            // as an older deja wrote it: no key on these findings
            for (JsonNode finding : report.path("findings")) {
                ((ObjectNode) finding).remove("key");
            }
            Path base = tmp.resolve("base-" + input.getFileName() + ".json");
            Files.writeString(base, report.toString());
            JsonNode summary = scan(input, "--baseline", base.toString()).path("baseline");
            assertEquals(0, summary.path("new").asInt(), summary.toString());
            assertEquals(n, summary.path("unchanged").asInt(), summary.toString());
            assertEquals(0, summary.path("fixed").asInt(), summary.toString());
        }
    }

    static JsonNode find(JsonNode report, String rule) {
        for (JsonNode f : report.path("findings")) {
            if (f.path("ruleId").asString().equals(rule)) {
                return f;
            }
        }
        throw new AssertionError(rule + " did not fire: " + report.path("findings"));
    }
}
