package dev.deja.rules.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * What the IL-0106 rules say when Traefik's static configuration cannot be known: its file's
 * ConfigMap is not among the inputs, the file does not parse, a variable comes from a Secret. Each
 * is a not-checked note on the workload (naming the ConfigMap and key), no finding, no stack trace.
 */
class TraefikStaticConfigTest {
    static final String RULES = "k8s-traefik-crd-shared-scope,k8s-traefik-before-crd-schemas";

    @TempDir Path tmp;

    static String deployment(String container) {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: traefik, namespace: edge}
                spec:
                  replicas: 2
                  selector: {matchLabels: {app: traefik}}
                  template:
                    metadata: {labels: {app: traefik}}
                    spec:
                      containers:
                %s
                      volumes:
                        - name: config
                          configMap: {name: traefik-static}
                """
                .formatted(container.indent(8).stripTrailing());
    }

    static String configMap(String key, String text) {
        return """
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: traefik-static, namespace: edge}
                data:
                  %s: |
                %s
                ---
                """
                .formatted(key, text.indent(4).stripTrailing());
    }

    static final String MOUNTED =
            """
            - name: traefik
              image: traefik:v2.4.8
              args: ["--providers.kubernetescrd"]
              volumeMounts: [{name: config, mountPath: /etc/traefik}]
            """;

    private JsonNode scan(String manifest, int code) throws Exception {
        Path f = tmp.resolve("m.yaml");
        Files.writeString(f, manifest);
        TestSupport.Run r =
                TestSupport.run("scan", f.toString(), "--rules", RULES, "--format", "json");
        assertEquals(code, r.code(), r.err() + r.out());
        assertFalse(r.err().contains("Exception"), r.err());
        return TestSupport.json(r.out());
    }

    private static List<String> notes(JsonNode report) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (e.path("scope").asString().startsWith("rule k8s-traefik")) {
                out.add(e.path("scope").asString() + ": " + e.path("detail").asString());
            }
        }
        return out;
    }

    @Test
    void aFileWhoseConfigMapIsNotInTheScanIsANoteNotAFinding() throws Exception {
        JsonNode r = scan(deployment(MOUNTED), 3);
        assertEquals(0, r.path("findings").size(), r.toString());
        List<String> notes = notes(r);
        assertEquals(2, notes.size(), notes.toString());
        for (String n : notes) {
            assertTrue(n.contains("on Deployment edge/traefik container traefik: not checked:"), n);
            assertTrue(
                    n.contains(
                            "Traefik looks for its configuration file at"
                                    + " /etc/traefik/traefik.toml, which key traefik.toml of"
                                    + " ConfigMap edge/traefik-static provides (volume config, if"
                                    + " it has that key), and that ConfigMap is not in the scan"),
                    n);
        }
    }

    @Test
    void withItsConfigMapTheFileDecidesAndTheFlagsAreIgnored() throws Exception {
        // the file turns the provider on with namespaces: scoped, though the flag alone is not
        JsonNode scoped =
                scan(
                        configMap(
                                        "traefik.yaml",
                                        "providers:\n  kubernetesCRD:\n    namespaces: [shop]")
                                + deployment(MOUNTED),
                        1);
        List<String> ids = new ArrayList<>();
        for (JsonNode f : scoped.path("findings")) {
            ids.add(f.path("ruleId").asString());
        }
        assertEquals(List.of("k8s-traefik-before-crd-schemas"), ids, scoped.toString());
        assertTrue(
                scoped.path("findings")
                        .get(0)
                        .path("message")
                        .asString()
                        .contains(
                                "(providers.kubernetesCRD, from file /etc/traefik/traefik.yaml"
                                        + " (ConfigMap edge/traefik-static, key traefik.yaml))"),
                scoped.toString());
        // a file without the provider: it is off, whatever the flags say
        JsonNode off =
                scan(configMap("traefik.yml", "log: {level: INFO}") + deployment(MOUNTED), 0);
        assertEquals(0, off.path("findings").size(), off.toString());
        assertEquals(List.of(), notes(off));
    }

    @Test
    void aMalformedFileIsANoteNamingTheConfigMapAndKey() throws Exception {
        JsonNode yaml =
                scan(
                        configMap("traefik.yml", "providers:\n  kubernetesCRD: [unclosed")
                                + deployment(MOUNTED),
                        3);
        assertEquals(0, yaml.path("findings").size(), yaml.toString());
        List<String> notes = notes(yaml);
        assertEquals(2, notes.size(), notes.toString());
        assertTrue(
                notes.get(0)
                        .contains(
                                "file /etc/traefik/traefik.yml (ConfigMap edge/traefik-static, key"
                                        + " traefik.yml) is not valid YAML: "),
                notes.toString());

        JsonNode toml =
                scan(
                        configMap("traefik.toml", "[providers.kubernetesCRD\nx = ")
                                + deployment(MOUNTED),
                        3);
        assertTrue(
                notes(toml)
                        .get(0)
                        .contains(
                                "file /etc/traefik/traefik.toml (ConfigMap edge/traefik-static, key"
                                        + " traefik.toml) is not valid TOML: "),
                notes(toml).toString());

        // nested deeper than the bound: refused, not parsed
        String deep = "a: " + "[".repeat(100) + "]".repeat(100);
        JsonNode bounded = scan(configMap("traefik.yml", deep) + deployment(MOUNTED), 3);
        assertTrue(notes(bounded).get(0).contains("is not valid YAML"), notes(bounded).toString());
    }

    @Test
    void aVariableFromASecretIsANote() throws Exception {
        JsonNode r =
                scan(
                        deployment(
                                """
                                - name: traefik
                                  image: traefik:v2.4.8
                                  env:
                                    - name: TRAEFIK_PROVIDERS_KUBERNETESCRD_NAMESPACES
                                      valueFrom: {secretKeyRef: {name: tenants, key: list}}
                                    - {name: TRAEFIK_PROVIDERS_KUBERNETESCRD, value: "true"}
                                """),
                        3);
        assertEquals(0, r.path("findings").size(), r.toString());
        assertTrue(
                notes(r).get(0)
                        .contains(
                                "TRAEFIK_PROVIDERS_KUBERNETESCRD_NAMESPACES takes its value from"
                                        + " secretKeyRef, which deja does not read"),
                notes(r).toString());
    }
}
