package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A live scan names the cluster it read (context and API server) in every format and on stderr, and
 * a kubeconfig context's {@code namespace} scopes it as it scopes kubectl (and Popeye): only that
 * namespace, unless -A or -n says otherwise; a context without one scans every namespace. Fabric8's
 * mock API server in CRUD mode, through a real kubeconfig.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ContextNamespaceTest {
    static final String RULE = "k8s-nlb-service-single-zone-risk";

    MockCluster cluster;

    /** Context "mock" with namespace team-a. */
    Path withNamespace;

    /** Context "mock" without a namespace. */
    Path without;

    static String service(String ns) {
        return """
               apiVersion: v1
               kind: Service
               metadata:
                 name: billing-api
                 namespace: %s
                 annotations: {service.beta.kubernetes.io/aws-load-balancer-type: nlb}
               spec:
                 type: LoadBalancer
                 selector: {app: billing}
                 ports: [{port: 443}]
               """
                .formatted(ns);
    }

    @BeforeAll
    void start(@TempDir Path dir) throws IOException {
        cluster = new MockCluster();
        without = cluster.kubeconfig(dir);
        String text = Files.readString(without);
        String ctx = "context: {cluster: mock-cluster, user: mock-user}";
        assertTrue(text.contains(ctx), text);
        withNamespace = dir.resolve("kubeconfig-team-a");
        Files.writeString(
                withNamespace,
                text.replace(
                        ctx,
                        "context: {cluster: mock-cluster, user: mock-user, namespace: team-a}"));
        Path f = dir.resolve("objects.yaml");
        Files.writeString(f, service("team-a") + "---\n" + service("team-b"));
        cluster.apply(f, null);
    }

    @AfterAll
    void stop() {
        cluster.close();
    }

    TestSupport.Run scan(Path kubeconfig, String... more) {
        String[] args = new String[5 + more.length];
        args[0] = "scan";
        args[1] = "--cluster";
        args[2] = "--kubeconfig";
        args[3] = kubeconfig.toString();
        args[4] = "--rules=" + RULE;
        System.arraycopy(more, 0, args, 5, more.length);
        return TestSupport.run(args);
    }

    static Set<String> namespaces(String json) {
        Set<String> out = new java.util.TreeSet<>();
        for (JsonNode f : TestSupport.json(json).path("findings")) {
            out.add(f.path("location").path("namespace").asString());
        }
        return out;
    }

    /** The server as Fabric8 gives it (the kubeconfig's URL, with a trailing slash). */
    String server() {
        return cluster.url() + "/";
    }

    @Test
    void theContextsNamespaceScopesTheScanAndTheReportSaysSo() {
        TestSupport.Run r = scan(withNamespace, "--format", "json", "--fail-on", "none");
        assertEquals(0, r.code(), r.err());
        assertEquals(Set.of("team-a"), namespaces(r.out()));
        JsonNode scanned = TestSupport.json(r.out()).path("scanned");
        assertEquals("context mock (" + server() + ")", scanned.path("cluster").asString());
        assertEquals(
                "team-a (the context's namespace; -A for all)",
                scanned.path("namespaces").asString());
        assertTrue(
                r.err()
                        .contains(
                                "deja: scanned cluster: context mock ("
                                        + server()
                                        + "); namespaces: team-a (the context's namespace; -A for all)"),
                r.err());

        // -A: every namespace; -n: the one named
        TestSupport.Run all = scan(withNamespace, "-A", "--format", "json", "--fail-on", "none");
        assertEquals(Set.of("team-a", "team-b"), namespaces(all.out()));
        assertEquals(
                "all (-A)",
                TestSupport.json(all.out()).path("scanned").path("namespaces").asString());
        TestSupport.Run b =
                scan(withNamespace, "-n", "team-b", "--format", "json", "--fail-on", "none");
        assertEquals(Set.of("team-b"), namespaces(b.out()));
        assertEquals(
                "team-b", TestSupport.json(b.out()).path("scanned").path("namespaces").asString());
    }

    @Test
    void aContextWithoutANamespaceScansEveryNamespace() {
        TestSupport.Run r = scan(without, "--format", "json", "--fail-on", "none");
        assertEquals(Set.of("team-a", "team-b"), namespaces(r.out()));
        assertEquals(
                "all", TestSupport.json(r.out()).path("scanned").path("namespaces").asString());
    }

    @Test
    void everyFormatNamesTheCluster() {
        String named = "context mock (" + server() + ")";
        for (String format :
                new String[] {"text", "table", "github", "junit", "sarif", "html", "prometheus"}) {
            TestSupport.Run r = scan(withNamespace, "--format", format, "--fail-on", "none");
            assertEquals(0, r.code(), format + ": " + r.err());
            String expected =
                    switch (format) {
                        case "text" -> "Scanned cluster: " + named + "; namespaces: team-a";
                        case "table" -> "scanned cluster: " + named + "; namespaces: team-a";
                        case "github" -> "deja: scanned cluster: " + named + "; namespaces: team-a";
                        case "junit" -> "<property name=\"cluster\" value=\"" + named + "\"/>";
                        case "sarif" -> "\"cluster\" : \"" + named + "\"";
                        case "html" -> "<dt>cluster</dt><dd>" + named + "</dd>";
                        default ->
                                "deja_scan_info{scanned=\"cluster: "
                                        + named
                                        + "; namespaces: team-a";
                    };
            assertTrue(r.out().contains(expected), format + ": " + r.out());
        }
    }
}
