package dev.deja.rules.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.collect.Collector;
import dev.deja.engine.Catalog;
import dev.deja.engine.Engine;
import dev.deja.engine.Finding;
import dev.deja.engine.Fix;
import dev.deja.engine.Location;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleMetadata;
import dev.deja.engine.Severity;
import dev.deja.engine.SourceKind;
import dev.deja.rules.RuleRegistry;
import dev.deja.source.ScanRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.representer.Representer;

/**
 * Issue #10 item 5: advice must clear its own finding. For every Kubernetes rule and each of its
 * firing fixtures, the remediation each finding gives is applied as written (the values it names in
 * backquotes, e.g. {@code `maxUnavailable: 2`}, {@code `timeoutSeconds: 5`}; the structural change
 * it describes: a PodDisruptionBudget, spread constraints on the keys it names, dropping the
 * liveness probe, a health listener, the setting switched off), the fixture is scanned again, and
 * the rule must be silent. Also issue #10 item 6 (severity follows the failure window).
 */
class RemediationClearsFindingTest {
    static final Path FIXTURES = Path.of("src/test/resources/fixtures");
    static final Pattern SNIPPET = Pattern.compile("`([A-Za-z]+): ([^`]+)`");
    static final Pattern CONTAINER_PROBE =
            Pattern.compile("container (\\S+): (readinessProbe|livenessProbe)");

    static final Pattern REMEDIATION_PROBE =
            Pattern.compile("the (readinessProbe|livenessProbe) of container (\\S+?)[ ,.)]");

    /** Samples of what a fix asks the user (fix.asks). */
    static final Map<String, Object> ASKED =
            Map.of(
                    "apiServerCidr", "10.0.0.10/32",
                    "healthPort", 8081L,
                    "healthPath", "/healthz",
                    "labelSelector", "tier=tenant");

    @TempDir Path tmp;

    static Yaml yaml() {
        DumperOptions d = new DumperOptions();
        d.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        return new Yaml(new SafeConstructor(new LoaderOptions()), new Representer(d), d);
    }

    static List<Finding> scan(Path file, Rule rule) {
        ScanRequest.Builder b = ScanRequest.builder();
        b.paths = List.of(file.toString());
        b.processEnv = Map.of();
        ScanRequest req = b.build();
        return new Engine(Catalog.packaged())
                .run(Collector.collect(req), List.of(rule), Engine.Options.defaults())
                .findings();
    }

