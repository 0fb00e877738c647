package dev.deja.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.CaseInfo;
import dev.deja.engine.Catalog;
import dev.deja.engine.CatalogException;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleMetadata;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The catalog in {@code rules/} and the Java rules agree, and malformed metadata is refused. */
class CatalogMetaTest {
    static final Catalog CATALOG = Catalog.fromDirectory(Path.of("rules"));

    @Test
    void everyRuleYamlHasARegisteredClass() {
        List<String> problems = new ArrayList<>();
        for (RuleMetadata m : CATALOG.rules()) {
            try {
                RuleRegistry.instantiate(m);
            } catch (IllegalStateException e) {
                problems.add(e.getMessage());
            }
        }
        assertEquals(List.of(), problems, "rules/*.yaml whose class is missing or wrong");
    }

    @Test
    void everyRuleClassIsRegistered() throws Exception {
        Set<String> registered = new TreeSet<>();
        CATALOG.rules()
                .forEach(m -> registered.add(RuleRegistry.instantiate(m).getClass().getName()));
        List<String> orphans = new ArrayList<>();
        for (Class<?> c : ruleClasses()) {
            if (!registered.contains(c.getName())) {
                orphans.add(
                        c.getName()
                                + " is a Rule that RuleRegistry does not register: create rules/"
                                + idOf(c)
                                + ".yaml (id, title, severity, source, caseIds, description,"
                                + " remediation, links) and register it, or delete the class");
            }
        }
        assertEquals(List.of(), orphans);
    }

