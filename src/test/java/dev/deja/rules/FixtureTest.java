package dev.deja.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.deja.collect.Collector;
import dev.deja.engine.Catalog;
import dev.deja.engine.Engine;
import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleMetadata;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SourceKind;
import dev.deja.source.ScanRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Exhaustive fixtures, in the style of Error Prone's {@code CompilationTestHelper}: every rule has
 * a folder {@code src/test/resources/fixtures/<rule-id>/} with files that must fire and {@code
 * *_ok.*} files that must not, and every finding in a fixture must be expected, no more and no
 * fewer.
 *
 * <ul>
 *   <li>Configuration and YAML files: {@code # expect: <rule-id> [message substring]} expects one
 *       finding of that rule on its own line (as a trailing comment) or, as a comment line of its
 *       own, on the next line that is neither blank nor a comment. Stack several comment lines to
 *       expect several findings on one line.
 *   <li>JSON files (no comments): {@code expect.yaml} in the same folder maps a fixture's file name
 *       to a list of {@code {rule, line, object, severity, message, count}}: every key optional,
 *       {@code rule} defaults to the folder's rule, {@code object} and {@code message} (a string or
 *       a list) are substrings, {@code count} (default 1) is how many findings the entry stands
 *       for.
 *   <li>A folder inside the rule's folder is one fixture whose files are scanned together (a
 *       configuration with the live figures read from its HAProxy, as a snapshot): the markers of
 *       its files are its expectations; a folder named {@code *_ok} must not fire.
 * </ul>
 *
 * The folder's rule runs on each fixture, plus any rule a marker names. A finding nothing expects
 * fails with its full message; an expectation no finding meets fails naming the fixture and line.
 */
class FixtureTest {
    static final Path FIXTURES = Path.of("src/test/resources/fixtures");
    static final String EXPECT_FILE = "expect.yaml";
    static final Pattern MARKER = Pattern.compile("#\\s*expect:\\s*(\\S+)[ \\t]*(.*?)\\s*$");
    static final Set<String> ENTRY_KEYS =
            Set.of("rule", "line", "object", "severity", "message", "count");

    /**
     * What one marker or expect.yaml entry expects; {@code where} says where it is written, for
     * messages.
     */
    record Expectation(
            String where,
            String rule,
            Integer line,
            String object,
            Severity severity,
            List<String> messages,
            int count) {
        boolean matches(Finding f) {
            return f.ruleId().equals(rule)
                    && (line == null || line.equals(f.location().line()))
                    && (object == null || f.location().display().contains(object))
                    && (severity == null || severity == f.severity())
                    && messages.stream().allMatch(m -> f.message().contains(m));
        }

        String describe() {
            List<String> parts = new ArrayList<>();
            if (line != null) {
                parts.add("at line " + line);
            }
            if (object != null) {
                parts.add("object containing '" + object + "'");
            }
            if (severity != null) {
                parts.add("severity " + severity.id());
            }
            messages.forEach(m -> parts.add("message containing '" + m + "'"));
            return (count == 1 ? "a finding" : count + " findings")
                    + " of "
                    + rule
                    + (parts.isEmpty() ? "" : " " + String.join(", ", parts));
        }
    }

    @Test
    void everyRuleHasAFiringAndAnOkFixture() throws IOException {
        List<String> missing = new ArrayList<>();
        for (RuleMetadata r : Catalog.packaged().rules()) {
            Path dir = FIXTURES.resolve(r.id());
            List<Path> files = fixtures(dir);
            String ext =
                    switch (r.source()) {
                        case HAPROXY -> "cfg";
                        case KUBERNETES -> "yaml";
                        case AWS -> "json";
                    };
            if (files.stream().noneMatch(f -> !isOk(f))) {
                missing.add(
                        r.id()
                                + ": no fixture that fires: create "
                                + dir.resolve("<case>." + ext)
                                + (r.source() == SourceKind.AWS
                                        ? " (a deja snapshot) and list its findings in "
                                                + dir.resolve(EXPECT_FILE)
                                        : " with '# expect: "
                                                + r.id()
                                                + " <part of the message>' above each line that fires"));
            }
            if (files.stream().noneMatch(FixtureTest::isOk)) {
                missing.add(
                        r.id()
                                + ": no fixture that must not fire: create "
                                + dir.resolve("<case>_ok." + ext)
                                + " (the fixed configuration)");
            }
        }
        assertEquals(List.of(), missing);
    }