    @TestFactory
    Stream<DynamicTest> followingTheRemediationClearsTheFinding() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Rule r : RuleRegistry.all()) {
            if (r.source() != SourceKind.KUBERNETES) {
                continue;
            }
            try (Stream<Path> s = Files.list(FIXTURES.resolve(r.id()))) {
                for (Path f : s.sorted().toList()) {
                    String n = f.getFileName().toString();
                    if (n.matches(".*_ok\\.[a-z]+")
                            || !n.endsWith(".yaml")
                            || n.equals("expect.yaml")) {
                        continue;
                    }
                    tests.add(DynamicTest.dynamicTest(r.id() + " / " + n, () -> check(r, f)));
                }
            }
        }
        assertFalse(tests.isEmpty());
        return tests.stream();
    }

    @SuppressWarnings("unchecked")
    void check(Rule rule, Path fixture) throws IOException {
        List<Finding> before = scan(fixture, rule);
        assertFalse(before.isEmpty(), fixture + " must fire " + rule.id());
        List<Map<String, Object>> docs = new ArrayList<>();
        for (Object o : yaml().loadAll(Files.readString(fixture))) {
            if (o instanceof Map<?, ?> m) {
                docs.add((Map<String, Object>) m);
            }
        }
        for (Finding f : before) {
            apply(rule.id(), f, docs);
        }
        Path fixed = tmp.resolve(fixture.getFileName());
        Files.writeString(fixed, yaml().dumpAll(docs.iterator()));
        List<String> after =
                scan(fixed, rule).stream()
                        .map(x -> x.message() + " | fix: " + x.remediation())
                        .toList();
        assertEquals(
                List.of(),
                after,
                fixture + " with the remediation applied:\n" + Files.readString(fixed));
    }

    static Map<String, String> snippets(String remediation) {
        Map<String, String> out = new LinkedHashMap<>();
        Matcher m = SNIPPET.matcher(remediation);
        while (m.find()) {
            out.putIfAbsent(m.group(1), m.group(2).strip());
        }
        return out;
    }

    static Object value(String v) {
        return v.matches("\\d+") ? (Object) Integer.valueOf(v) : v;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Map<String, Object> m, String... path) {
        Map<String, Object> cur = m;
        for (String p : path) {
            cur =
                    (Map<String, Object>)
                            cur.computeIfAbsent(p, k -> new LinkedHashMap<String, Object>());
        }
        return cur;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> target(Location l, List<Map<String, Object>> docs) {
        for (Map<String, Object> d : docs) {
            Map<String, Object> meta = (Map<String, Object>) d.get("metadata");
            if (l.kind().equals(d.get("kind"))
                    && meta != null
                    && l.name().equals(meta.get("name"))
                    && Objects.equals(l.namespace(), meta.get("namespace"))) {
                return d;
            }
        }
        throw new AssertionError("no document for " + l);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> container(Map<String, Object> doc, String name) {
        for (Object c : (List<Object>) map(doc, "spec", "template", "spec").get("containers")) {
            if (name.equals(((Map<String, Object>) c).get("name"))) {
                return (Map<String, Object>) c;
            }
        }
        throw new AssertionError("no container " + name);
    }

    @SuppressWarnings("unchecked")
    static void apply(String rule, Finding f, List<Map<String, Object>> docs) {
        String rem = f.remediation();
        Map<String, Object> doc = target(f.location(), docs);
        Optional<Fix> fix = Catalog.packaged().rule(rule).flatMap(RuleMetadata::fixBlock);
        assertTrue(fix.isPresent(), rule + " has no fix: block");
        // the rule's fix: block, as its YAML describes it, with the holes the finding fills
        assertTrue(
                fix.get().inputs().containsAll(f.fixInputs().keySet()),
                rule + ": the finding gives inputs its fix does not declare: " + f.fixInputs());
        Map<String, Object> inputs = new LinkedHashMap<>(f.fixInputs());
        for (String ask : fix.get().asks()) { // what the user gives: a sample of it
            assertTrue(ASKED.containsKey(ask), rule + " asks " + ask + ": give this test a sample");
            inputs.put(ask, ASKED.get(ask));
        }
        if (fix.get().applyTo(doc, docs, inputs) > 0) {
            return;
        }
        assertTrue(
                fix.get().manual() != null,
                rule
                        + ": no step of the fix has its inputs in the finding ("
                        + f.fixInputs()
                        + ") and it says nothing is manual: "
                        + f.message());
        // what the fix says deja cannot apply (fix.manual), done here by hand as the advice says
        switch (rule) {
            case "k8s-traefik-crd-no-schema" -> {
                // "Apply the CRDs of your Traefik release (v2.5 or later: apiextensions.k8s.io/v1
                // with their OpenAPI schema)"
                assertTrue(rem.startsWith("Apply the CRDs of your Traefik release"), rem);
                doc.put("apiVersion", "apiextensions.k8s.io/v1");
                Map<String, Object> spec = map(doc, "spec");
                spec.remove("version");
                spec.remove("validation");
                Map<String, Object> specSchema = new LinkedHashMap<>();
                specSchema.put("type", "object");
                specSchema.put("properties", Map.of("routes", Map.of("type", "array")));
                spec.put(
                        "versions",
                        List.of(
                                Map.of(
                                        "name",
                                        "v1alpha1",
                                        "served",
                                        true,
                                        "storage",
                                        true,
                                        "schema",
                                        Map.of(
                                                "openAPIV3Schema",
                                                Map.of(
                                                        "type",
                                                        "object",
                                                        "properties",
                                                        Map.of("spec", specSchema))))));
            }
            case "k8s-traefik-crd-shared-scope" -> {
                Matcher file =
                        Pattern.compile("\\(ConfigMap ([^/]+)/(\\S+), key ([^)\\s]+)\\)")
                                .matcher(f.message());
                if (file.find()) {
                    // "set `providers.kubernetesCRD.labelSelector` ... in its configuration file"
                    assertTrue(rem.contains("`providers.kubernetesCRD.labelSelector`"), rem);
                    for (Map<String, Object> d : docs) {
                        Map<String, Object> meta = (Map<String, Object>) d.get("metadata");
                        if ("ConfigMap".equals(d.get("kind"))
                                && meta.get("name").equals(file.group(2))) {
                            Map<String, Object> data = (Map<String, Object>) d.get("data");
                            String key = file.group(3);
                            String text = (String) data.get(key);
                            data.put(
                                    key,
                                    key.endsWith(".toml")
                                            ? text.replace(
                                                    "[providers.kubernetesCRD]",
                                                    "[providers.kubernetesCRD]\n  labelSelector ="
                                                            + " \"tier=tenant\"")
                                            : text.replace(
                                                    "kubernetesCRD:\n",
                                                    "kubernetesCRD:\n    labelSelector: tier=tenant\n"));
                        }
                    }
                    return;
                }
                throw new AssertionError("only a file configuration is manual: " + f.message());
            }
            case "k8s-etcd-even-or-single-member" -> {
                // "Run 3 or 5 etcd members ..., and for a StatefulSet set an odd replicas."
                assertTrue(rem.startsWith("Run 3 or 5 etcd members"), rem);
                {
                    // kubeadm join --control-plane: each new member's static pod lists the
                    // members up to itself, with --initial-cluster-state=existing
                    List<String> cluster = new ArrayList<>();
                    for (Map<String, Object> d : docs) {
                        if (!"Pod".equals(d.get("kind"))) {
                            continue;
                        }
                        for (Object c : (List<Object>) map(d, "spec").get("containers")) {
                            for (Object a :
                                    (List<Object>) ((Map<String, Object>) c).get("command")) {
                                String arg = String.valueOf(a);
                                if (arg.startsWith("--initial-cluster=")) {
                                    for (String m : arg.substring(18).split(",")) {
                                        if (!cluster.contains(m)) {
                                            cluster.add(m);
                                        }
                                    }
                                }
                            }
                        }
                    }
                    while (cluster.size() < 3 || cluster.size() % 2 == 0) {
                        String name = "joined" + cluster.size();
                        cluster.add(name + "=https://10.0.9." + cluster.size() + ":2380");
                        Map<String, Object> pod = new LinkedHashMap<>();
                        pod.put("apiVersion", "v1");
                        pod.put("kind", "Pod");
                        pod.put(
                                "metadata",
                                new LinkedHashMap<>(
                                        Map.of(
                                                "name",
                                                "etcd-" + name,
                                                "namespace",
                                                "kube-system")));
                        pod.put(
                                "spec",
                                Map.of(
                                        "containers",
                                        List.of(
                                                Map.of(
                                                        "name",
                                                        "etcd",
                                                        "image",
                                                        "registry.k8s.io/etcd:3.5.15-0",
                                                        "command",
                                                        List.of(
                                                                "etcd",
                                                                "--name=" + name,
                                                                "--initial-cluster="
                                                                        + String.join(",", cluster),
                                                                "--initial-cluster-state=existing")))));
                        docs.add(pod);
                    }
                }
            }
            default ->
                    throw new AssertionError(
                            "no way to apply the remediation of " + rule + ": teach this test");
        }
    }

    /**
     * Issue #10 item 6: a 1 s timeout inside a long failure window is a lesser note; a short window
     * is high.
     */
    @Test
    void probeSeverityFollowsTheFailureWindow() throws IOException {
        Path f = tmp.resolve("probes.yaml");
        Files.writeString(
                f,
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
                            timeoutSeconds: 1
                            periodSeconds: 2
                            failureThreshold: 30
                          livenessProbe:
                            httpGet: {path: /healthz, port: 10254}
                            periodSeconds: 5
                """);
        Rule rule =
                RuleRegistry.all().stream()
                        .filter(r -> r.id().equals("k8s-lb-probe-fails-fast"))
                        .findFirst()
                        .orElseThrow();
        List<Finding> found = scan(f, rule);
        assertEquals(2, found.size(), found.toString());
        Finding readiness =
                found.stream()
                        .filter(x -> x.message().contains("readinessProbe"))
                        .findFirst()
                        .orElseThrow();
        assertEquals(Severity.LOW, readiness.severity(), readiness.message());
        assertTrue(
                readiness.message().contains("a window of 30 x 2s + 1s = 61s"),
                readiness.message());
        Finding liveness =
                found.stream()
                        .filter(x -> x.message().contains("livenessProbe"))
                        .findFirst()
                        .orElseThrow();
        assertEquals(Severity.HIGH, liveness.severity(), liveness.message());
        assertTrue(liveness.message().contains("16s (3 x 5s + 1s)"), liveness.message());
    }
}
