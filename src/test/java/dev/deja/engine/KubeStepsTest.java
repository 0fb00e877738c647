package dev.deja.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The Kubernetes steps of a rule's {@code fix:} block: what each does to parsed manifests with the
 * finding's inputs, and what the catalog refuses.
 */
class KubeStepsTest {
    static final String REMEDIATION =
            "Set timeoutSeconds, add topologySpreadConstraints, drop --sort-backends from args, add"
                    + " a PodDisruptionBudget, point the probe's port and path, minReplicas, replicas, from, image";

    @SuppressWarnings("unchecked")
    static Map<String, Object> yaml(String text) {
        return (Map<String, Object>) new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
    }

    static Fix fix(String yaml, List<String> errors) {
        return Fix.read(yaml(yaml), SourceKind.KUBERNETES, REMEDIATION, "r.yaml", errors);
    }

    static Fix fix(String yaml) {
        List<String> errors = new ArrayList<>();
        Fix f = fix(yaml, errors);
        assertEquals(List.of(), errors);
        return f;
    }

    static Map<String, Object> deployment() {
        return yaml(
                """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: web, namespace: edge}
                spec:
                  replicas: 1
                  template:
                    metadata: {labels: {app: web}}
                    spec:
                      containers:
                        - name: proxy
                          args: [--sort-backends, --port=80]
                          readinessProbe: {timeoutSeconds: 1}
                        - name: sidecar
                          readinessProbe: {timeoutSeconds: 1}
                """);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> container(Map<String, Object> d, int i) {
        Map<String, Object> spec =
                (Map<String, Object>)
                        ((Map<String, Object>)
                                        ((Map<String, Object>) d.get("spec")).get("template"))
                                .get("spec");
        return (Map<String, Object>) ((List<Object>) spec.get("containers")).get(i);
    }

    @Test
    void aPatchFillsItsHolesAndSelectsTheContainerByName() {
        Fix f =
                fix(
                        """
                        says: a longer timeout
                        inputs: [container, probe, timeoutSeconds]
                        steps:
                          - patch:
                              spec:
                                template:
                                  spec:
                                    "containers[name={container}]": {"{probe}": {timeoutSeconds: "{timeoutSeconds}"}}
                        """);
        Map<String, Object> d = deployment();
        List<Map<String, Object>> docs = new ArrayList<>(List.of(d));
        int applied =
                f.applyTo(
                        d,
                        docs,
                        Map.of(
                                "container",
                                "proxy",
                                "probe",
                                "readinessProbe",
                                "timeoutSeconds",
                                5L));
        assertEquals(1, applied);
        assertEquals(Map.of("timeoutSeconds", 5L), container(d, 0).get("readinessProbe"));
        assertEquals(Map.of("timeoutSeconds", 1), container(d, 1).get("readinessProbe"));
        // a step whose inputs the finding does not give is not applied
        assertEquals(0, f.applyTo(d, docs, Map.of("container", "proxy")));
        // a selector that matches nothing is an error, not a silent no-op
        IllegalArgumentException e =
                assertThrows(
                        IllegalArgumentException.class,
                        () ->
                                f.applyTo(
                                        d,
                                        docs,
                                        Map.of(
                                                "container",
                                                "gone",
                                                "probe",
                                                "readinessProbe",
                                                "timeoutSeconds",
                                                5L)));
        assertTrue(e.getMessage().contains("containers[name=gone]"), e.getMessage());
    }

    @Test
    void eachWhenDropAppendCreateAndAnotherObject() {
        Fix f =
                fix(
                        """
                        says: spread, shuffled, budgeted
                        inputs: [spreads, topologyKey, podLabels, sorted, pdbMetadata, hpa, replicas]
                        steps:
                          - each: spreads
                            append:
                              path: [spec, template, spec, topologySpreadConstraints]
                              value: {topologyKey: "{topologyKey}", labelSelector: {matchLabels: "{podLabels}"}}
                          - when: sorted
                            drop: {path: [spec, template, spec, "containers[*]", args], startingWith: [--sort-backends]}
                          - create:
                              apiVersion: policy/v1
                              kind: PodDisruptionBudget
                              metadata: "{pdbMetadata}"
                              spec: {maxUnavailable: 1}
                          - object: "{hpa}"
                            patch: {spec: {minReplicas: "{replicas}"}}
                        """);
        Map<String, Object> d = deployment();
        Map<String, Object> hpa =
                yaml(
                        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\n"
                                + "metadata: {name: web, namespace: edge}\nspec: {minReplicas: 1}\n");
        List<Map<String, Object>> docs = new ArrayList<>(List.of(d, hpa));
        Map<String, Object> in = new LinkedHashMap<>();
        in.put(
                "spreads",
                List.of(
                        Map.of("topologyKey", "kubernetes.io/hostname"),
                        Map.of("topologyKey", "topology.kubernetes.io/zone")));
        in.put("podLabels", Map.of("app", "web"));
        in.put("sorted", true);
        in.put("pdbMetadata", Map.of("name", "web-pdb", "namespace", "edge"));
        in.put("hpa", "HorizontalPodAutoscaler edge/web");
        in.put("replicas", 2L);
        // the two appends (one per spread), the drop, the created budget, the HPA's patch
        assertEquals(5, f.applyTo(d, docs, in));
        @SuppressWarnings("unchecked")
        List<Object> tsc =
                (List<Object>)
                        ((Map<String, Object>)
                                        ((Map<String, Object>)
                                                        ((Map<String, Object>) d.get("spec"))
                                                                .get("template"))
                                                .get("spec"))
                                .get("topologySpreadConstraints");
        assertEquals(
                List.of(
                        Map.of(
                                "topologyKey",
                                "kubernetes.io/hostname",
                                "labelSelector",
                                Map.of("matchLabels", Map.of("app", "web"))),
                        Map.of(
                                "topologyKey",
                                "topology.kubernetes.io/zone",
                                "labelSelector",
                                Map.of("matchLabels", Map.of("app", "web")))),
                tsc);
        assertEquals(List.of("--port=80"), container(d, 0).get("args"));
        assertNull(container(d, 1).get("args")); // drop makes no list where there is none
        assertEquals(3, docs.size());
        assertEquals("PodDisruptionBudget", docs.get(2).get("kind"));
        assertEquals(Map.of("name", "web-pdb", "namespace", "edge"), docs.get(2).get("metadata"));
        assertEquals(Map.of("minReplicas", 2L), hpa.get("spec"));
        // when: a variant the finding does not ask for is left out
        in.put("sorted", false);
        in.remove("spreads");
        in.remove("pdbMetadata");
        in.remove("hpa");
        assertEquals(0, f.applyTo(d, docs, in));
    }

    @Test
    void replaceSetsAListWhereAPatchCannot() {
        Fix f =
                fix(
                        """
                        says: from the API server only
                        inputs: [policy, rule]
                        asks: [cidr]
                        steps:
                          - object: "{policy}"
                            replace: {path: [spec, "ingress[{rule}]", from], value: [{ipBlock: {cidr: "{cidr}"}}]}
                        """);
        assertEquals(List.of("cidr"), f.asks());
        Map<String, Object> np =
                yaml(
                        "kind: NetworkPolicy\nmetadata: {name: open, namespace: ns}\n"
                                + "spec: {ingress: [{ports: [{port: 80}]}, {ports: [{port: 8443}]}]}\n");
        List<Map<String, Object>> docs = new ArrayList<>(List.of(np));
        f.applyTo(
                deployment(),
                docs,
                Map.of("policy", "NetworkPolicy ns/open", "rule", 1L, "cidr", "10.0.0.1/32"));
        assertEquals(
                yaml(
                        "ingress: [{ports: [{port: 80}]}, {ports: [{port: 8443}], from: [{ipBlock:"
                                + " {cidr: 10.0.0.1/32}}]}]"),
                np.get("spec"));
    }

    @Test
    void theCatalogRefusesWhatItCannotApply() {
        refused(
                "says: x\nsteps:\n  - patch: {spec: {replicas: \"{replicas}\"}}\n",
                "unknown input {replicas}");
        refused(
                "says: x\ninputs: [replicas, unused]\nsteps:\n  - patch: {spec: {replicas:"
                        + " \"{replicas}\"}}\n",
                "fix.inputs: unused is used by no step");
        refused(
                "says: x\nsteps:\n  - append: {path: [spec, \"containers[*]\"], value: 1}\n",
                "ends in a selector");
        refused(
                "says: x\nsteps:\n  - object: just-a-name\n    patch: {spec: {replicas: 2}}\n",
                "must name one object");
        refused(
                "says: x\nsteps:\n  - patch: {spec: {ports: [1]}}\n",
                "spec.ports is a list: a merge patch replaces a whole list");
        refused("says: x\n", "fix needs 'steps'");
        refused(
                "says: x\nsteps:\n  - patch: {spec: {paused: true}}\n",
                "the remediation does not name paused");
        refused(
                "says: x\nsteps:\n  - create: {kind: PodDisruptionBudget}\n",
                "needs apiVersion, kind and metadata");
        // nothing deja can apply is said so: a manual fix without steps loads
        Fix manual = fix("says: x\nmanual: done in the product's own configuration\n");
        assertEquals(List.of(), manual.steps());
        assertEquals("done in the product's own configuration", manual.manual());
    }

    static void refused(String yaml, String expected) {
        List<String> errors = new ArrayList<>();
        assertNull(fix(yaml, errors), yaml);
        assertTrue(
                errors.stream().anyMatch(e -> e.contains(expected)),
                "expected '" + expected + "' in " + errors);
    }

    @Test
    void theCompiledCatalogKeepsEveryStep() {
        Fix f =
                fix(
                        """
                        says: all of them
                        inputs: [xs, x, flag, name]
                        asks: [cidr]
                        manual: the rest by hand
                        steps:
                          - each: xs
                            patch: {spec: {"containers[name={x}]": {image: "{name}"}}}
                          - when: flag
                            drop: {path: [spec, args], startingWith: [--sort-backends]}
                          - append: {path: [spec, topologySpreadConstraints], value: {a: [1, 2]}}
                          - object: "NetworkPolicy ns/{name}"
                            replace: {path: [spec, from], value: [{ipBlock: {cidr: "{cidr}"}}]}
                          - create: {apiVersion: v1, kind: PodDisruptionBudget, metadata: {name: "{name}"}}
                        """);
        Map<String, String> props = new LinkedHashMap<>();
        f.store("p.", props);
        assertEquals(f, Fix.load("p.", props::get));
    }
}