    @Test
    void everyFixtureFolderIsARule() throws IOException {
        List<String> stray = new ArrayList<>();
        try (Stream<Path> s = Files.list(FIXTURES)) {
            for (Path dir : (Iterable<Path>) s.sorted()::iterator) {
                String name = dir.getFileName().toString();
                if (Catalog.packaged().rule(name).isEmpty() || !Files.isDirectory(dir)) {
                    stray.add(
                            dir
                                    + ": no rule "
                                    + name
                                    + " (a fixture folder is named after its rule's id)");
                }
            }
        }
        assertEquals(List.of(), stray);
    }

    /**
     * {@code mvn test -Dtest=FixtureTest -Ddeja.rule=RULE-ID}: only that rule's fixtures (while
     * writing a rule).
     */
    static final String ONLY = System.getProperty("deja.rule", "");

    @TestFactory
    Stream<DynamicTest> fixtures() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        if (!ONLY.isEmpty() && Catalog.packaged().rule(ONLY).isEmpty()) {
            fail(
                    "-Ddeja.rule="
                            + ONLY
                            + ": no such rule in rules/ (create rules/"
                            + ONLY
                            + ".yaml)");
        }
        for (RuleMetadata r : Catalog.packaged().rules()) {
            if (!ONLY.isEmpty() && !r.id().equals(ONLY)) {
                continue;
            }
            for (Path f : fixtures(FIXTURES.resolve(r.id()))) {
                tests.add(
                        DynamicTest.dynamicTest(
                                r.id() + " / " + f.getFileName(),
                                f.toUri(),
                                () -> check(r.id(), f)));
            }
        }
        return tests.stream();
    }

    /**
     * The harness itself: what it reports for a finding nobody expects and an expectation nothing
     * meets.
     */
    @Test
    void theHarnessNamesUnexpectedAndMissingFindings() {
        Path f = Path.of("fixtures/r-x/a.cfg");
        Finding right = finding("r-x", 3, "frontend a has no limit");
        Finding extra = finding("r-x", 9, "frontend b has no limit");
        Expectation onLine3 =
                new Expectation(f + ":2", "r-x", 3, null, null, List.of("no limit"), 1);
        Expectation wrongText =
                new Expectation(f + ":4", "r-x", 5, null, null, List.of("too many"), 1);
        assertEquals(List.of(), compare(f, List.of(onLine3), List.of(right)));
        List<String> problems = compare(f, List.of(onLine3, wrongText), List.of(right, extra));
        assertEquals(2, problems.size(), problems.toString());
        assertEquals(
                f
                        + ":9: unexpected finding of r-x (medium) at "
                        + f
                        + ":9: frontend b has no limit\n    if it is"
                        + " right, expect it: '# expect: r-x <part of the message>' on or above line 9",
                problems.get(0));
        assertEquals(
                f
                        + ":4: expected a finding of r-x at line 5, message containing 'too many', but none fired there;"
                        + " findings of r-x in this fixture: line 3 (medium): frontend a has no limit | line 9 (medium): frontend b"
                        + " has no limit",
                problems.get(1));
        // a general expectation does not take the finding a specific one needs
        Expectation any = new Expectation(f + ":1", "r-x", null, null, null, List.of(), 1);
        Expectation onlyB =
                new Expectation(f + ":8", "r-x", 9, null, null, List.of("frontend b"), 1);
        assertEquals(List.of(), compare(f, List.of(any, onlyB), List.of(extra, right)));
        // counts: two findings, an entry for one
        Expectation one =
                new Expectation(
                        "expect.yaml: a.json #1", "r-x", null, null, null, List.of("no limit"), 1);
        assertEquals(
                1,
                compare(Path.of("fixtures/r-x/a.json"), List.of(one), List.of(right, extra))
                        .size());
    }

    static Finding finding(String rule, int line, String message) {
        return new Finding(
                rule,
                Severity.MEDIUM,
                List.of("IL-0001"),
                message,
                "Fix.",
                Location.file("fixtures/r-x/a.cfg", line),
                List.of(),
                List.of());
    }

    /**
     * Runs the folder's rule (and any rule a marker names) on one fixture and compares with what it
     * expects.
     */
    static void check(String ruleId, Path file) throws IOException {
        List<Expectation> expected = new ArrayList<>();
        if (Files.isDirectory(file)) {
            for (Path inner : fixtures(file)) {
                if (Files.isRegularFile(inner)) {
                    expected.addAll(expectations(ruleId, inner));
                }
            }
        } else {
            expected.addAll(expectations(ruleId, file));
        }
        if (isOk(file) && !expected.isEmpty()) {
            fail(
                    file
                            + " is a *_ok fixture (nothing may fire) but expects "
                            + expected.get(0).describe());
        }
        if (!isOk(file) && expected.isEmpty()) {
            fail(
                    file
                            + " expects no finding: "
                            + (isJson(file)
                                    ? "list its findings under "
                                            + file.getFileName()
                                            + " in "
                                            + file.resolveSibling(EXPECT_FILE)
                                    : "mark each line that fires with '# expect: "
                                            + ruleId
                                            + " <part of the message>'")
                            + ", or name the file *_ok if nothing may fire");
        }
        Set<String> ids = new TreeSet<>();
        ids.add(ruleId);
        expected.forEach(e -> ids.add(e.rule()));
        List<String> unknown =
                ids.stream().filter(id -> Catalog.packaged().rule(id).isEmpty()).toList();
        if (!unknown.isEmpty()) {
            fail(file + ": expects findings of unknown rule(s) " + unknown + " (see rules/)");
        }
        List<Rule> rules =
                RuleRegistry.load(
                        ids.stream().map(id -> Catalog.packaged().rule(id).orElseThrow()).toList());
        ScanRequest.Builder reqB = ScanRequest.builder();
        reqB.paths = List.of(file.toString());
        reqB.processEnv = Map.of();
        ScanRequest req = reqB.build();
        Snapshot snapshot = Collector.collect(req);
        ScanResult result =
                new Engine(Catalog.packaged()).run(snapshot, rules, Engine.Options.defaults());
        List<String> problems = compare(file, expected, result.findings());
        if (!problems.isEmpty()) {
            fail(String.join("\n", problems));
        }
    }

    /**
     * Pairs findings with expectations (each expectation takes up to its count of findings; a
     * maximum matching, so that a general expectation does not take the finding a specific one
     * needs) and lists what is left on either side.
     */
    static List<String> compare(Path file, List<Expectation> expected, List<Finding> found) {
        List<Integer> slotOwner = new ArrayList<>(); // slot -> expectation index
        for (int i = 0; i < expected.size(); i++) {
            for (int k = 0; k < expected.get(i).count(); k++) {
                slotOwner.add(i);
            }
        }
        int[] slotTaker = new int[slotOwner.size()];
        Arrays.fill(slotTaker, -1);
        for (int f = 0; f < found.size(); f++) {
            augment(f, found, expected, slotOwner, slotTaker, new boolean[slotOwner.size()]);
        }
        Set<Integer> matched = new LinkedHashSet<>();
        int[] filled = new int[expected.size()];
        for (int s = 0; s < slotTaker.length; s++) {
            if (slotTaker[s] >= 0) {
                matched.add(slotTaker[s]);
                filled[slotOwner.get(s)]++;
            }
        }
        List<String> problems = new ArrayList<>();
        for (int f = 0; f < found.size(); f++) {
            if (!matched.contains(f)) {
                Finding x = found.get(f);
                Integer line = x.location().line();
                problems.add(
                        file
                                + (line == null ? "" : ":" + line)
                                + ": unexpected finding of "
                                + x.ruleId()
                                + " ("
                                + x.severity().id()
                                + ") at "
                                + x.location().display()
                                + ": "
                                + x.message()
                                + "\n    if it is right, expect it: "
                                + (isJson(file) || line == null
                                        ? "an entry in "
                                                + file.resolveSibling(EXPECT_FILE)
                                                + " under "
                                                + file.getFileName()
                                        : "'# expect: "
                                                + x.ruleId()
                                                + " <part of the message>' on or above line "
                                                + line));
            }
        }
        for (int i = 0; i < expected.size(); i++) {
            Expectation e = expected.get(i);
            if (filled[i] < e.count()) {
                List<String> sameRule =
                        found.stream()
                                .filter(x -> x.ruleId().equals(e.rule()))
                                .map(
                                        x ->
                                                (x.location().line() == null
                                                                ? ""
                                                                : "line "
                                                                        + x.location().line()
                                                                        + " ")
                                                        + "("
                                                        + x.severity().id()
                                                        + "): "
                                                        + x.message())
                                .toList();
                problems.add(
                        e.where()
                                + ": expected "
                                + e.describe()
                                + (e.count() > 1 ? " (found " + filled[i] + ")" : "")
                                + ", but none fired there; findings of "
                                + e.rule()
                                + " in this fixture: "
                                + (sameRule.isEmpty() ? "none" : String.join(" | ", sameRule)));
            }
        }
        return problems;
    }

    private static boolean augment(
            int f,
            List<Finding> found,
            List<Expectation> expected,
            List<Integer> slotOwner,
            int[] slotTaker,
            boolean[] seen) {
        for (int s = 0; s < slotOwner.size(); s++) {
            if (!seen[s] && expected.get(slotOwner.get(s)).matches(found.get(f))) {
                seen[s] = true;
                if (slotTaker[s] < 0
                        || augment(slotTaker[s], found, expected, slotOwner, slotTaker, seen)) {
                    slotTaker[s] = f;
                    return true;
                }
            }
        }
        return false;
    }

    /** The markers of a file and its entries in the folder's expect.yaml. */
    static List<Expectation> expectations(String ruleId, Path file) throws IOException {
        List<Expectation> out = new ArrayList<>();
        if (!isJson(file)) {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = MARKER.matcher(lines.get(i));
                if (!m.find()) {
                    continue;
                }
                boolean own = lines.get(i).strip().startsWith("#");
                int target = own ? nextContentLine(lines, i + 1) : i + 1;
                String where = file + ":" + (i + 1);
                if (target < 0) {
                    fail(where + ": '# expect:' with no line after it to expect a finding on");
                }
                List<String> text = m.group(2).isEmpty() ? List.of() : List.of(m.group(2));
                out.add(new Expectation(where, m.group(1), target, null, null, text, 1));
            }
        }
        Path expect = file.resolveSibling(EXPECT_FILE);
        if (Files.isRegularFile(expect)) {
            Object entries = readExpectFile(expect).get(file.getFileName().toString());
            if (entries != null) {
                if (!(entries instanceof List<?> list)) {
                    throw new AssertionError(
                            expect + ": " + file.getFileName() + ": expected a list of findings");
                }
                int n = 0;
                for (Object o : list) {
                    n++;
                    out.add(entry(o, expect + ": " + file.getFileName() + " #" + n, ruleId));
                }
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> readExpectFile(Path expect) throws IOException {
        Object doc =
                new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(expect));
        if (doc == null) {
            return Map.of();
        }
        if (!(doc instanceof Map<?, ?> m)) {
            throw new AssertionError(
                    expect + ": expected a mapping from fixture file name to its findings");
        }
        for (Object name : m.keySet()) {
            if (!Files.isRegularFile(expect.resolveSibling(String.valueOf(name)))) {
                throw new AssertionError(
                        expect
                                + ": names "
                                + name
                                + ", which is not a file in "
                                + expect.getParent());
            }
        }
        return (Map<String, Object>) doc;
    }

    static Expectation entry(Object o, String where, String ruleId) {
        if (!(o instanceof Map<?, ?> m)) {
            throw new AssertionError(
                    where + ": expected a mapping with " + new TreeSet<>(ENTRY_KEYS));
        }
        for (Object k : m.keySet()) {
            if (!ENTRY_KEYS.contains(String.valueOf(k))) {
                throw new AssertionError(
                        where
                                + ": unknown key '"
                                + k
                                + "' (expected "
                                + new TreeSet<>(ENTRY_KEYS)
                                + ")");
            }
        }
        Object msg = m.get("message");
        List<String> messages =
                msg == null
                        ? List.of()
                        : msg instanceof List<?> l
                                ? l.stream().map(String::valueOf).toList()
                                : List.of(String.valueOf(msg));
        Object rule = m.get("rule");
        Object line = m.get("line");
        Object object = m.get("object");
        Object severity = m.get("severity");
        Object count = m.get("count");
        return new Expectation(
                where,
                rule == null ? ruleId : String.valueOf(rule),
                line == null ? null : Integer.valueOf(String.valueOf(line)),
                object == null ? null : String.valueOf(object),
                severity == null ? null : Severity.parse(String.valueOf(severity)),
                messages,
                count == null ? 1 : Integer.parseInt(String.valueOf(count)));
    }

    /**
     * The 1-based number of the first line from {@code from} (0-based) that is neither blank nor a
     * comment, or -1.
     */
    static int nextContentLine(List<String> lines, int from) {
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

    static boolean isJson(Path f) {
        return f.getFileName().toString().endsWith(".json");
    }

    /**
     * The fixtures of a folder: every file but its expect.yaml, and every folder (scanned as one
     * fixture).
     */
    static List<Path> fixtures(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(
                            p ->
                                    Files.isDirectory(p)
                                            || Files.isRegularFile(p)
                                                    && !p.getFileName()
                                                            .toString()
                                                            .equals(EXPECT_FILE))
                    .sorted()
                    .toList();
        }
    }
}
