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
    static final Map<String, Object> ASKED = Map.of("apiServerCidr", "10.0.0.10/32");

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
        Map<String, String> s = snippets(rem);
        Map<String, Object> doc = target(f.location(), docs);
        Optional<Fix> fix = Catalog.packaged().rule(rule).flatMap(RuleMetadata::fixBlock);
        if (fix.isPresent()) {
            // the rule's fix: block, as its YAML describes it, with the holes the finding fills
            assertTrue(
                    fix.get().inputs().containsAll(f.fixInputs().keySet()),
                    rule + ": the finding gives inputs its fix does not declare: " + f.fixInputs());
            Map<String, Object> inputs = new LinkedHashMap<>(f.fixInputs());
            for (String ask : fix.get().asks()) { // what the user gives: a sample of it
                assertTrue(
                        ASKED.containsKey(ask),
                        rule + " asks " + ask + ": give this test a sample");
                inputs.put(ask, ASKED.get(ask));
            }
            int applied = fix.get().applyTo(doc, docs, inputs);
            assertTrue(
                    applied > 0,
                    rule
                            + ": no step of the fix has its inputs in the finding ("
                            + f.fixInputs()
                            + "): "
                            + f.message());
            return;
        }
        // rules without a fix: block yet: the remediation's prose, read here rule by rule
        Matcher cp = CONTAINER_PROBE.matcher(f.message());
        switch (rule) {
            case "k8s-lb-probe-fails-fast" -> {
                assertTrue(cp.find(), f.message());
                assertFalse(s.isEmpty(), "no value to set in: " + rem);
                // the low note names every probe it concerns: "the readinessProbe of container c"
                Matcher each = REMEDIATION_PROBE.matcher(rem);
                boolean named = false;
                while (each.find()) {
                    named = true;
                    Map<String, Object> probe =
                            (Map<String, Object>) container(doc, each.group(2)).get(each.group(1));
                    s.forEach((k, v) -> probe.put(k, value(v)));
                }
                if (!named) {
                    Map<String, Object> probe =
                            (Map<String, Object>) container(doc, cp.group(1)).get(cp.group(2));
                    s.forEach((k, v) -> probe.put(k, value(v)));
                }
            }
            case "k8s-lb-liveness-same-as-readiness" -> {
                assertTrue(rem.contains("(or drop it)"), rem);
                assertTrue(cp.find(), f.message());
                container(doc, cp.group(1)).remove("livenessProbe");
            }
            case "k8s-lb-probe-on-admin-endpoint" -> {
                assertTrue(
                        rem.contains("dedicated health listener")
                                && rem.contains("point the probes at it"),
                        rem);
                for (Object c :
                        (List<Object>) map(doc, "spec", "template", "spec").get("containers")) {
                    for (String p : List.of("readinessProbe", "livenessProbe")) {
                        Map<String, Object> probe =
                                (Map<String, Object>) ((Map<String, Object>) c).get(p);
                        if (probe != null && probe.get("httpGet") != null) {
                            probe.put(
                                    "httpGet",
                                    new LinkedHashMap<>(Map.of("path", "/healthz", "port", 8081)));
                        }
                    }
                }
            }
            case "k8s-lb-not-spread" -> {
                List<Object> constraints =
                        (List<Object>)
                                map(doc, "spec", "template", "spec")
                                        .computeIfAbsent(
                                                "topologySpreadConstraints",
                                                k -> new ArrayList<>());
                Object labels = map(doc, "spec", "template", "metadata").get("labels");
                Matcher m = Pattern.compile("`topologyKey: ([^`]+)`").matcher(rem);
                boolean any = false;
                while (m.find()) {
                    any = true;
                    constraints.add(
                            new LinkedHashMap<>(
                                    Map.of(
                                            "maxSkew",
                                            1,
                                            "topologyKey",
                                            m.group(1),
                                            "whenUnsatisfiable",
                                            "ScheduleAnyway",
                                            "labelSelector",
                                            Map.of("matchLabels", labels))));
                }
                assertTrue(any && rem.contains("labelSelector"), rem);
            }
            case "k8s-lb-no-disruption-headroom" -> {
                if (s.containsKey("replicas")) {
                    map(doc, "spec").put("replicas", value(s.get("replicas")));
                }
                if (s.containsKey("minReplicas")) {
                    boolean found = false;
                    for (Map<String, Object> d : docs) {
                        if ("HorizontalPodAutoscaler".equals(d.get("kind"))
                                && f.location()
                                        .name()
                                        .equals(map(d, "spec", "scaleTargetRef").get("name"))) {
                            map(d, "spec").put("minReplicas", value(s.get("minReplicas")));
                            found = true;
                        }
                    }
                    assertTrue(found, "no HPA for " + f.location());
                }
                if (rem.contains("PodDisruptionBudget selecting")) {
                    Map<String, Object> meta = map(doc, "metadata");
                    Map<String, Object> pdb = new LinkedHashMap<>();
                    pdb.put("apiVersion", "policy/v1");
                    pdb.put("kind", "PodDisruptionBudget");
                    Map<String, Object> pm = new LinkedHashMap<>();
                    pm.put("name", meta.get("name") + "-pdb");
                    if (meta.get("namespace") != null) {
                        pm.put("namespace", meta.get("namespace"));
                    }
                    pdb.put("metadata", pm);
                    pdb.put(
                            "spec",
                            new LinkedHashMap<>(
                                    Map.of(
                                            "maxUnavailable",
                                            value(s.getOrDefault("maxUnavailable", "1")),
                                            "selector",
                                            Map.of(
                                                    "matchLabels",
                                                    map(doc, "spec", "template", "metadata")
                                                            .get("labels")))));
                    docs.add(pdb);
                } else if (s.containsKey("maxUnavailable")
                        || s.containsKey("type")
                        || rem.startsWith("Remove maxUnavailable")) {
                    String key =
                            "Deployment".equals(doc.get("kind")) ? "strategy" : "updateStrategy";
                    Map<String, Object> strategy = map(doc, "spec", key);
                    if (s.containsKey("type")) {
                        strategy.put("type", s.get("type"));
                    }
                    Map<String, Object> ru = map(strategy, "rollingUpdate");
                    if (rem.startsWith("Remove maxUnavailable")) {
                        ru.remove("maxUnavailable");
                    } else {
                        ru.put("maxUnavailable", value(s.get("maxUnavailable")));
                    }
                    if (s.containsKey("maxSurge")) {
                        ru.put("maxSurge", value(s.get("maxSurge")));
                    }
                }
            }
            case "k8s-nlb-service-single-zone-risk" -> {
                String attr = "service.beta.kubernetes.io/aws-load-balancer-attributes";
                boolean applied = false;
                if (rem.contains("`" + attr + ": load_balancing.cross_zone.enabled=true`")) {
                    map(doc, "metadata", "annotations")
                            .put(attr, "load_balancing.cross_zone.enabled=true");
                    applied = true;
                }
                Matcher hc =
                        Pattern.compile("`([a-z./-]+healthcheck-[a-z-]+): \"?(\\d+)\"?`")
                                .matcher(rem);
                while (hc.find()) {
                    map(doc, "metadata", "annotations").put(hc.group(1), hc.group(2));
                    applied = true;
                }
                assertTrue(applied, "nothing to apply in: " + rem);
            }
            case "k8s-ingress-nginx-admission-rce" -> {
                // "Upgrade the controller to v1.11.5, v1.12.1 or later" (and, for an unknown
                // version, pin that tag)
                assertTrue(
                        rem.startsWith("Upgrade the controller to v1.11.5, v1.12.1 or later"), rem);
                for (Object c :
                        (List<Object>) map(doc, "spec", "template", "spec").get("containers")) {
                    Map<String, Object> cm = (Map<String, Object>) c;
                    // the controller by its image, or by its program on another image (a chart's
                    // ci/ build)
                    if (String.valueOf(cm.get("image")).contains("ingress-nginx/controller")
                            || String.valueOf(cm.get("args"))
                                    .startsWith("[/nginx-ingress-controller")) {
                        cm.put("image", "registry.k8s.io/ingress-nginx/controller:v1.12.1");
                    }
                }
            }
            case "k8s-ingress-nginx-admission-exposed" -> {
                // "Add a NetworkPolicy that selects the controller pods and admits the webhook port
                // only from the API
                // server's addresses (ipBlock)"
                Matcher in =
                        Pattern.compile(
                                        "^In NetworkPolicy ([^/]+)/(\\S+), admit port (\\d+) only from the API server")
                                .matcher(rem);
                if (in.find()) { // narrow the rule that opens the port: its sources become the
                    // API server's address
                    Map<String, Object> np =
                            target(Location.kube("NetworkPolicy", in.group(1), in.group(2)), docs);
                    for (Object r : (List<Object>) map(np, "spec").get("ingress")) {
                        Map<String, Object> rule2 = (Map<String, Object>) r;
                        Object from = rule2.get("from");
                        boolean everyone =
                                !(from instanceof List<?> l)
                                        || l.isEmpty()
                                        || l.stream()
                                                .anyMatch(
                                                        peer ->
                                                                peer instanceof Map<?, ?> pm
                                                                        && (Map.of()
                                                                                        .equals(
                                                                                                pm
                                                                                                        .get(
                                                                                                                "namespaceSelector"))
                                                                                || pm.get("ipBlock")
                                                                                                instanceof
                                                                                                Map<
                                                                                                                ?,
                                                                                                                ?>
                                                                                                        ip
                                                                                        && "0.0.0.0/0"
                                                                                                .equals(
                                                                                                        ip
                                                                                                                .get(
                                                                                                                        "cidr"))));
                        if (everyone) {
                            rule2.put(
                                    "from",
                                    List.of(Map.of("ipBlock", Map.of("cidr", "10.0.0.10/32"))));
                        }
                    }
                    break;
                }
                assertTrue(
                        rem.startsWith(
                                "Add a NetworkPolicy that selects the controller pods and admits the webhook port"
                                        + " only from the API server's addresses (ipBlock)"),
                        rem);
                Matcher port = Pattern.compile("port (\\d+)").matcher(f.message());
                assertTrue(port.find(), f.message());
                Map<String, Object> meta = map(doc, "metadata");
                Map<String, Object> np = new LinkedHashMap<>();
                np.put("apiVersion", "networking.k8s.io/v1");
                np.put("kind", "NetworkPolicy");
                Map<String, Object> nm = new LinkedHashMap<>();
                nm.put("name", meta.get("name") + "-webhook");
                if (meta.get("namespace") != null) {
                    nm.put("namespace", meta.get("namespace"));
                }
                np.put("metadata", nm);
                np.put(
                        "spec",
                        new LinkedHashMap<>(
                                Map.of(
                                        "podSelector",
                                                Map.of(
                                                        "matchLabels",
                                                        map(doc, "spec", "template", "metadata")
                                                                .get("labels")),
                                        "policyTypes", List.of("Ingress"),
                                        "ingress",
                                                List.of(
                                                        Map.of(
                                                                "ports",
                                                                List.of(
                                                                        Map.of(
                                                                                "port",
                                                                                Integer.valueOf(
                                                                                        port.group(
                                                                                                1)))),
                                                                "from",
                                                                List.of(
                                                                        Map.of(
                                                                                "ipBlock",
                                                                                Map.of(
                                                                                        "cidr",
                                                                                        "10.0.0.10/32"))))))));
                docs.add(np);
            }
            case "k8s-haproxy-ingress-hot-pods" -> {
                // "Drop --sort-backends and --sort-endpoints-by=ip|name (let the controller shuffle
                // endpoints)"
                assertTrue(
                        rem.startsWith("Drop --sort-backends and --sort-endpoints-by=ip|name"),
                        rem);
                for (Object c :
                        (List<Object>) map(doc, "spec", "template", "spec").get("containers")) {
                    Map<String, Object> cm = (Map<String, Object>) c;
                    Object args = cm.get("args");
                    if (args instanceof List<?> l) {
                        cm.put(
                                "args",
                                l.stream()
                                        .filter(
                                                a ->
                                                        !String.valueOf(a)
                                                                        .startsWith(
                                                                                "--sort-backends")
                                                                && !String.valueOf(a)
                                                                        .startsWith(
                                                                                "--sort-endpoints-by"))
                                        .toList());
                    }
                }
            }
            case "k8s-traefik-before-crd-schemas" -> {
                // "Upgrade Traefik to v2.5 or later and apply the CRDs of that release ..."
                assertTrue(rem.startsWith("Upgrade Traefik to v2.5 or later"), rem);
                for (Object c :
                        (List<Object>) map(doc, "spec", "template", "spec").get("containers")) {
                    Map<String, Object> cm = (Map<String, Object>) c;
                    String image = String.valueOf(cm.get("image"));
                    if (image.contains("traefik")) {
                        cm.put("image", image.substring(0, image.lastIndexOf(':')) + ":v2.5.7");
                    }
                }
            }
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
                Matcher c = Pattern.compile("container (\\S+) ").matcher(f.message());
                assertTrue(c.find(), f.message());
                Map<String, Object> cm = container(doc, c.group(1));
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
                if (f.message().contains(", from the environment)")) {
                    // "set `TRAEFIK_PROVIDERS_KUBERNETESCRD_LABELSELECTOR`"
                    assertTrue(
                            rem.contains("`TRAEFIK_PROVIDERS_KUBERNETESCRD_LABELSELECTOR`"), rem);
                    List<Object> env =
                            new ArrayList<>((List<Object>) cm.getOrDefault("env", List.of()));
                    env.add(
                            Map.of(
                                    "name",
                                    "TRAEFIK_PROVIDERS_KUBERNETESCRD_LABELSELECTOR",
                                    "value",
                                    "tier=tenant"));
                    cm.put("env", env);
                    return;
                }
                // "give each a `--providers.kubernetescrd.labelselector` ..."
                assertTrue(rem.contains("`--providers.kubernetescrd.labelselector`"), rem);
                List<Object> args = new ArrayList<>((List<Object>) cm.get("args"));
                args.removeIf(
                        a ->
                                String.valueOf(a)
                                        .startsWith("--providers.kubernetescrd.labelselector"));
                args.add("--providers.kubernetescrd.labelselector=tier=tenant");
                cm.put("args", args);
            }
            case "k8s-internal-lb-no-drain-headroom" -> {
                // "Set `minReplicas: 2` or more on HPA ..." / "Run `replicas: 2` or more ...", and
                // "Add a PodDisruptionBudget selecting {...} with `maxUnavailable: 1`"
                assertTrue(rem.contains("PodDisruptionBudget selecting"), rem);
                if (s.containsKey("minReplicas")) {
                    for (Map<String, Object> d : docs) {
                        if ("HorizontalPodAutoscaler".equals(d.get("kind"))
                                && f.message()
                                        .contains(
                                                "HorizontalPodAutoscaler "
                                                        + map(d, "metadata").get("namespace")
                                                        + "/"
                                                        + map(d, "metadata").get("name"))) {
                            map(d, "spec").put("minReplicas", value(s.get("minReplicas")));
                        }
                    }
                } else if (s.containsKey("replicas")) {
                    map(doc, "spec").put("replicas", value(s.get("replicas")));
                }
                Map<String, Object> meta = map(doc, "metadata");
                Map<String, Object> pdb = new LinkedHashMap<>();
                pdb.put("apiVersion", "policy/v1");
                pdb.put("kind", "PodDisruptionBudget");
                pdb.put(
                        "metadata",
                        Map.of(
                                "name",
                                meta.get("name") + "-pdb",
                                "namespace",
                                meta.get("namespace")));
                pdb.put(
                        "spec",
                        Map.of(
                                "maxUnavailable",
                                1,
                                "selector",
                                Map.of(
                                        "matchLabels",
                                        map(doc, "spec", "template", "metadata").get("labels"))));
                docs.add(pdb);
            }
            case "k8s-internal-lb-local-traffic-policy" -> {
                // "Spread the pods across nodes (`topologySpreadConstraints` with `topologyKey:
                // kubernetes.io/hostname` and a labelSelector that selects them)"
                assertTrue(rem.startsWith("Spread the pods across nodes"), rem);
                Map<String, Object> selector = map(doc, "spec", "selector");
                for (Map<String, Object> d : docs) {
                    if (!"Deployment".equals(d.get("kind"))) {
                        continue;
                    }
                    Map<String, Object> labels = map(d, "spec", "template", "metadata", "labels");
                    if (!labels.entrySet().containsAll(selector.entrySet())) {
                        continue;
                    }
                    Map<String, Object> pod = map(d, "spec", "template", "spec");
                    List<Object> tsc =
                            new ArrayList<>(
                                    (List<Object>)
                                            pod.getOrDefault(
                                                    "topologySpreadConstraints", List.of()));
                    tsc.add(
                            Map.of(
                                    "maxSkew",
                                    1,
                                    "topologyKey",
                                    "kubernetes.io/hostname",
                                    "whenUnsatisfiable",
                                    "ScheduleAnyway",
                                    "labelSelector",
                                    Map.of("matchLabels", labels)));
                    pod.put("topologySpreadConstraints", tsc);
                }
            }
            case "k8s-etcd-even-or-single-member" -> {
                // "Run 3 or 5 etcd members ..., and for a StatefulSet set an odd replicas."
                assertTrue(rem.startsWith("Run 3 or 5 etcd members"), rem);
                if ("StatefulSet".equals(doc.get("kind"))) {
                    Object n = ((Map<String, Object>) doc.get("spec")).get("replicas");
                    int r = n instanceof Integer i ? i : 1;
                    ((Map<String, Object>) doc.get("spec")).put("replicas", r < 3 ? 3 : r + 1);
                } else {
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
