package dev.deja.source.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Fabric8's kubernetes-server-mock in CRUD mode (a real HTTP API server that stores what is
 * created), optionally answering some requests itself (403 for one kind, 401 for everything), and a
 * real kubeconfig file pointing at it.
 */
final class MockCluster implements AutoCloseable {
    final KubernetesMockServer server;
    final KubernetesClient client;
    final KubernetesCrudDispatcher crud;

    final boolean https;

    /**
     * @param override returns a response for requests it wants to answer itself, or null to let
     *     CRUD handle them
     */
    MockCluster(Function<RecordedRequest, MockResponse> override) {
        this(override, false);
    }

    /**
     * With {@code https}, the server speaks TLS with the mock server's own certificate (the
     * kubeconfig skips its check).
     */
    MockCluster(Function<RecordedRequest, MockResponse> override, boolean https) {
        this.https = https;
        KubernetesCrudDispatcher crud =
                new KubernetesCrudDispatcher(List.of()) {
                    @Override
                    public MockResponse dispatch(RecordedRequest request) {
                        MockResponse r = override == null ? null : override.apply(request);
                        return r != null ? r : super.dispatch(request);
                    }
                };
        this.crud = crud;
        server =
                new KubernetesMockServer(
                        new Context(), new MockWebServer(), new HashMap<>(), crud, https);
        server.init();
        client = server.createClient();
    }

    MockCluster() {
        this(null);
    }

    static MockResponse status(int code, String reason, String message) {
        return new MockResponse()
                .setResponseCode(code)
                .setHeader("Content-Type", "application/json")
                .setBody(
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\""
                                + reason
                                + "\",\"message\":\""
                                + message
                                + "\",\"code\":"
                                + code
                                + "}");
    }

    /**
     * Creates every object of a manifest, in the given namespace when not null (else the object's
     * own).
     */
    int apply(Path manifest, String namespace) throws IOException {
        if (namespace != null) {
            ensureNamespace(namespace);
        }
        int n = 0;
        try (InputStream in = Files.newInputStream(manifest)) {
            for (HasMetadata o : client.load(in).items()) {
                if (namespace != null && !isClusterScoped(o)) {
                    o.getMetadata().setNamespace(namespace);
                }
                if (namespace != null) {
                    intoNamespace(o, namespace);
                }
                if (o.getMetadata().getNamespace() == null && !isClusterScoped(o)) {
                    o.getMetadata().setNamespace("default");
                }
                if (!isClusterScoped(o)) {
                    ensureNamespace(o.getMetadata().getNamespace());
                } else if (o.getKind().equals("Namespace")
                        && client.namespaces().withName(o.getMetadata().getName()).get() != null) {
                    continue; // made already for an object in it
                }
                client.resource(o).create();
                n++;
            }
        }
        return n;
    }

    /**
     * Several fixtures applied side by side, each in its own namespace: their cluster-scoped RBAC
     * and webhook objects get the namespace as a name prefix, and what they point at (bound
     * ServiceAccounts, the webhook's Service) follows the namespace, so each fixture keeps the
     * meaning it has on its own.
     */
    static void intoNamespace(HasMetadata o, String namespace) {
        if (o instanceof ClusterRole r) {
            r.getMetadata().setName(namespace + "-" + r.getMetadata().getName());
        } else if (o instanceof ClusterRoleBinding b) {
            b.getMetadata().setName(namespace + "-" + b.getMetadata().getName());
            if (b.getRoleRef() != null) {
                b.getRoleRef().setName(namespace + "-" + b.getRoleRef().getName());
            }
            b.getSubjects()
                    .forEach(s -> s.setNamespace(s.getNamespace() == null ? null : namespace));
        } else if (o instanceof ValidatingWebhookConfiguration v) {
            v.getMetadata().setName(namespace + "-" + v.getMetadata().getName());
            v.getWebhooks()
                    .forEach(
                            w -> {
                                if (w.getClientConfig() != null
                                        && w.getClientConfig().getService() != null) {
                                    w.getClientConfig().getService().setNamespace(namespace);
                                }
                            });
        }
    }

    /**
     * Creates the Namespace object unless it exists: deja checks that a namespace given with -n
     * exists.
     */
    void ensureNamespace(String name) {
        if (client.namespaces().withName(name).get() == null) {
            client.namespaces()
                    .resource(
                            new NamespaceBuilder()
                                    .withNewMetadata()
                                    .withName(name)
                                    .endMetadata()
                                    .build())
                    .create();
        }
    }

    /**
     * Stores a pod with one container, in {@code phase}, on node {@code node} (none when null), as
     * the kubelet reports it: the status is written again when the create dropped it.
     */
    void pod(
            String namespace,
            String name,
            Map<String, String> labels,
            String container,
            String image,
            String node,
            String phase) {
        Pod p =
                new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(namespace)
                        .withLabels(labels)
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(node)
                        .addNewContainer()
                        .withName(container)
                        .withImage(image)
                        .endContainer()
                        .endSpec()
                        .withNewStatus()
                        .withPhase(phase)
                        .endStatus()
                        .build();
        client.pods().inNamespace(namespace).resource(p).create();
        if (client.pods().inNamespace(namespace).withName(name).get().getStatus() == null) {
            client.pods().inNamespace(namespace).resource(p).updateStatus();
        }
    }

    static boolean isClusterScoped(HasMetadata o) {
        return switch (o.getKind()) {
            case "Namespace",
                    "ClusterRole",
                    "ClusterRoleBinding",
                    "IngressClass",
                    "ValidatingWebhookConfiguration",
                    "MutatingWebhookConfiguration",
                    "CustomResourceDefinition",
                    "PriorityClass" ->
                    true;
            default -> false;
        };
    }

    /**
     * Stores an object the way the mock's POST handler does, minus its linear search for a
     * conflicting object (which makes loading tens of thousands of objects over HTTP quadratic).
     * For the benchmark's bulk load only.
     */
    void store(String collectionPath, String name, String json) {
        GenericKubernetesResource r =
                Serialization.unmarshal(json, GenericKubernetesResource.class);
        AttributeSet key = crud.getKey(collectionPath).add(new Attribute("name", name));
        crud.processEvent(collectionPath, key, null, r, json);
    }

    String url() {
        return (https ? "https://" : "http://") + server.getHostName() + ":" + server.getPort();
    }

    /** A kubeconfig file with one context, "mock", pointing at this server. */
    Path kubeconfig(Path dir) throws IOException {
        Path kc = writeKubeconfig(dir.resolve("kubeconfig-mock"), "mock", url());
        if (https) {
            Files.writeString(
                    kc,
                    Files.readString(kc)
                            .replace(
                                    "cluster: {server: ",
                                    "cluster: {insecure-skip-tls-verify: true, server: "));
        }
        return kc;
    }

    static Path writeKubeconfig(Path file, String context, String url) throws IOException {
        Files.writeString(
                file,
                """
                apiVersion: v1
                kind: Config
                clusters:
                  - name: %1$s-cluster
                    cluster: {server: "%2$s"}
                users:
                  - name: %1$s-user
                    user: {token: not-a-real-token}
                contexts:
                  - name: %1$s
                    context: {cluster: %1$s-cluster, user: %1$s-user}
                current-context: %1$s
                """
                        .formatted(context, url));
        return file;
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
