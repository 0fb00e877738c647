package dev.deja.rules.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.engine.Catalog;
import dev.deja.engine.Engine;
import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.Rule;
import dev.deja.engine.SourceKind;
import dev.deja.rules.RuleRegistry;
import dev.deja.source.Collector;
import dev.deja.source.ScanRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Every file of the shared real-world Kubernetes corpus ({@code ../shared/corpus/kubernetes-real/}
 * and {@code ../shared/corpus/kubernetes/}) is scanned on its own with every Kubernetes rule, and
 * what fires on each object is compared with {@code corpus/kubernetes-expectations.yaml}: written
 * after reading each manifest, per object the findings that must be there (rule, severity, count,
 * why) and the rules that must stay silent (and why). A finding the file does not expect fails with
 * its message; so does an expected one that is missing, and a corpus file nobody wrote expectations
 * for. Skipped, saying so, when ../shared is not beside the clone.
 */
class RealCorpusTest {
    static final String EXPECTATIONS = "/corpus/kubernetes-expectations.yaml";

    @SuppressWarnings("unchecked")
    static Map<String, Map<String, Map<String, Object>>> expectations() throws IOException {
        try (InputStream in = RealCorpusTest.class.getResourceAsStream(EXPECTATIONS)) {
            LoaderOptions o = new LoaderOptions();
            o.setMaxAliasesForCollections(200);
            Map<String, Map<String, Map<String, Object>>> all =
                    (Map<String, Map<String, Map<String, Object>>>)
                            new Yaml(new SafeConstructor(o)).load(in);
            all.keySet().removeIf(k -> k.startsWith("_")); // anchors shared by several files
            return all;
        }
    }

    static List<Path> corpusFiles(Path shared) throws IOException {
        List<Path> out = new ArrayList<>();
        for (String dir : List.of("corpus/kubernetes-real", "corpus/kubernetes")) {
            try (Stream<Path> s = Files.walk(shared.resolve(dir))) {
                s.filter(Files::isRegularFile).sorted().forEach(out::add);
            }
        }
        return out;
    }

    /** "kubernetes-real/haproxytech/haproxy-ingress.yaml", as the expectations name it. */
    static String key(Path shared, Path file) {
        return shared.resolve("corpus").relativize(file).toString().replace('\\', '/');
    }

    static String object(Location l) {
        return l.kind() + " " + (l.namespace() == null ? "" : l.namespace() + "/") + l.name();
    }

    static List<Finding> scan(Path file) {
        ScanRequest.Builder b = ScanRequest.builder();
        b.paths = List.of(file.toString());
        b.processEnv = Map.of();
        ScanRequest req = b.build();
        List<Rule> kube =
                RuleRegistry.all().stream()
                        .filter(r -> r.source() == SourceKind.KUBERNETES)
                        .toList();
        return new Engine(Catalog.packaged())
                .run(Collector.collect(req), kube, Engine.Options.defaults())
                .findings();
    }

    @Test
    void everyCorpusFileHasExpectationsAndEveryExpectationAFile() throws IOException {
        Path shared = TestSupport.shared("corpus/kubernetes-real");
        shared = shared.getParent().getParent();
        Map<String, Map<String, Map<String, Object>>> exp = expectations();
        Set<String> files = new TreeSet<>();
        for (Path f : corpusFiles(shared)) {
            files.add(key(shared, f));
        }
        assertEquals(
                files,
                new TreeSet<>(exp.keySet()),
                "corpus files and expectations differ: write expectations for new files in "
                        + EXPECTATIONS);
        Set<String> ids = new TreeSet<>();
        RuleRegistry.all().forEach(r -> ids.add(r.id()));
        for (var file : exp.entrySet()) {
            for (var obj : file.getValue().entrySet()) {
                Map<String, Object> e = obj.getValue();
                assertTrue(
                        e.containsKey("why") || e.containsKey("fire") || e.containsKey("quiet"),
                        file.getKey()
                                + " "
                                + obj.getKey()
                                + ": say what fires, what does not, and why");
                for (String r : quiet(e).keySet()) {
                    assertTrue(
                            r.equals("all") || ids.contains(r),
                            file.getKey() + " " + obj.getKey() + ": unknown rule " + r);
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, String> quiet(Map<String, Object> e) {
        Object q = e.get("quiet");
        return q == null ? Map.of() : (Map<String, String>) q;
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> fire(Map<String, Object> e) {
        Object f = e.get("fire");
        return f == null ? List.of() : (List<Map<String, Object>>) f;
    }

    @TestFactory
    Stream<DynamicTest> eachFileFiresWhatItsExpectationsSay() throws IOException {
        Path shared = TestSupport.shared("corpus/kubernetes-real").getParent().getParent();
        Map<String, Map<String, Map<String, Object>>> exp = expectations();
        List<DynamicTest> tests = new ArrayList<>();
        for (Path f : corpusFiles(shared)) {
            String k = key(shared, f);
            tests.add(DynamicTest.dynamicTest(k, () -> check(k, f, exp.getOrDefault(k, Map.of()))));
        }
        return tests.stream();
    }

    static void check(String key, Path file, Map<String, Map<String, Object>> objects) {
        // object -> "rule severity" -> count, found and expected
        Map<String, Map<String, Integer>> got = new TreeMap<>();
        Map<String, List<String>> messages = new TreeMap<>();
        for (Finding f : scan(file)) {
            String o = object(f.location());
            got.computeIfAbsent(o, x -> new TreeMap<>())
                    .merge(
                            f.ruleId() + " " + f.severity().name().toLowerCase(Locale.ROOT),
                            1,
                            Integer::sum);
            messages.computeIfAbsent(o, x -> new ArrayList<>())
                    .add(f.ruleId() + ": " + f.message());
        }
        Map<String, Map<String, Integer>> want = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        for (var obj : objects.entrySet()) {
            Map<String, Integer> w = new TreeMap<>();
            for (Map<String, Object> fire : fire(obj.getValue())) {
                w.put(
                        fire.get("rule") + " " + fire.get("severity"),
                        ((Number) fire.getOrDefault("count", 1)).intValue());
                if (!fire.containsKey("why")) {
                    problems.add(obj.getKey() + ": " + fire.get("rule") + " has no why");
                }
            }
            if (!w.isEmpty()) {
                want.put(obj.getKey(), w);
            }
            for (String r : quiet(obj.getValue()).keySet()) {
                for (String g : got.getOrDefault(obj.getKey(), Map.of()).keySet()) {
                    if (r.equals("all") || g.startsWith(r + " ")) {
                        problems.add(
                                obj.getKey()
                                        + ": "
                                        + g
                                        + " must stay silent ("
                                        + quiet(obj.getValue()).get(r)
                                        + ")");
                    }
                }
            }
        }
        if (!got.equals(want)) {
            problems.add("expected " + want + "\n got " + got + "\n messages " + messages);
        }
        assertEquals(List.of(), problems, key);
    }
}