    @Test
    void anUnregisteredYamlIsABuildMistakeNamingWhereToRegister() {
        RuleMetadata m = CATALOG.rules().iterator().next();
        RuleMetadata unknown =
                new RuleMetadata(
                        "haproxy-not-written-yet",
                        m.title(),
                        m.severity(),
                        m.source(),
                        m.caseIds(),
                        m.description(),
                        m.remediation(),
                        m.links(),
                        m.aliases(),
                        m.parameters(),
                        null);
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> RuleRegistry.instantiate(unknown));
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "rules/haproxy-not-written-yet.yaml: no Java rule is registered"),
                e.getMessage());
        assertTrue(
                e.getMessage().contains("src/main/java/dev/deja/rules/RuleRegistry.java"),
                e.getMessage());
    }

    @Test
    void everyParameterIsReadByItsRule() throws Exception {
        List<String> unread = new ArrayList<>();
        for (RuleMetadata m : CATALOG.rules()) {
            Path src = Path.of(RuleRegistry.sourceFile(RuleRegistry.instantiate(m).getClass()));
            if (m.parameters().isEmpty() || !Files.isRegularFile(src)) {
                continue;
            }
            String code = Files.readString(src);
            for (RuleMetadata.Parameter p : m.parameters()) {
                if (!code.contains("\"" + p.name() + "\"")) {
                    unread.add(
                            "rules/"
                                    + m.id()
                                    + ".yaml declares parameter "
                                    + p.name()
                                    + ", which "
                                    + src
                                    + " never reads (ctx.intParameter(\""
                                    + p.name()
                                    + "\") or ctx.parameter(..))");
                }
            }
        }
        assertEquals(List.of(), unread);
    }

    @Test
    void ruleSourceAndLinks() {
        for (RuleMetadata m : CATALOG.rules()) {
            assertTrue(m.links().stream().allMatch(l -> l.startsWith("https://")), m.id());
        }
    }

    /**
     * Every concrete {@link Rule} class compiled under {@code dev.deja.rules}, but the rules of
     * one's own in CEL ({@code dev.deja.rules.cel}: their YAML is the user's).
     */
    static List<Class<?>> ruleClasses() throws Exception {
        Path classes =
                Path.of(
                        RuleRegistry.class
                                .getProtectionDomain()
                                .getCodeSource()
                                .getLocation()
                                .toURI());
        Path root = classes.resolve("dev/deja/rules");
        assertTrue(Files.isDirectory(root), "compiled rule classes in " + root);
        List<Class<?>> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s.sorted()::iterator) {
                String n = classes.relativize(p).toString().replace('\\', '/');
                if (!n.endsWith(".class")
                        || n.contains("$")
                        || n.startsWith("dev/deja/rules/cel/")) {
                    continue;
                }
                Class<?> c =
                        Class.forName(
                                n.substring(0, n.length() - ".class".length()).replace('/', '.'),
                                false,
                                CatalogMetaTest.class.getClassLoader());
                if (Rule.class.isAssignableFrom(c)
                        && !c.isInterface()
                        && !Modifier.isAbstract(c.getModifiers())) {
                    out.add(c);
                }
            }
        }
        assertTrue(
                out.size() >= CATALOG.rules().size() / 2,
                "sanity: rule classes found in " + root + ": " + out);
        return out;
    }

    /**
     * The id a rule class gives itself (or a guess from its name when it cannot be constructed).
     */
    static String idOf(Class<?> c) {
        try {
            var k = c.getDeclaredConstructor();
            k.setAccessible(true);
            return ((Rule) k.newInstance()).id();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return c.getSimpleName()
                    .replaceAll("([a-z0-9])([A-Z])", "$1-$2")
                    .toLowerCase(Locale.ROOT);
        }
    }

    @Test
    void everyCaseIsUsedByARule() {
        Set<String> used = new HashSet<>();
        CATALOG.rules().forEach(r -> used.addAll(r.caseIds()));
        List<String> unused = new ArrayList<>();
        for (CaseInfo c : CATALOG.cases()) {
            if (!used.contains(c.id())) {
                unused.add(c.id());
            }
        }
        assertEquals(List.of(), unused, "cases no rule links");
    }

    @Test
    void packagedCatalogEqualsTheRepositoryFolder() {
        // the packaged catalog is the build-time compiled form: it must say exactly what the YAML
        // says
        assertEquals(List.copyOf(CATALOG.rules()), List.copyOf(Catalog.packaged().rules()));
        assertEquals(List.copyOf(CATALOG.cases()), List.copyOf(Catalog.packaged().cases()));
    }

    static final String CASE =
            "id: IL-0001\ntitle: T\norganisation: O\ndate: '2024-01-01'\ntags: [x]\nsummary: S.\n"
                    + "timeline: [{time: '1', event: e}]\nfollowUps: [f]\nlinks: ['https://x']\n"
                    + "libraryUrl: https://incidentlib-api.benchlet.com/cases/IL-0001\n";
    static final String RULE =
            "id: a-rule\ntitle: A rule\nseverity: high\nsource: haproxy\ncaseIds: [IL-0001]\n"
                    + "description: d\nremediation: Fix it.\nlinks: ['https://x']\n";

    @Test
    void aValidMiniCatalogLoads() {
        Catalog c = Catalog.load(Map.of("cases/IL-0001.yaml", CASE, "a-rule.yaml", RULE));
        assertEquals(1, c.rules().size());
        assertEquals(
                List.of("a-rule"),
                c.rulesForCase("IL-0001").stream().map(RuleMetadata::id).toList());
        assertRefused(
                Map.of("cases/IL-0001.yaml", CASE, "a-rule.yaml", RULE + "class: x.y.Other\n"),
                "rules/a-rule.yaml: 'class:' is not read: a Java rule is registered by its id in"
                        + " dev.deja.rules.RuleRegistry");
    }

    @Test
    void malformedMetadataIsRefusedNamingTheFile() {
        assertRefused(
                Map.of(
                        "cases/IL-0001.yaml",
                        CASE,
                        "a-rule.yaml",
                        RULE.replace("[IL-0001]", "[IL-0002]")),
                "rules/a-rule.yaml: links unknown case IL-0002");
        assertRefused(
                Map.of(
                        "cases/IL-0001.yaml",
                        CASE,
                        "a-rule.yaml",
                        RULE.replace("id: a-rule", "id: A_Rule")),
                "malformed rule id");
        assertRefused(
                Map.of(
                        "cases/IL-0001.yaml",
                        CASE,
                        "a-rule.yaml",
                        RULE.replace("Fix it.", "Fix it")),
                "remediation does not end with a period");
        assertRefused(
                Map.of(
                        "cases/IL-0001.yaml",
                        CASE,
                        "a-rule.yaml",
                        RULE.replace("A rule", "A rule.")),
                "title ends with a period");
        assertRefused(
                Map.of("cases/IL-0001.yaml", CASE, "a-rule.yaml", RULE.replace("[IL-0001]", "[]")),
                "caseIds is empty");
        assertRefused(
                Map.of(
                        "cases/IL-0001.yaml",
                        CASE,
                        "a-rule.yaml",
                        RULE.replace("'https://x'", "'http://x'")),
                "link is not https");
        assertRefused(
                Map.of(
                        "cases/IL-0001.yaml",
                        CASE,
                        "a-rule.yaml",
                        RULE.replace("severity: high", "severity: huge")),
                "unknown severity");
        assertRefused(
                Map.of("cases/IL-0001.yaml", CASE, "b-rule.yaml", RULE),
                "file name does not match id a-rule");
        assertRefused(
                Map.of("cases/IL-0001.yaml", CASE, "a-rule.yaml", RULE + "id: again\n"),
                "not valid YAML");
        assertRefused(
                Map.of("cases/IL-0001.yaml", CASE.replace("IL-0001\ntitle", "IL-1\ntitle")),
                "malformed case id");
    }

    static void assertRefused(Map<String, String> files, String expected) {
        CatalogException e = assertThrows(CatalogException.class, () -> Catalog.load(files));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
