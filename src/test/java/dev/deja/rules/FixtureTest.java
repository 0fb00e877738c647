package dev.deja.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.Catalog;
import dev.deja.engine.Engine;
import dev.deja.engine.Finding;
import dev.deja.engine.Rule;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Snapshot;
import dev.deja.source.Collector;
import dev.deja.source.ScanRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every rule has fixtures in {@code src/test/resources/fixtures/<rule-id>/}: files that must fire and {@code *_ok.*}
 * files that must not. A line {@code # expect: <rule-id>} marks that a finding of that rule is expected on the next
 * directive line (the next line that is neither blank nor a comment).
 */
class FixtureTest {
    static final Path FIXTURES = Path.of("src/test/resources/fixtures");
    static final Pattern EXPECT = Pattern.compile("#\\s*expect:\\s*([a-z0-9-]+)");

    @Test
    void everyRuleHasAFiringAndAnOkFixture() throws IOException {
        List<String> missing = new ArrayList<>();
        for (Rule r : RuleRegistry.all()) {
            Path dir = FIXTURES.resolve(r.id());
            List<Path> files = files(dir);
            if (files.stream().noneMatch(f -> !isOk(f))) {
                missing.add(r.id() + ": no fixture that fires");
            }
            if (files.stream().noneMatch(FixtureTest::isOk)) {
                missing.add(r.id() + ": no _ok fixture");
            }
        }
        assertEquals(List.of(), missing);
    }

    @TestFactory
    Stream<DynamicTest> fixtures() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Rule r : RuleRegistry.all()) {
            for (Path f : files(FIXTURES.resolve(r.id()))) {
                tests.add(DynamicTest.dynamicTest(r.id() + " / " + f.getFileName(), () -> check(r, f)));
            }
        }
        return tests.stream();
    }

    static void check(Rule rule, Path file) throws IOException {
        ScanRequest req = new ScanRequest();
        req.paths = List.of(file.toString());
        req.processEnv = java.util.Map.of();
        Snapshot snapshot = Collector.collect(req);
        ScanResult result = new Engine(Catalog.packaged()).run(snapshot, List.of(rule), Engine.Options.defaults());
        List<Finding> found = result.findings();
        if (isOk(file)) {
            assertEquals(List.of(), found.stream().map(Finding::message).toList(), file + " must not fire " + rule.id());
            return;
        }
        assertFalse(found.isEmpty(), file + " must fire " + rule.id());
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = EXPECT.matcher(lines.get(i));
            if (m.find() && m.group(1).equals(rule.id())) {
                int target = nextDirective(lines, i + 1);
                assertTrue(found.stream().anyMatch(x -> x.location().line() != null && x.location().line() == target),
                        file + ": expected a finding of " + rule.id() + " at line " + target + ", got "
                                + found.stream().map(x -> x.location().display()).toList());
            }
        }
    }

    static int nextDirective(List<String> lines, int from) {
        for (int j = from; j < lines.size(); j++) {
            String t = lines.get(j).strip();
            if (!t.isEmpty() && !t.startsWith("#")) {
                return j + 1;
            }
        }
        return -1;
    }

    static boolean isOk(Path f) {
        String n = f.getFileName().toString();
        int dot = n.lastIndexOf('.');
        return (dot < 0 ? n : n.substring(0, dot)).endsWith("_ok");
    }

    static List<Path> files(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isRegularFile).sorted().toList();
        }
    }
}
