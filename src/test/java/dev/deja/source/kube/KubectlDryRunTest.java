package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The IL-0053 examples pass {@code kubectl apply --dry-run=client}. kubectl needs an API server
 * even for a client-side dry run (discovery maps each kind to its resource), so the test serves the
 * discovery documents of the kinds the examples use from a loopback server; OpenAPI schemas are not
 * available offline, hence {@code --validate=false}: kubectl parses every document and maps its
 * apiVersion and kind, it does not check fields against a schema. Skipped when kubectl is not
 * installed.
 */
class KubectlDryRunTest {
    /** group/version -> resources as {plural, kind, namespaced}. */
    static final Map<String, String[][]> RESOURCES = new LinkedHashMap<>();

    static {
        RESOURCES.put(
                "v1",
                new String[][] {
                    {"namespaces", "Namespace", "false"},
                    {"services", "Service", "true"},
                    {"serviceaccounts", "ServiceAccount", "true"},
                    {"configmaps", "ConfigMap", "true"}
                });
        RESOURCES.put(
                "apps/v1",
                new String[][] {
                    {"deployments", "Deployment", "true"}, {"daemonsets", "DaemonSet", "true"}
                });
        RESOURCES.put(
                "policy/v1",
                new String[][] {{"poddisruptionbudgets", "PodDisruptionBudget", "true"}});
        RESOURCES.put(
                "networking.k8s.io/v1",
                new String[][] {{"networkpolicies", "NetworkPolicy", "true"}});
        RESOURCES.put(
                "rbac.authorization.k8s.io/v1",
                new String[][] {
                    {"clusterroles", "ClusterRole", "false"},
                    {"clusterrolebindings", "ClusterRoleBinding", "false"}
                });
        RESOURCES.put(
                "admissionregistration.k8s.io/v1",
                new String[][] {
                    {"validatingwebhookconfigurations", "ValidatingWebhookConfiguration", "false"}
                });
    }

    static String discovery(String path) {
        if (path.equals("/api")) {
            return "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"]}";
        }
        if (path.equals("/apis")) {
            List<String> groups = new ArrayList<>();
            for (String gv : RESOURCES.keySet()) {
                if (!gv.equals("v1")) {
                    String g = gv.substring(0, gv.indexOf('/'));
                    groups.add(
                            "{\"name\":\""
                                    + g
                                    + "\",\"versions\":[{\"groupVersion\":\""
                                    + gv
                                    + "\",\"version\":\"v1\"}],"
                                    + "\"preferredVersion\":{\"groupVersion\":\""
                                    + gv
                                    + "\",\"version\":\"v1\"}}");
                }
            }
            return "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":["
                    + String.join(",", groups)
                    + "]}";
        }
        String gv =
                path.startsWith("/api/")
                        ? path.substring(5)
                        : path.startsWith("/apis/") ? path.substring(6) : "";
        String[][] res = RESOURCES.get(gv);
        if (res == null) {
            return null;
        }
        List<String> items = new ArrayList<>();
        for (String[] r : res) {
            items.add(
                    "{\"name\":\""
                            + r[0]
                            + "\",\"singularName\":\"\",\"namespaced\":"
                            + r[2]
                            + ",\"kind\":\""
                            + r[1]
                            + "\",\"verbs\":[\"create\",\"get\",\"list\",\"patch\",\"update\",\"delete\"]}");
        }
        return "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\""
                + gv
                + "\",\"resources\":["
                + String.join(",", items)
                + "]}";
    }

    @Test
    void il0053ExamplesPassKubectlClientDryRun(@TempDir Path dir) throws Exception {
        HttpServer server =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext(
                "/",
                ex -> {
                    String body = discovery(ex.getRequestURI().getPath());
                    int code = body == null ? 404 : 200;
                    if (body == null) { // every object is new to this server: kubectl creates it
                        // (dry run)
                        body =
                                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"NotFound\",\"code\":404}";
                    }
                    byte[] b = body.getBytes(StandardCharsets.UTF_8);
                    ex.getResponseHeaders().add("Content-Type", "application/json");
                    ex.sendResponseHeaders(code, b.length);
                    ex.getResponseBody().write(b);
                    ex.close();
                });
        server.start();
        try {
            Path kubeconfig = dir.resolve("kubeconfig");
            Files.writeString(
                    kubeconfig,
                    "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: http://"
                            + server.getAddress().getAddress().getHostAddress()
                            + ":"
                            + server.getAddress().getPort()
                            + "\n"
                            + "users:\n- name: u\n  user: {}\ncontexts:\n- name: c\n  context: {cluster: fake, user: u}\n"
                            + "current-context: c\n");
            for (String example :
                    List.of(
                            "examples/kubernetes/il-0053-risky-ingress-nginx.yaml",
                            "examples/kubernetes/il-0053-fixed-ingress-nginx.yaml")) {
                ProcessBuilder pb =
                        new ProcessBuilder(
                                        "kubectl",
                                        "apply",
                                        "--dry-run=client",
                                        "--validate=false",
                                        "-f",
                                        example)
                                .redirectErrorStream(true);
                pb.environment().put("KUBECONFIG", kubeconfig.toString());
                pb.environment().put("HOME", dir.toString()); // kubectl's discovery cache
                Process p;
                try {
                    p = pb.start();
                } catch (IOException e) {
                    Assumptions.abort(
                            "kubectl is not installed: cannot check the examples with kubectl --dry-run=client");
                    return;
                }
                assertTrue(p.waitFor(120, TimeUnit.SECONDS), "kubectl timed out");
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(0, p.exitValue(), example + ": " + out);
                long docs =
                        Files.readString(Path.of(example))
                                .lines()
                                .filter(l -> l.startsWith("kind: "))
                                .count();
                assertEquals(
                        docs,
                        out.lines().filter(l -> l.endsWith(" created (dry run)")).count(),
                        example + ": " + out);
            }
        } finally {
            server.stop(0);
        }
    }
}
