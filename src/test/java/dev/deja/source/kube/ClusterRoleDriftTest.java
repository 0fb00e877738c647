package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.engine.Rule;
import dev.deja.rules.RuleRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The shipped CronJob's RBAC follows the rules: the ClusterRole grants get/list on exactly the
 * kinds the rules read ({@link Rule#kubeKinds()} of every rule, mapped to API group and resource by
 * the live collector's own table), plus ConfigMaps, which the Kubernetes source also reads for
 * HAProxy configurations kept in ConfigMaps ({@code sources.haproxy.configMaps}), and {@code get}
 * on namespaces (a namespace to scan that does not exist fails the scan); nothing else, no Secrets,
 * no write verb. Adding a rule that reads a new kind fails this test until the ClusterRole grants
 * it.
 */
class ClusterRoleDriftTest {
    static final Path DIR = Path.of("examples/kubernetes/cronjob");

    @SuppressWarnings("unchecked")
    static Map<String, Object> doc(String file) throws IOException {
        return (Map<String, Object>)
                new Yaml(new SafeConstructor(new LoaderOptions()))
                        .load(Files.readString(DIR.resolve(file)));
    }

    /** "group/resource verb" for every kind the enabled rules need. */
    static Set<String> needed() {
        Set<String> kinds = new TreeSet<>();
        for (Rule r : RuleRegistry.all()) {
            kinds.addAll(r.kubeKinds());
        }
        assertTrue(kinds.contains("Deployment"), "the Kubernetes rules are registered: " + kinds);
        kinds.add(
                "ConfigMap"); // HAProxy configs kept in ConfigMaps (ScanRequest.haproxyConfigMaps)
        Set<String> out = new TreeSet<>();
        for (String kind : kinds) {
            KubeLiveSource.KindInfo k = KubeLiveSource.KINDS.get(kind);
            assertNotNull(k, "a rule needs " + kind + ", which the live collector cannot list");
            for (String verb : List.of("get", "list")) {
                out.add((k.group().isEmpty() ? "core" : k.group()) + "/" + k.plural() + " " + verb);
            }
        }
        out.add("core/namespaces get"); // a namespace named in deja.yaml or -n must exist
        // (KubeLiveSource)
        return out;
    }

    @Test
    @SuppressWarnings("unchecked")
    void clusterRoleGrantsExactlyWhatTheRulesRead() throws IOException {
        Set<String> granted = new TreeSet<>();
        for (Map<String, Object> rule :
                (List<Map<String, Object>>) doc("clusterrole.yaml").get("rules")) {
            assertEquals(
                    Set.of("apiGroups", "resources", "verbs"),
                    rule.keySet(),
                    "no resourceNames/nonResourceURLs: " + rule);
            for (String g : (List<String>) rule.get("apiGroups")) {
                for (String res : (List<String>) rule.get("resources")) {
                    for (String verb : (List<String>) rule.get("verbs")) {
                        assertTrue(
                                granted.add((g.isEmpty() ? "core" : g) + "/" + res + " " + verb),
                                "granted twice: " + g + "/" + res + " " + verb);
                    }
                }
            }
        }
        assertEquals(needed(), granted);
        assertTrue(granted.stream().noneMatch(s -> s.contains("secrets") || s.contains("*")));
    }

    @Test
    @SuppressWarnings("unchecked")
    void theRoleGrantsTheSinkExactlyItsOneConfigMapAndTheJobUsesIt() throws IOException {
        Map<String, Object> role = doc("role.yaml");
        List<Map<String, Object>> rules = (List<Map<String, Object>>) role.get("rules");
        assertEquals(
                List.of(
                        Map.of(
                                "apiGroups",
                                List.of(""),
                                "resources",
                                List.of("configmaps"),
                                "resourceNames",
                                List.of("deja-report"),
                                "verbs",
                                List.of("get", "update", "patch"))),
                rules);
        Map<String, Object> reportCm = doc("report-configmap.yaml");
        Map<String, Object> meta = (Map<String, Object>) reportCm.get("metadata");
        assertEquals("deja/deja-report", meta.get("namespace") + "/" + meta.get("name"));
        String dejaYaml =
                (String) ((Map<String, Object>) doc("configmap.yaml").get("data")).get("deja.yaml");
        Map<String, Object> cfg =
                (Map<String, Object>)
                        new Yaml(new SafeConstructor(new LoaderOptions())).load(dejaYaml);
        assertEquals(
                "deja/deja-report", cfg.get("reportConfigMap"), "the job keeps its report there");
        assertEquals(
                "configmap:deja/deja-report",
                cfg.get("baseline"),
                "and reads the previous one from there");
    }

    /**
     * Dogfood: the CronJob example itself trips no rule (it is not a load balancer, and nothing in
     * it looks like one). Its files, named one by one: the folder itself is a kustomization, which
     * 'deja scan' builds with kubectl (ChartAndKustomizeInputTest scans it that way where kubectl
     * is installed).
     */
    @Test
    void scanningTheCronJobExampleFindsNothing() throws IOException {
        List<String> args = new ArrayList<>(List.of("scan", "--fail-on", "info"));
        try (Stream<Path> s = Files.list(DIR)) {
            s.map(Path::toString).filter(f -> f.endsWith(".yaml")).sorted().forEach(args::add);
        }
        TestSupport.Run r = TestSupport.run(args.toArray(String[]::new));
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().startsWith("No findings.\n"), r.out());
        assertTrue(r.out().contains("0 findings; sources: kubernetes"), r.out());
        assertEquals("", r.err());
    }
}
