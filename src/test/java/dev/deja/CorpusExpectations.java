package dev.deja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.rules.RuleRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Judged expectations for the shared real-world corpus (a YAML resource per corpus): per file, per
 * object ("Kind namespace/name", "frontend http", "global"), {@code fire}: the findings that must
 * be there (rule, severity, count, why) and {@code quiet}: the rules that must stay silent on it,
 * and why. Keys starting with "_" are anchors shared by several files.
 */
public final class CorpusExpectations {
    private CorpusExpectations() {}

    @SuppressWarnings("unchecked")
    public static Map<String, Map<String, Map<String, Object>>> load(String resource)
            throws IOException {
        try (InputStream in = CorpusExpectations.class.getResourceAsStream(resource)) {
            LoaderOptions o = new LoaderOptions();
            o.setMaxAliasesForCollections(200);
            Map<String, Map<String, Map<String, Object>>> all =
                    (Map<String, Map<String, Map<String, Object>>>)
                            new Yaml(new SafeConstructor(o)).load(in);
            all.keySet().removeIf(k -> k.startsWith("_"));
            return all;
        }
    }

    /** "Deployment ns/name", "frontend http", or "global" (a section without a kind). */
    public static String object(Location l) {
        String name = (l.namespace() == null ? "" : l.namespace() + "/") + l.name();
        return l.kind() == null ? name : l.kind() + " " + name;
    }

    @SuppressWarnings("unchecked")
    public static Map<String, String> quiet(Map<String, Object> e) {
        Object q = e.get("quiet");
        return q == null ? Map.of() : (Map<String, String>) q;
    }

    @SuppressWarnings("unchecked")
    public static List<Map<String, Object>> fire(Map<String, Object> e) {
        Object f = e.get("fire");
        return f == null ? List.of() : (List<Map<String, Object>>) f;
    }

    /**
     * The expectations name exactly the corpus files, and every object says what fires, what does
     * not, and why, naming known rules.
     */
    public static void checkCoverage(
            Set<String> files, Map<String, Map<String, Map<String, Object>>> exp, String resource) {
        assertEquals(
                new TreeSet<>(files),
                new TreeSet<>(exp.keySet()),
                "corpus files and expectations differ: write expectations for new files in "
                        + resource);
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

    /**
     * What fired on one file, per object and "rule severity", equals what its expectations say; no
     * rule fires that an object's {@code quiet} names.
     */
    public static void check(
            String key, List<Finding> findings, Map<String, Map<String, Object>> objects) {
        // object -> "rule severity" -> count, found and expected
        Map<String, Map<String, Integer>> got = new TreeMap<>();
        Map<String, List<String>> messages = new TreeMap<>();
        for (Finding f : findings) {
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
