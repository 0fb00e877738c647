package dev.deja.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.Catalog;
import dev.deja.engine.CatalogException;
import dev.deja.engine.CaseInfo;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleMetadata;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The catalog in {@code rules/} and the Java rules agree, and malformed metadata is refused. */
class CatalogMetaTest {
    static final Catalog CATALOG = Catalog.fromDirectory(Path.of("rules"));

    @Test
    void everyRuleYamlHasAnImplementationAndTheReverse() {
        Set<String> yaml = new TreeSet<>();
        CATALOG.rules().forEach(r -> yaml.add(r.id()));
        Set<String> java = new TreeSet<>();
        List<String> dup = new ArrayList<>();
        for (Rule r : RuleRegistry.all()) {
            if (!java.add(r.id())) {
                dup.add(r.id());
            }
        }
        assertEquals(List.of(), dup, "rule ids implemented twice");
        assertEquals(yaml, java, "rules/*.yaml and the Java rules must name the same ids");
    }

    @Test
    void ruleSourceMatchesItsImplementation() {
        for (Rule r : RuleRegistry.all()) {
            RuleMetadata m = CATALOG.rule(r.id()).orElseThrow();
            assertEquals(m.source(), r.source(), r.id());
            assertTrue(m.links().stream().allMatch(l -> l.startsWith("https://")), r.id());
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
        // the packaged catalog is the build-time compiled form: it must say exactly what the YAML says
        assertEquals(List.copyOf(CATALOG.rules()), List.copyOf(Catalog.packaged().rules()));
        assertEquals(List.copyOf(CATALOG.cases()), List.copyOf(Catalog.packaged().cases()));
    }

    static final String CASE = "id: IL-0001\ntitle: T\norganisation: O\ndate: '2024-01-01'\ntags: [x]\nsummary: S.\n"
            + "timeline: [{time: '1', event: e}]\nfollowUps: [f]\nlinks: ['https://x']\n"
            + "libraryUrl: https://incidentlib-api.benchlet.com/cases/IL-0001\n";
    static final String RULE = "id: a-rule\ntitle: A rule\nseverity: high\nsource: haproxy\ncaseIds: [IL-0001]\n"
            + "description: d\nremediation: Fix it.\nlinks: ['https://x']\n";

    @Test
    void aValidMiniCatalogLoads() {
        Catalog c = Catalog.load(Map.of("cases/IL-0001.yaml", CASE, "a-rule.yaml", RULE));
        assertEquals(1, c.rules().size());
        assertEquals(List.of("a-rule"), c.rulesForCase("IL-0001").stream().map(RuleMetadata::id).toList());
    }

    @Test
    void malformedMetadataIsRefusedNamingTheFile() {
        assertRefused(Map.of("cases/IL-0001.yaml", CASE, "a-rule.yaml", RULE.replace("[IL-0001]", "[IL-0002]")),
                "rules/a-rule.yaml: links unknown case IL-0002");
        assertRefused(Map.of("cases/IL-0001.yaml", CASE, "a-rule.yaml", RULE.replace("id: a-rule", "id: A_Rule")),
                "malformed rule id");
        assertRefused(Map.of("cases/IL-0001.yaml", CASE, "a-rule.yaml", RULE.replace("Fix it.", "Fix it")),
                "remediation does not end with a period");
        assertRefused(Map.of("cases/IL-0001.yaml", CASE, "a-rule.yaml", RULE.replace("A rule", "A rule.")),
                "title ends with a period");
        assertRefused(Map.of("cases/IL-0001.yaml", CASE, "a-rule.yaml", RULE.replace("[IL-0001]", "[]")),
                "caseIds is empty");
        assertRefused(Map.of("cases/IL-0001.yaml", CASE, "a-rule.yaml", RULE.replace("'https://x'", "'http://x'")),
                "link is not https");
        assertRefused(Map.of("cases/IL-0001.yaml", CASE, "a-rule.yaml", RULE.replace("severity: high", "severity: huge")),
                "unknown severity");
        assertRefused(Map.of("cases/IL-0001.yaml", CASE, "b-rule.yaml", RULE), "file name does not match id a-rule");
        assertRefused(Map.of("cases/IL-0001.yaml", CASE, "a-rule.yaml", RULE + "id: again\n"), "not valid YAML");
        assertRefused(Map.of("cases/IL-0001.yaml", CASE.replace("IL-0001\ntitle", "IL-1\ntitle")), "malformed case id");
    }

    static void assertRefused(Map<String, String> files, String expected) {
        CatalogException e = assertThrows(CatalogException.class, () -> Catalog.load(files));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
