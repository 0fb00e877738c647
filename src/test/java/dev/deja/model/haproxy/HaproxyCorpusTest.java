package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.deja.CorpusExpectations;
import dev.deja.TestSupport;
import dev.deja.collect.Collector;
import dev.deja.engine.Catalog;
import dev.deja.engine.Engine;
import dev.deja.engine.Finding;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SourceKind;
import dev.deja.rules.RuleRegistry;
import dev.deja.source.ScanRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Real-world configs from ../shared/corpus/haproxy: every one scans with exit 0 or 1, or 2 with a
 * one-line parse error naming file:line, and fires what {@code corpus/haproxy-expectations.yaml}
 * (judged per object after reading each config) says. Then random edits of those files (seeded,
 * reproducible): the parser and the rules never throw anything but {@link HaproxyParseException},
 * whose message names file:line.
 */
class HaproxyCorpusTest {
    static final Pattern FILE_LINE = Pattern.compile("^[^\\n]+\\.cfg:\\d+: [^\\n]+$");

    static List<Path> corpus() throws IOException {
        Path dir = TestSupport.shared("corpus/haproxy");
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".cfg")).sorted().toList();
        }
    }

    @TestFactory
    Stream<DynamicTest> everyCorpusFileScans() throws IOException {
        return corpus().stream()
                .map(
                        p ->
                                DynamicTest.dynamicTest(
                                        p.getFileName().toString(),
                                        () -> {
                                            TestSupport.Run r =
                                                    TestSupport.run(
                                                            "scan",
                                                            "--format",
                                                            "json",
                                                            p.toString());
                                            if (r.code() == 2) {
                                                String err = r.err().strip();
                                                assertFalse(err.contains("\n"), err);
                                                assertTrue(err.startsWith("deja: " + p + ":"), err);
                                            } else {
                                                assertTrue(
                                                        r.code() == 0 || r.code() == 1,
                                                        "exit " + r.code() + ": " + r.err());
                                                assertTrue(
                                                        r.out().contains("\"schemaVersion\""),
                                                        r.out());
                                            }
                                        }));
    }

    static final String EXPECTATIONS = "/corpus/haproxy-expectations.yaml";

    /** "haproxy/hx_examples_games.cfg", as the expectations name it. */
    static String key(Path file) {
        return "haproxy/" + file.getFileName();
    }

    @Test
    void everyCorpusFileHasExpectationsAndEveryExpectationAFile() throws IOException {
        Set<String> files = new TreeSet<>();
        corpus().forEach(p -> files.add(key(p)));
        CorpusExpectations.checkCoverage(
                files, CorpusExpectations.load(EXPECTATIONS), EXPECTATIONS);
    }

    /**
     * Each corpus file, scanned on its own with every HAProxy rule, fires what its judged
     * expectations say (../shared/corpus/haproxy), no more and no fewer; a file the expectations
     * call refused is refused.
     */
    @TestFactory
    Stream<DynamicTest> eachFileFiresWhatItsExpectationsSay() throws IOException {
        Map<String, Map<String, Map<String, Object>>> exp = CorpusExpectations.load(EXPECTATIONS);
        return corpus().stream()
                .map(
                        p ->
                                DynamicTest.dynamicTest(
                                        key(p),
                                        () -> {
                                            Map<String, Map<String, Object>> objects =
                                                    exp.getOrDefault(key(p), Map.of());
                                            Object why =
                                                    objects.getOrDefault("*", Map.of()).get("why");
                                            boolean refused =
                                                    why != null
                                                            && why.toString().startsWith("refused");
                                            TestSupport.Run r =
                                                    TestSupport.run(
                                                            "scan",
                                                            "--format",
                                                            "json",
                                                            p.toString());
                                            assertEquals(refused, r.code() == 2, r.out() + r.err());
                                            if (!refused) {
                                                CorpusExpectations.check(key(p), scan(p), objects);
                                            }
                                        }));
    }

    static List<Finding> scan(Path file) {
        ScanRequest.Builder b = ScanRequest.builder();
        b.paths = List.of(file.toString());
        b.processEnv = Map.of();
        return new Engine(Catalog.packaged())
                .run(
                        Collector.collect(b.build()),
                        RuleRegistry.of(SourceKind.HAPROXY),
                        Engine.Options.defaults())
                .findings();
    }

    /**
     * deja refuses (exit 2) only corpus files that the installed haproxy refuses too (scanned as
     * its version, so version-dependent refusals such as a missing last LF agree). Some corpus
     * files are deliberately invalid: haproxy may refuse more (unknown keywords, missing
     * certificates), deja never refuses a file haproxy accepts.
     */
    @TestFactory
    Stream<DynamicTest> dejaRefusesOnlyWhatHaproxyRefuses() throws Exception {
        String version = haproxyVersion();
        Assumptions.assumeTrue(
                version != null,
                "haproxy is not installed (apt-get install haproxy; .ci/run installs"
                        + " it): corpus refusals are not compared with haproxy -c");
        return corpus().stream()
                .map(
                        p ->
                                DynamicTest.dynamicTest(
                                        p.getFileName().toString(),
                                        () -> {
                                            TestSupport.Run r =
                                                    TestSupport.run(
                                                            "scan",
                                                            "--haproxy-version",
                                                            version,
                                                            p.toString());
                                            if (r.code() != 2) {
                                                return;
                                            }
                                            Process proc =
                                                    new ProcessBuilder(
                                                                    "haproxy",
                                                                    "-c",
                                                                    "-f",
                                                                    p.toString())
                                                            .redirectErrorStream(true)
                                                            .start();
                                            String out =
                                                    new String(
                                                            proc.getInputStream().readAllBytes(),
                                                            StandardCharsets.UTF_8);
                                            assertTrue(
                                                    proc.waitFor(60, TimeUnit.SECONDS),
                                                    "haproxy -c timed out");
                                            assertTrue(
                                                    proc.exitValue() == 1,
                                                    "deja refused "
                                                            + p
                                                            + " ("
                                                            + r.err().strip()
                                                            + ") but haproxy "
                                                            + version
                                                            + " -c exits "
                                                            + proc.exitValue()
                                                            + ": "
                                                            + out);
                                        }));
    }

    /** "2.6" from "HAProxy version 2.6.12-1+deb12u4 ...", or null without haproxy. */
    static String haproxyVersion() throws InterruptedException {
        try {
            Process proc = new ProcessBuilder("haproxy", "-v").redirectErrorStream(true).start();
            String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            proc.waitFor(60, TimeUnit.SECONDS);
            Matcher m = Pattern.compile("version (\\d+\\.\\d+)").matcher(out);
            return m.find() ? m.group(1) : null;
        } catch (IOException e) {
            return null;
        }
    }

    @Test
    void randomEditsOnlyEverGiveTheDocumentedError() throws IOException {
        String[] snippets = {
            "\"",
            "'",
            "\\",
            "\\x",
            "\\x4",
            "#",
            "$",
            "${",
            "${X",
            "\"${A-b}\"",
            "\n",
            "\t",
            " ",
            ".if",
            ".if 1\n",
            ".elif",
            ".else\n",
            ".endif\n",
            ".if defined(Q)\n",
            "(",
            ")",
            "&&",
            "||",
            "!",
            "frontend",
            "defaults x from y\n",
            "backend",
            "listen l\n",
            "maxconn",
            "maxconn 99999999999999999999",
            "timeout tarpit",
            "timeout connect 1x",
            "http-request tarpit",
            "http-request tarpit if { sc_http_req_rate(0) gt 1 }\n",
            "bind :1 maxconn",
            "use_backend %[req.hdr(host)]\n",
            "mode http\n",
            "default_backend",
            "stats",
            "from",
            "\u00e9",
            "\r",
            "\r\n",
            "{",
            "}",
            "acl a sc_http_req_rate(0) gt 1\n",
            "track-sc0"
        };
        Random rnd = new Random(264);
        ScanRequest.Builder reqB = ScanRequest.builder();
        reqB.processEnv = Map.of("A", "1");
        ScanRequest req = reqB.build();
        Engine engine = new Engine(Catalog.packaged());
        int parsed = 0;
        int refused = 0;
        List<String> failures = new ArrayList<>();
        for (Path p : corpus()) {
            String original = Files.readString(p);
            for (int n = 0; n < 40; n++) {
                StringBuilder sb = new StringBuilder(original);
                int edits = 1 + rnd.nextInt(4);
                for (int e = 0; e < edits; e++) {
                    int at = sb.length() == 0 ? 0 : rnd.nextInt(sb.length() + 1);
                    switch (rnd.nextInt(4)) {
                        case 0 -> sb.insert(at, snippets[rnd.nextInt(snippets.length)]);
                        case 1 -> sb.delete(at, Math.min(sb.length(), at + 1 + rnd.nextInt(40)));
                        case 2 -> {
                            int from = rnd.nextInt(sb.length() + 1);
                            int to = Math.min(sb.length(), from + rnd.nextInt(200));
                            sb.insert(at, sb.substring(from, to));
                        }
                        default -> sb.setLength(at);
                    }
                }
                String display = "mut-" + p.getFileName() + "-" + n + ".cfg";
                try {
                    HaproxyConfig c =
                            HaproxyParser.parse(display, sb.toString(), req.haproxyParsing());
                    engine.run(
                            Snapshot.of(new HaproxyConfigs(List.of(c))),
                            RuleRegistry.of(SourceKind.HAPROXY),
                            Engine.Options.defaults());
                    parsed++;
                } catch (HaproxyParseException e) {
                    refused++;
                    if (!FILE_LINE.matcher(e.getMessage()).matches()
                            || !e.getMessage().startsWith(display + ":")) {
                        failures.add("bad message: " + e.getMessage());
                    }
                } catch (RuntimeException | StackOverflowError e) {
                    failures.add(display + ": " + e);
                    if (failures.size() == 1) {
                        e.printStackTrace();
                    }
                }
            }
        }
        if (!failures.isEmpty()) {
            fail(
                    failures.size()
                            + " mutants broke the parser, e.g. "
                            + failures.subList(0, Math.min(5, failures.size())));
        }
        assertTrue(
                parsed > 100 && refused > 20,
                "the mutants exercise both outcomes: parsed " + parsed + ", refused " + refused);
    }
}
