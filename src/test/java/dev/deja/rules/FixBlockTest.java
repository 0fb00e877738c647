package dev.deja.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.Catalog;
import dev.deja.engine.Fix;
import dev.deja.engine.RuleMetadata;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The {@code fix:} block of a rule's YAML: read into {@link Fix}, compiled into the packaged
 * catalog unchanged, and refused at catalog load when deja could not apply it.
 */
class FixBlockTest {
    static final String CASE = CatalogMetaTest.CASE;
    static final String HAPROXY =
            "id: a-rule\ntitle: A rule\nseverity: high\nsource: haproxy\ncaseIds: [IL-0001]\n"
                    + "description: d\nremediation: Set `timeout http-request 5s`, use `http-request"
                    + " deny deny_status 429`.\nlinks: ['https://x']\n";

    static Map<String, String> files(String rule) {
        return Map.of("cases/IL-0001.yaml", CASE, "a-rule.yaml", rule);
    }

    @Test
    void theBuiltInFixesAreReadAsTheYamlSaysThem() {
        Map<String, Fix> fixes = new TreeMap<>();
        for (RuleMetadata r : Catalog.fromDirectory(Path.of("rules")).rules()) {
            r.fixBlock().ifPresent(f -> fixes.put(r.id(), f));
        }
        // the HAProxy rules prove applies, and every Kubernetes rule whose advice is a change of
        // the manifests (RemediationClearsFindingTest applies each)
        assertEquals(
                List.of(
                        "haproxy-maxconn-headroom",
                        "haproxy-missing-http-request-timeout",
                        "haproxy-tarpit-holds-slots"),
                fixes.keySet().stream().filter(id -> id.startsWith("haproxy-")).toList());
        // every Kubernetes rule judged on manifests (its fixtures are YAML) says its fix in YAML;
        // those judged on live data (another cluster, disks, connection counts) change no manifest
        for (RuleMetadata r : Catalog.fromDirectory(Path.of("rules")).rules()) {
            if (r.source() == dev.deja.engine.SourceKind.KUBERNETES) {
                boolean manifests = hasYamlFixture(r.id());
                assertEquals(
                        manifests,
                        fixes.containsKey(r.id()),
                        r.id() + (manifests ? " has no fix: block" : " has a fix: block"));
            }
        }
        assertEquals(
                new Fix(
                        "timeout http-request 5s added to {section}",
                        List.of(
                                new Fix.SetDirective(
                                        "frontend", "timeout http-request", "5s", null))),
                fixes.get("haproxy-missing-http-request-timeout"));
        assertEquals(
                List.of(
                        new Fix.RaiseDirective(
                                "global",
                                "maxconn",
                                "{wantedMaxconn}",
                                "global maxconn {wantedMaxconn}"),
                        new Fix.SetDirective("frontend", "maxconn", "{wantedMaxconn}", null)),
                fixes.get("haproxy-maxconn-headroom").steps());
        assertEquals(
                List.of(new Fix.RewriteAction("tarpit", "deny", "deny_status 429", null)),
                fixes.get("haproxy-tarpit-holds-slots").steps());
        assertEquals(
                List.of(new Fix.Patch(List.of("data", "enable-serial-reloads"), "false")),
                fixes.get("k8s-ingress-nginx-serial-reloads").steps());
        // the packaged (compiled) catalog carries the same fixes
        for (Map.Entry<String, Fix> e : fixes.entrySet()) {
            assertEquals(
                    e.getValue(),
                    Catalog.packaged()
                            .rule(e.getKey())
                            .flatMap(RuleMetadata::fixBlock)
                            .orElse(null),
                    e.getKey());
        }
    }

    static boolean hasYamlFixture(String rule) {
        try (var files = java.nio.file.Files.list(Path.of("src/test/resources/fixtures", rule))) {
            return files.map(p -> p.getFileName().toString())
                    .anyMatch(n -> n.endsWith(".yaml") && !n.equals("expect.yaml"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aValidFixLoads() {
        Catalog c =
                Catalog.load(
                        files(
                                HAPROXY
                                        + "fix:\n  says: s {section}\n  steps:\n"
                                        + "    - set: {section: frontend, directive: timeout"
                                        + " http-request, value: 5s}\n"
                                        + "    - rewrite: {action: tarpit, to: deny, ensure:"
                                        + " deny_status 429}\n"));
        assertEquals(2, c.rule("a-rule").orElseThrow().fixBlock().orElseThrow().steps().size());
    }

    @Test
    void aFixDejaCannotApplyIsACatalogError() {
        String fix = "fix:\n  says: s\n  steps:\n    - ";
        refused(
                HAPROXY
                        + fix
                        + "set: {section: frontend, directive: timeout http-requests, value: 5s}\n",
                "rules/a-rule.yaml: fix.steps[0].set: unknown directive 'timeout http-requests' for"
                        + " set in frontend (did you mean timeout http-request?)");
        refused(
                HAPROXY + fix + "set: {section: backend, directive: maxconn, value: 5}\n",
                "fix.steps[0].set: unknown section 'backend'");
        refused(
                HAPROXY + fix + "raise: {section: global, directive: timeout client, value: 5s}\n",
                "unknown directive 'timeout client' for raise in global");
        refused(
                HAPROXY + fix + "rewrite: {action: tarpit, to: silent-drop}\n",
                "cannot rewrite action 'tarpit' to 'silent-drop'");
        refused(
                HAPROXY
                        + fix
                        + "set: {section: frontend, directive: timeout http-request, value: 9s}\n",
                "the remediation does not name 'timeout http-request 9s'");
        refused(
                HAPROXY
                        + fix
                        + "set: {section: frontend, directive: maxconn, value: \"{slots}\"}\n",
                "unknown input {slots}");
        refused(
                HAPROXY + fix + "patch: {data: {x: y}}\n",
                "'patch' is not a step of a haproxy rule");
        refused(HAPROXY + "fix:\n  says: s\n  steps: []\n", "fix needs 'steps'");
        refused(
                HAPROXY.replace("source: haproxy", "source: kubernetes")
                        + fix
                        + "patch: {spec: {ports: [1]}}\n",
                "spec.ports is a list");
        refused(
                HAPROXY.replace("source: haproxy", "source: kubernetes")
                        + fix
                        + "set: {section: frontend, directive: maxconn, value: 5}\n",
                "'set' is not a step of a kubernetes rule");
        refused(
                HAPROXY.replace("source: haproxy", "source: aws") + fix + "patch: {a: b}\n",
                "rules/a-rule.yaml: a rule of source aws cannot have a 'fix'");
    }

    static void refused(String rule, String expected) {
        CatalogMetaTest.assertRefused(files(rule), expected);
    }

    @Test
    void aPatchIsAMergePatchOfTheObject() {
        Map<String, Object> o = new java.util.LinkedHashMap<>();
        o.put("data", new java.util.LinkedHashMap<>(Map.of("enable-serial-reloads", "true")));
        new Fix.Patch(List.of("data", "enable-serial-reloads"), "false").applyTo(o);
        new Fix.Patch(List.of("metadata", "annotations", "a.b/c"), 1L).applyTo(o);
        new Fix.Patch(List.of("data", "gone"), null).applyTo(o);
        assertEquals(
                Map.of(
                        "data",
                        Map.of("enable-serial-reloads", "false"),
                        "metadata",
                        Map.of("annotations", Map.of("a.b/c", 1L))),
                o);
        new Fix.Patch(List.of("data", "enable-serial-reloads"), null).applyTo(o);
        assertTrue(((Map<?, ?>) o.get("data")).isEmpty());
    }
}
