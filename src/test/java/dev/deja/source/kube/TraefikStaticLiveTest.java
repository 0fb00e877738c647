package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Traefik's static configuration read from a live cluster (a Fabric8 mock API server in CRUD mode,
 * through a real kubeconfig): the live parser keeps the containers' env and mounts and the pods'
 * volumes, and the ConfigMap keys named traefik.yml; a key of another name, which a live scan does
 * not keep, is a not-checked note rather than a guess.
 */
class TraefikStaticLiveTest {
    @TempDir Path tmp;

    private MockCluster cluster;

    @AfterEach
    void close() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    static String traefik(String name, String volume) {
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: %s, namespace: edge}
                spec:
                  replicas: 2
                  selector: {matchLabels: {app: %s}}
                  template:
                    metadata: {labels: {app: %s}}
                    spec:
                      containers:
                        - name: traefik
                          image: traefik:v3.1.2
                          args: ["--providers.kubernetescrd.namespaces=edge"]
                          env: [{name: UNRELATED, value: "x"}]
                          volumeMounts: [{name: config, mountPath: /etc/traefik}]
                      volumes:
                        - name: config
                          configMap: %s
                ---
                """
                .formatted(name, name, name, volume);
    }

    @Test
    void aMountedTraefikYmlIsReadLiveAndAnUnkeptKeyIsANote() throws Exception {
        String manifest =
                """
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: traefik-config, namespace: edge}
                data:
                  traefik.yml: |
                    providers:
                      kubernetesCRD: {}
                ---
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: traefik-renamed, namespace: edge}
                data:
                  static.yaml: |
                    providers:
                      kubernetesCRD: {}
                ---
                """
                        + traefik("traefik", "{name: traefik-config}")
                        + traefik(
                                "traefik-renamed",
                                "{name: traefik-renamed, items: [{key: static.yaml, path:"
                                        + " traefik.yml}]}");
        cluster = new MockCluster();
        Path m = tmp.resolve("m.yaml");
        Files.writeString(m, manifest);
        cluster.apply(m, null);
        Path kc =
                FleetScanTest.kubeconfig(
                        tmp.resolve("kubeconfig"), Map.of("prod", cluster.url()), "prod");
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        kc.toString(),
                        "--rules",
                        "k8s-traefik-crd-shared-scope",
                        "--format",
                        "json");
        assertEquals(3, r.code(), r.err() + r.out());
        JsonNode report = TestSupport.json(r.out());
        List<String> found = new ArrayList<>();
        for (JsonNode f : report.path("findings")) {
            found.add(
                    f.path("location").path("name").asString()
                            + ": "
                            + f.path("message").asString());
        }
        assertEquals(1, found.size(), r.out());
        assertTrue(
                found.get(0)
                        .startsWith(
                                "traefik: Deployment edge/traefik: container traefik enables the"
                                        + " Kubernetes CRD provider (providers.kubernetesCRD, from"
                                        + " file /etc/traefik/traefik.yml (ConfigMap"
                                        + " edge/traefik-config, key traefik.yml))"),
                found.toString());
        List<String> notes = new ArrayList<>();
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (e.path("scope").asString().startsWith("rule ")) {
                notes.add(e.path("scope").asString() + ": " + e.path("detail").asString());
            }
        }
        assertEquals(1, notes.size(), notes.toString());
        assertTrue(
                notes.get(0)
                        .contains(
                                "on Deployment edge/traefik-renamed container traefik: not checked:"
                                        + " its configuration file /etc/traefik/traefik.yml would"
                                        + " be key static.yaml of ConfigMap edge/traefik-renamed,"
                                        + " which a live scan does not keep"),
                notes.toString());
    }
}
