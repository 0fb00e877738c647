package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.engine.Catalog;
import dev.deja.engine.CatalogException;
import dev.deja.engine.RuleMetadata;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Thresholds are parameters: declared with a default and a description in the rule's YAML,
 * overridden per rule in deja.yaml, validated (exit 2 naming the file and line), shown by {@code
 * deja explain}, and noted on the findings they changed.
 */
class RuleParametersTest {
    @TempDir Path tmp;

    /** A load-balancer probe whose window is 3 x 10s + 1s = 31s: just over the default 30s. */
    static final String PROBE =
            """
            apiVersion: apps/v1
            kind: Deployment
            metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
            spec:
              replicas: 3
              selector: {matchLabels: {app: nginx}}
              template:
                metadata: {labels: {app: nginx}}
                spec:
                  containers:
                    - name: controller
                      image: registry.k8s.io/ingress-nginx/controller:v1.12.1
                      readinessProbe:
                        httpGet: {path: /healthz, port: 10254}
                        periodSeconds: 10
                        failureThreshold: 3
                        timeoutSeconds: 1
            """;

    JsonNode scan(String config) throws Exception {
        Path m = tmp.resolve("deploy.yaml");
        Files.writeString(m, PROBE);
        Path c = tmp.resolve("deja.yaml");
        Files.writeString(c, config);
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        m.toString(),
                        "--config",
                        c.toString(),
                        "--format",
                        "json",
                        "--rules",
                        "k8s-lb-probe-fails-fast",
                        "--fail-on",
                        "none");
        assertEquals(0, r.code(), r.err());
        return r.json().path("findings").get(0);
    }

    @Test
    void aTeamsOwnThresholdChangesTheVerdictAndTheFindingSaysSo() throws Exception {
        JsonNode byDefault = scan("rules: {minSeverity: info}\n");
        assertEquals("low", byDefault.path("severity").asString(), byDefault.toString());
        assertEquals(0, byDefault.path("notes").size(), byDefault.toString());

        JsonNode tuned = scan("rules:\n  k8s-lb-probe-fails-fast: {minWindowSeconds: 45}\n");
        assertEquals("high", tuned.path("severity").asString(), tuned.toString());
        assertTrue(tuned.path("message").asString().contains("under 45s"), tuned.toString());
        assertEquals(
                "judged with minWindowSeconds 45 (default 30), as set in the configuration",
                tuned.path("notes").get(0).asString());

        JsonNode same = scan("rules:\n  k8s-lb-probe-fails-fast: {minWindowSeconds: 30}\n");
        assertEquals(
                0,
                same.path("notes").size(),
                "the default value set explicitly is not a tuned one: " + same);
    }

    @Test
    void unknownRulesParametersAndValuesAreUsageErrorsNamingTheLine() throws Exception {
        Path m = tmp.resolve("deploy.yaml");
        Files.writeString(m, PROBE);
        Map<String, String> bad =
                Map.of(
                        "rules:\n  k8s-lb-probe-fails-fsat: {minWindowSeconds: 45}\n",
                        ":2: unknown rule or key 'k8s-lb-probe-fails-fsat' in rules",
                        "rules:\n  k8s-lb-probe-fails-fast: {minWindow: 45}\n",
                        ":2: rule k8s-lb-probe-fails-fast has no parameter 'minWindow' (its parameters: minWindowSeconds)",
                        "rules:\n  k8s-lb-probe-fails-fast: {minWindowSeconds: 45s}\n",
                        ":2: rules.k8s-lb-probe-fails-fast.minWindowSeconds: '45s' is not a whole number (default 30)",
                        "rules:\n  k8s-lb-not-spread: {minWindowSeconds: 45}\n",
                        ":2: rule k8s-lb-not-spread has no parameter 'minWindowSeconds' (it has none)");
        for (Map.Entry<String, String> e : bad.entrySet()) {
            Path c = tmp.resolve("deja.yaml");
            Files.writeString(c, e.getKey());
            TestSupport.Run r = TestSupport.run("scan", m.toString(), "--config", c.toString());
            assertEquals(2, r.code(), e.getKey() + r.err());
            assertTrue(r.err().startsWith("deja: " + c + e.getValue()), r.err());
            assertEquals(1, r.err().strip().lines().count(), r.err());
        }
    }

    @Test
    void explainShowsTheParameters() {
        TestSupport.Run r = TestSupport.run("explain", "k8s-lb-probe-fails-fast");
        assertEquals(0, r.code(), r.err());
        assertTrue(
                r.out()
                        .contains(
                                "Parameters (deja.yaml: rules: {k8s-lb-probe-fails-fast: {NAME: VALUE}}):\n"
                                        + "  minWindowSeconds (default 30): Shortest stall"),
                r.out());
    }

    @Test
    void theCatalogRefusesMalformedParameters() {
        String rule =
                "id: a-rule\ntitle: A rule\nseverity: high\nsource: haproxy\ncaseIds: [IL-0001]\n"
                        + "description: d\nremediation: Fix it.\nlinks: ['https://x']\n";
        String kase =
                "id: IL-0001\ntitle: T\norganisation: O\ndate: '2024-01-01'\ntags: [x]\nsummary: S.\n"
                        + "timeline: [{time: '1', event: e}]\nfollowUps: [f]\nlinks: ['https://x']\n"
                        + "libraryUrl: https://incidentlib-api.benchlet.com/cases/IL-0001\n";
        Catalog ok =
                Catalog.load(
                        Map.of(
                                "cases/IL-0001.yaml",
                                kase,
                                "a-rule.yaml",
                                rule
                                        + "parameters: {ratio: {default: 0.25, description: A share.}}\n"));
        RuleMetadata.Parameter p = ok.rule("a-rule").orElseThrow().parameter("ratio").orElseThrow();
        assertEquals("0.25", p.defaultValue());
        assertEquals(false, p.integer());
        for (Map.Entry<String, String> e :
                Map.of(
                                "parameters: {ratio: {default: lots, description: A share.}}\n",
                                        "default 'lots' is not a number",
                                "parameters: {ratio: {default: 1}}\n",
                                        "needs exactly 'default' (a number) and 'description'",
                                "parameters: {Ratio: {default: 1, description: d}}\n",
                                        "'Ratio' is not lowerCamelCase")
                        .entrySet()) {
            CatalogException ex =
                    Assertions.assertThrows(
                            CatalogException.class,
                            () ->
                                    Catalog.load(
                                            Map.of(
                                                    "cases/IL-0001.yaml",
                                                    kase,
                                                    "a-rule.yaml",
                                                    rule + e.getKey())));
            assertTrue(
                    ex.getMessage().contains("rules/a-rule.yaml: ")
                            && ex.getMessage().contains(e.getValue()),
                    ex.getMessage());
        }
    }

    /**
     * A rollout of 2 of 4 pods (the 2 left carry 2.00x) and a tarpit holding 300 of 800 slots (38%:
     * the IL-0264 example with 800 slots in hc_ping).
     */
    @Test
    void theRolloutLoadFactorAndTheTarpitShareAreParametersToo() throws Exception {
        Path roomy = tmp.resolve("il-0264-800.cfg");
        Files.writeString(
                roomy,
                Files.readString(Path.of("examples/haproxy/il-0264-before.cfg"))
                        .replace("    maxconn 200\n", "    maxconn 800\n"));
        Path m = tmp.resolve("rollout.yaml");
        Files.writeString(
                m,
                """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: edge, namespace: lb}
                spec:
                  replicas: 4
                  strategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 2}}
                  selector: {matchLabels: {app: edge}}
                  template:
                    metadata: {labels: {app: edge}}
                    spec:
                      containers:
                        - name: envoy
                          image: envoyproxy/envoy:v1.31.2
                """);
        Path c = tmp.resolve("deja.yaml");
        Files.writeString(
                c,
                "rules:\n  k8s-lb-no-disruption-headroom: {maxLoadFactor: 2.5}\n"
                        + "  haproxy-tarpit-holds-slots: {highSharePercent: 50}\n");
        String[] common = {
            "--format",
            "json",
            "--fail-on",
            "none",
            "--rules",
            "k8s-lb-no-disruption-headroom,haproxy-tarpit-holds-slots",
            m.toString(),
            roomy.toString()
        };
        TestSupport.Run byDefault = TestSupport.run(concat(new String[] {"scan"}, common));
        TestSupport.Run tuned =
                TestSupport.run(concat(new String[] {"scan", "--config", c.toString()}, common));
        assertEquals(0, byDefault.code(), byDefault.err());
        assertEquals(0, tuned.code(), tuned.err());
        assertTrue(
                messages(byDefault).stream().anyMatch(x -> x.contains("2 left carry 2.00x")),
                byDefault.out());
        assertTrue(
                messages(tuned).stream().noneMatch(x -> x.contains("out of rotation at once")),
                "a 2.00x rollout is within a maxLoadFactor of 2.5: " + tuned.out());
        assertEquals(
                "high",
                tarpit(byDefault).path("severity").asString(),
                "300 of 800 slots is over 25%");
        JsonNode t = tarpit(tuned);
        assertEquals(
                "medium", t.path("severity").asString(), "300 of 800 slots is under 50%: " + t);
        assertTrue(
                t.path("notes").toString().contains("judged with highSharePercent 50 (default 25)"),
                t.toString());
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static List<String> messages(TestSupport.Run r) {
        List<String> out = new ArrayList<>();
        r.json().path("findings").forEach(f -> out.add(f.path("message").asString()));
        return out;
    }

    private static JsonNode tarpit(TestSupport.Run r) {
        for (JsonNode f : r.json().path("findings")) {
            if ("haproxy-tarpit-holds-slots".equals(f.path("ruleId").asString())) {
                return f;
            }
        }
        throw new AssertionError("no tarpit finding: " + r.out());
    }
}
