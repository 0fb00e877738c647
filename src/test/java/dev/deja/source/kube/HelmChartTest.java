package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import dev.deja.TestSupport;
import dev.deja.cli.ConfigFileAccess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * charts/deja, linted and rendered by Helm itself (helm-java: Helm's Go code through JNA). With the
 * defaults, release "deja" in namespace "deja", it renders the objects of the kustomize example
 * (examples/kubernetes/cronjob) but the Namespace: same kinds and names, the same RBAC rules (and
 * the ClusterRole exactly what {@link ClusterRoleDriftTest} derives from the rules), the same pod
 * spec (image, args, env, securityContext, volumes) and the same deja.yaml. Non-default values
 * change what they say and nothing else.
 */
class HelmChartTest {
    static final Path CHART = Path.of("charts/deja");
    static final Path EXAMPLE = Path.of("examples/kubernetes/cronjob");

    static Yaml yaml() {
        return new Yaml(new SafeConstructor(new LoaderOptions()));
    }

    // The tests' one unchecked cast, for YAML trees (maps and lists of Object) whose shape the test
    // knows: a wrong shape fails the test with a ClassCastException where the value is used.
    @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"})
    static <T> T cast(Object o) {
        return (T) o;
    }

    static Object at(Object node, String... path) {
        Object cur = node;
        for (String p : path) {
            if (cur instanceof List<?> l) {
                cur = l.get(Integer.parseInt(p));
            } else {
                assertTrue(cur instanceof Map, "no " + p + " in " + cur);
                cur = ((Map<?, ?>) cur).get(p);
            }
        }
        return cur;
    }

    /** "Kind namespace/name" (namespace empty for cluster-scoped objects) to the object. */
    static Map<String, Map<String, Object>> byId(String multiDoc) {
        Map<String, Map<String, Object>> out = new TreeMap<>();
        for (Object o : yaml().loadAll(multiDoc)) {
            if (o == null) {
                continue;
            }
            Map<String, Object> d = cast(o);
            Object ns = at(d, "metadata", "namespace");
            String id =
                    d.get("kind") + " " + (ns == null ? "" : ns) + "/" + at(d, "metadata", "name");
            assertNull(out.put(id, d), "rendered twice: " + id);
        }
        return out;
    }

    static Map<String, Map<String, Object>> example() throws IOException {
        Map<String, Object> k =
                cast(yaml().load(Files.readString(EXAMPLE.resolve("kustomization.yaml"))));
        StringBuilder all = new StringBuilder();
        List<String> resources = cast(k.get("resources"));
        for (String r : resources) {
            all.append(Files.readString(EXAMPLE.resolve(r))).append("\n---\n");
        }
        return byId(all.toString());
    }

    static String render(String release, String namespace, UnaryOperator<TemplateCommand> values) {
        return values.apply(new Helm(CHART).template().withName(release).withNamespace(namespace))
                .call();
    }

    @Test
    void helmLintFindsNothing() {
        LintResult r = new Helm(CHART).lint().strict().call();
        assertFalse(r.isFailed(), String.join("\n", r.getMessages()));
        assertTrue(
                r.getMessages().stream()
                        .noneMatch(m -> m.contains("[WARNING]") || m.contains("[ERROR]")),
                String.join("\n", r.getMessages()));
    }

    @Test
    void defaultsRenderTheKustomizeExampleButItsNamespace() throws IOException {
        Map<String, Map<String, Object>> chart = byId(render("deja", "deja", c -> c));
        Map<String, Map<String, Object>> example = example();
        Set<String> expected = new TreeSet<>(example.keySet());
        assertTrue(expected.remove("Namespace /deja"), expected.toString());
        assertEquals(expected, chart.keySet(), "same kinds, namespaces and names");

        for (String id : chart.keySet()) {
            Map<String, Object> c = chart.get(id);
            Map<String, Object> e = example.get(id);
            assertEquals(e.get("apiVersion"), c.get("apiVersion"), id);
            // the example's labels are kept (the chart adds Helm's usual ones)
            Map<String, Object> labels = cast(at(c, "metadata", "labels"));
            assertTrue(
                    labels.entrySet()
                            .containsAll(((Map<?, ?>) at(e, "metadata", "labels")).entrySet()),
                    id + ": " + labels);
            for (String field : List.of("rules", "roleRef", "subjects")) {
                assertEquals(e.get(field), c.get(field), id + " " + field);
            }
        }
        assertEquals(
                example.get("ServiceAccount deja/deja")
                        .get("metadata")
                        .toString()
                        .contains("annotations"),
                chart.get("ServiceAccount deja/deja")
                        .get("metadata")
                        .toString()
                        .contains("annotations"),
                "no IRSA by default");
        assertEquals(
                Map.of(),
                chart.get("ConfigMap deja/deja-report").get("data"),
                "the report ConfigMap ships empty");

        // the scan configuration is the example's, as data
        Object chartCfg =
                yaml().load(
                                (String)
                                        at(
                                                chart.get("ConfigMap deja/deja-config"),
                                                "data",
                                                "deja.yaml"));
        Object exampleCfg =
                yaml().load(
                                (String)
                                        at(
                                                example.get("ConfigMap deja/deja-config"),
                                                "data",
                                                "deja.yaml"));
        assertEquals(exampleCfg, chartCfg);

        // the CronJob: the same schedule and job settings, and the same pod spec (image, args, env,
        // resources,
        // securityContext, mounts, volumes)
        Map<String, Object> cc = chart.get("CronJob deja/deja");
        Map<String, Object> ec = example.get("CronJob deja/deja");
        Map<String, Object> cSpec = new LinkedHashMap<>(cast(cc.get("spec")));
        Map<String, Object> eSpec = new LinkedHashMap<>(cast(ec.get("spec")));
        assertEquals(false, cSpec.remove("suspend"));
        Map<String, Object> cJob = new LinkedHashMap<>(cast(cSpec.remove("jobTemplate")));
        Map<String, Object> eJob = new LinkedHashMap<>(cast(eSpec.remove("jobTemplate")));
        assertEquals(eSpec, cSpec);
        Map<String, Object> cJobSpec = new LinkedHashMap<>(cast(cJob.get("spec")));
        Map<String, Object> eJobSpec = new LinkedHashMap<>(cast(eJob.get("spec")));
        Map<String, Object> cTemplate = cast(cJobSpec.remove("template"));
        Map<String, Object> eTemplate = cast(eJobSpec.remove("template"));
        assertEquals(eJobSpec, cJobSpec);
        assertEquals(eTemplate.get("spec"), cTemplate.get("spec"));
        Map<String, Object> podLabels = cast(at(cTemplate, "metadata", "labels"));
        assertTrue(
                podLabels
                        .entrySet()
                        .containsAll(((Map<?, ?>) at(eTemplate, "metadata", "labels")).entrySet()));
    }

    /**
     * The chart's ClusterRole is exactly what the rules read, as ClusterRoleDriftTest derives it.
     */
    @Test
    void clusterRoleGrantsExactlyWhatTheRulesRead() {
        Map<String, Map<String, Object>> chart = byId(render("deja", "deja", c -> c));
        Set<String> granted = new TreeSet<>();
        List<Map<String, Object>> rules = cast(chart.get("ClusterRole /deja-reader").get("rules"));
        for (Map<String, Object> rule : rules) {
            assertEquals(Set.of("apiGroups", "resources", "verbs"), rule.keySet(), rule.toString());
            for (String g : HelmChartTest.<List<String>>cast(rule.get("apiGroups"))) {
                for (String res : HelmChartTest.<List<String>>cast(rule.get("resources"))) {
                    for (String verb : HelmChartTest.<List<String>>cast(rule.get("verbs"))) {
                        assertTrue(
                                granted.add((g.isEmpty() ? "core" : g) + "/" + res + " " + verb),
                                "granted twice: " + res);
                    }
                }
            }
        }
        assertEquals(ClusterRoleDriftTest.needed(), granted);
    }

    @Test
    void nonDefaultValuesChangeWhatTheySay(@TempDir Path tmp) throws IOException {
        Path values = tmp.resolve("values.yaml");
        Files.writeString(
                values,
                """
                image: {repository: registry.example.com/deja, tag: "9.9.9"}
                schedule: "0 5 * * 1-5"
                aws: {irsaRoleArn: "arn:aws:iam::111122223333:role/deja-elb-read-only"}
                config:
                  sources:
                    cluster: {enabled: true, namespaces: [ingress-nginx, edge]}
                    aws: {regions: [eu-west-2]}
                  failOn: none
                  outputs: [{format: json, path: /reports/deja.json}]
                reportConfigMap: {name: nightly-report}
                notify: {enabled: true, secretName: slack-webhook, secretKey: hook}
                pushgateway: {url: "http://prometheus-pushgateway.monitoring.svc:9091"}
                javaOpts: "-Xmx400m"
                extraArgs: [--verbose]
                """);
        Map<String, Map<String, Object>> chart =
                byId(
                        render(
                                "scanner",
                                "ops",
                                c ->
                                        c.withValuesFile(values)
                                                .set("resources.limits.memory", "1Gi")));
        assertEquals(
                Set.of(
                        "ServiceAccount ops/scanner-deja",
                        "ClusterRole /scanner-deja-reader",
                        "ClusterRoleBinding /scanner-deja-reader",
                        "Role ops/scanner-deja-report-writer",
                        "RoleBinding ops/scanner-deja-report-writer",
                        "ConfigMap ops/nightly-report",
                        "ConfigMap ops/scanner-deja-config",
                        "CronJob ops/scanner-deja"),
                chart.keySet());

        Map<String, Object> sa = chart.get("ServiceAccount ops/scanner-deja");
        assertEquals(
                Map.of(
                        "eks.amazonaws.com/role-arn",
                        "arn:aws:iam::111122223333:role/deja-elb-read-only",
                        "eks.amazonaws.com/sts-regional-endpoints",
                        "true"),
                at(sa, "metadata", "annotations"));
        assertEquals(
                List.of(
                        Map.of(
                                "kind",
                                "ServiceAccount",
                                "name",
                                "scanner-deja",
                                "namespace",
                                "ops")),
                at(chart.get("ClusterRoleBinding /scanner-deja-reader"), "subjects"));
        assertEquals(
                "scanner-deja-reader",
                at(chart.get("ClusterRoleBinding /scanner-deja-reader"), "roleRef", "name"));
        assertEquals(
                List.of("nightly-report"),
                at(
                        chart.get("Role ops/scanner-deja-report-writer"),
                        "rules",
                        "0",
                        "resourceNames"));

        String dejaYaml =
                (String) at(chart.get("ConfigMap ops/scanner-deja-config"), "data", "deja.yaml");
        ConfigFileAccess.check(dejaYaml, "scanner-deja-config#deja.yaml"); // valid for this deja
        Map<String, Object> cfg = cast(yaml().load(dejaYaml));
        assertEquals("ops/nightly-report", cfg.get("reportConfigMap"));
        assertEquals("configmap:ops/nightly-report", cfg.get("baseline"));
        assertEquals("env:DEJA_NOTIFY_URL", cfg.get("notify"));
        assertEquals("http://prometheus-pushgateway.monitoring.svc:9091", cfg.get("pushgateway"));
        assertEquals(List.of("ingress-nginx", "edge"), at(cfg, "sources", "cluster", "namespaces"));
        assertEquals(List.of("eu-west-2"), at(cfg, "sources", "aws", "regions"));

        Map<String, Object> cj = chart.get("CronJob ops/scanner-deja");
        assertEquals("0 5 * * 1-5", at(cj, "spec", "schedule"));
        Object c = at(cj, "spec", "jobTemplate", "spec", "template", "spec", "containers", "0");
        assertEquals("registry.example.com/deja:9.9.9", at(c, "image"));
        assertEquals(
                List.of("scan", "--config", "/etc/deja/deja.yaml", "--verbose"), at(c, "args"));
        assertEquals("1Gi", at(c, "resources", "limits", "memory"));
        List<Map<String, Object>> env = cast(at(c, "env"));
        assertEquals("-Xmx400m", env.get(0).get("value"));
        assertEquals(
                Map.of("name", "slack-webhook", "key", "hook", "optional", true),
                at(env.get(1), "valueFrom", "secretKeyRef"));
        assertEquals(
                "scanner-deja",
                at(cj, "spec", "jobTemplate", "spec", "template", "spec", "serviceAccountName"));
        assertEquals(
                "scanner-deja-config",
                at(
                        cj,
                        "spec",
                        "jobTemplate",
                        "spec",
                        "template",
                        "spec",
                        "volumes",
                        "0",
                        "configMap",
                        "name"));
        // the security settings cannot be lost by changing other values
        assertEquals(true, at(c, "securityContext", "readOnlyRootFilesystem"));
        assertEquals(List.of("ALL"), at(c, "securityContext", "capabilities", "drop"));
    }

    @Test
    void withoutTheReportConfigMapThereIsNoRoleAndNoBaseline() {
        Map<String, Map<String, Object>> chart =
                byId(render("deja", "deja", c -> c.set("reportConfigMap.enabled", "false")));
        assertEquals(
                Set.of(
                        "ServiceAccount deja/deja",
                        "ClusterRole /deja-reader",
                        "ClusterRoleBinding /deja-reader",
                        "ConfigMap deja/deja-config",
                        "CronJob deja/deja"),
                chart.keySet());
        String dejaYaml = (String) at(chart.get("ConfigMap deja/deja-config"), "data", "deja.yaml");
        ConfigFileAccess.check(dejaYaml, "deja-config#deja.yaml");
        Map<String, Object> cfg = cast(yaml().load(dejaYaml));
        assertFalse(cfg.containsKey("reportConfigMap") || cfg.containsKey("baseline"), dejaYaml);
    }

    /** Dogfood: what the chart installs trips no rule, as for the kustomize example. */
    @Test
    void scanningTheRenderedChartFindsNothing(@TempDir Path tmp) throws IOException {
        Path out = tmp.resolve("deja-chart.yaml");
        Files.writeString(out, render("deja", "deja", c -> c));
        TestSupport.Run r = TestSupport.run("scan", out.toString(), "--fail-on", "info");
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().startsWith("No findings.\n"), r.out());
    }

    @Test
    void chartAppVersionIsTheExampleImageTag() throws IOException {
        Map<String, Object> chart =
                cast(yaml().load(Files.readString(CHART.resolve("Chart.yaml"))));
        Map<String, Object> k =
                cast(yaml().load(Files.readString(EXAMPLE.resolve("kustomization.yaml"))));
        assertEquals(at(k, "images", "0", "newTag"), chart.get("appVersion"));
        // no kubeVersion constraint: Helm for the JVM renders as Kubernetes v1.20.0 and would
        // refuse the chart (the
        // README says timeZone needs Kubernetes 1.27)
        assertNull(chart.get("kubeVersion"));
        try (Stream<Path> s = Files.list(CHART.resolve("templates"))) {
            assertTrue(s.count() >= 9);
        }
    }
}
