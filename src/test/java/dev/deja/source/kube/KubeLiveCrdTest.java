package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * IL-0106 against a cluster: deja lists CustomResourceDefinitions (apiextensions.k8s.io/v1,
 * cluster-scoped) from Fabric8's mock server in CRUD mode, through a real kubeconfig, and judges
 * Traefik's by their schema as it judges them in manifests; a snapshot of them reads back the same.
 */
class KubeLiveCrdTest {
    static final String CRDS =
            """
            apiVersion: apiextensions.k8s.io/v1
            kind: CustomResourceDefinition
            metadata:
              name: middlewares.traefik.io
            spec:
              group: traefik.io
              names: {kind: Middleware, plural: middlewares}
              scope: Namespaced
              versions:
                - name: v1alpha1
                  served: true
                  storage: true
                  schema:
                    openAPIV3Schema:
                      type: object
                      properties:
                        spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
            ---
            apiVersion: apiextensions.k8s.io/v1
            kind: CustomResourceDefinition
            metadata:
              name: ingressroutes.traefik.io
            spec:
              group: traefik.io
              names: {kind: IngressRoute, plural: ingressroutes}
              scope: Namespaced
              versions:
                - name: v1alpha1
                  served: true
                  storage: true
                  schema:
                    openAPIV3Schema:
                      type: object
                      properties:
                        spec:
                          type: object
                          properties:
                            routes: {type: array, items: {type: object}}
            """;

    @Test
    void liveCrdsAreReadAndJudged(@TempDir Path dir) throws IOException {
        try (MockCluster cluster = new MockCluster()) {
            Path kubeconfig = cluster.kubeconfig(dir);
            Path manifest = dir.resolve("crds.yaml");
            Files.writeString(manifest, CRDS);
            cluster.apply(manifest, "default");
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--cluster",
                            "--kubeconfig",
                            kubeconfig.toString(),
                            "--rules",
                            "k8s-traefik-crd-no-schema",
                            "--format",
                            "json",
                            "--snapshot-out",
                            dir.resolve("snap.json").toString());
            assertEquals(1, r.code(), r.out() + r.err());
            JsonNode report = TestSupport.json(r.out());
            assertTrue(report.path("coverage").path("complete").asBoolean(), r.out());
            Set<String> got =
                    KubeLiveSourceTest.findings(report, null, "k8s-traefik-crd-no-schema");
            assertEquals(1, got.size(), r.out());
            String only = got.iterator().next();
            assertTrue(only.contains("middlewares.traefik.io"), only);
            // the CRD views (with their schema verdicts) are saved and read back from a snapshot
            TestSupport.Run offline =
                    TestSupport.run(
                            "scan",
                            dir.resolve("snap.json").toString(),
                            "--rules",
                            "k8s-traefik-crd-no-schema",
                            "--format",
                            "json");
            assertEquals(1, offline.code(), offline.out() + offline.err());
            assertEquals(
                    got,
                    KubeLiveSourceTest.findings(
                            TestSupport.json(offline.out()), null, "k8s-traefik-crd-no-schema"));
        }
    }
}
