package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.collect.Collector;
import dev.deja.model.kube.KubeInventory;
import dev.deja.source.ScanRequest;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * End to end against Fabric8's mock API server over HTTP, through a real kubeconfig file: the rule
 * fixtures (each file in a namespace of its own) and ingress-nginx's AWS manifest from the shared
 * corpus.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KubeLiveSourceTest {
    static final Path FIXTURES = Path.of("src/test/resources/fixtures");
    MockCluster cluster;
    Path kubeconfig;

    /** namespace -> (rule id, whether its fixture must fire) */
    final Map<String, String[]> fixtureNamespaces = new LinkedHashMap<>();

    @TempDir Path tmp;

    @BeforeAll
    void start(@TempDir Path dir) throws IOException {
        cluster = new MockCluster();
        kubeconfig = cluster.kubeconfig(dir);
        int i = 0;
        List<Path> files;
        try (Stream<Path> s = Files.walk(FIXTURES)) {
            files =
                    s.filter(Files::isRegularFile)
                            .filter(p -> p.getParent().getFileName().toString().startsWith("k8s-"))
                            .filter(
                                    p ->
                                            !p.getFileName()
                                                    .toString()
                                                    .equals("expect.yaml")) // what a JSON fixture
                            // expects
                            // CustomResourceDefinitions are cluster-scoped: one cluster cannot hold
                            // each fixture's variant of the same CRD in its own namespace (they are
                            // read live in KubeLiveCrdTest)
                            .filter(p -> !holdsCrd(p))
                            // a saved snapshot (k8s-etcd-disk-latency's Prometheus answers) is
                            // not a manifest
                            .filter(p -> !p.getFileName().toString().endsWith(".json"))
                            // static pods: a live scan does not list Pods, so they cannot fire
                            // there (k8s-etcd-even-or-single-member's StatefulSets still do)
                            .filter(p -> !staticPods(p))
                            // an input left out on purpose (a Traefik configuration file whose
                            // ConfigMap is absent) is a not-checked note: the scan is incomplete
                            .filter(p -> !p.getFileName().toString().contains("not-in-scan"))
                            .sorted()
                            .toList();
        }
        for (Path f : files) {
            String ns = "fx-" + (i++);
            cluster.apply(f, ns);
            String rule = f.getParent().getFileName().toString();
            String name = f.getFileName().toString();
            boolean ok = name.substring(0, name.lastIndexOf('.')).endsWith("_ok");
            fixtureNamespaces.put(ns, new String[] {rule, ok ? "ok" : "fires", f.toString()});
        }
    }

    static boolean holdsCrd(Path p) {
        try {
            return Files.readString(p).contains("kind: CustomResourceDefinition");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static boolean staticPods(Path p) {
        try {
            return Files.readString(p).contains("\nkind: Pod\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterAll
    void stop() {
        cluster.close();
    }

    static JsonNode json(String s) {
        return JsonMapper.builder().build().readTree(s);
    }

    static Set<String> findings(JsonNode report, String namespace, String rule) {
        Set<String> out = new TreeSet<>();
        for (JsonNode f : report.path("findings")) {
            if ((rule == null || rule.equals(f.path("ruleId").asString()))
                    && (namespace == null
                            || namespace.equals(
                                    f.path("location").path("namespace").asString(null)))) {
                out.add(
                        f.path("ruleId").asString()
                                + " "
                                + f.path("location").path("kind").asString()
                                + " "
                                + f.path("location").path("namespace").asString()
                                + "/"
                                + f.path("location").path("name").asString());
            }
        }
        return out;
    }

    @Test
    void liveScanFindsWhatTheFixturesSay() throws IOException {
        Path snap = tmp.resolve("live-snapshot.json");
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "--format",
                        "json",
                        "--snapshot-out",
                        snap.toString());
        assertEquals(1, r.code(), r.err());
        JsonNode report = json(r.out());
        assertTrue(report.path("coverage").path("complete").asBoolean(), r.out());
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, String[]> e : fixtureNamespaces.entrySet()) {
            Set<String> got = findings(report, e.getKey(), e.getValue()[0]);
            boolean fires = e.getValue()[1].equals("fires");
            if (fires == got.isEmpty()) {
                wrong.add(
                        e.getValue()[2]
                                + " (namespace "
                                + e.getKey()
                                + "): "
                                + (fires ? "no finding" : got));
            }
        }
        assertEquals(List.of(), wrong);
        // the same scan offline from the snapshot
        TestSupport.Run offline = TestSupport.run("scan", snap.toString(), "--format", "json");
        assertEquals(1, offline.code(), offline.err());
        assertEquals(findings(report, null, null), findings(json(offline.out()), null, null));
        assertFalse(Files.readString(snap).contains("managedFields"));
    }

    @Test
    void configMapDataNoRuleReadsIsNotKept() throws IOException {
        cluster.apply(Path.of("src/test/resources/live-configmaps/configmaps.yaml"), "cm-data");
        // what a scan holds in memory: only the data values a rule reads
        ScanRequest.Builder b = ScanRequest.builder();
        b.cluster = true;
        b.kubeconfig = kubeconfig;
        b.namespaces = List.of("cm-data");
        b.kubeKinds = Set.of("ConfigMap");
        b.haproxyConfigMaps = List.of("cm-data/named-haproxy");
        b.processEnv = Map.of();
        ScanRequest req = b.build();
        KubeInventory inv = Collector.collect(req).part(KubeInventory.class).orElseThrow();
        Map<String, Set<String>> keys = new TreeMap<>();
        inv.configMaps().forEach(cm -> keys.put(cm.name(), cm.data().keySet()));
        assertEquals(
                Map.of(
                        "ingress-nginx-controller",
                        Set.of("enable-serial-reloads", "worker-shutdown-timeout"),
                        "grafana-dashboards",
                        Set.of(),
                        "edge-haproxy",
                        Set.of("haproxy.cfg"),
                        "named-haproxy",
                        Set.of("main")),
                keys);
        // and the rules still fire on it
        Path config = tmp.resolve("deja.yaml");
        Files.writeString(
                config, "sources:\n  haproxy:\n    configMaps: [cm-data/named-haproxy]\n");
        Path snap = tmp.resolve("cm-snapshot.json");
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "-n",
                        "cm-data",
                        "--config",
                        config.toString(),
                        "--format",
                        "json",
                        "--snapshot-out",
                        snap.toString());
        JsonNode report = json(r.out());
        assertFalse(
                findings(report, "cm-data", "k8s-ingress-nginx-serial-reloads").isEmpty(), r.out());
        List<String> haproxyFiles = new ArrayList<>();
        for (JsonNode f : report.path("findings")) {
            if (f.path("location").path("file").asString("").startsWith("ConfigMap cm-data/")) {
                haproxyFiles.add(f.path("location").path("file").asString());
            }
        }
        assertTrue(
                haproxyFiles.contains("ConfigMap cm-data/edge-haproxy#haproxy.cfg"),
                haproxyFiles.toString());
        assertTrue(
                haproxyFiles.contains("ConfigMap cm-data/named-haproxy#main"),
                haproxyFiles.toString());
        // a saved snapshot keeps every value: a later offline scan may name other ConfigMaps in its
        // deja.yaml
        String saved = Files.readString(snap);
        assertTrue(saved.contains("DASHBOARD-PAYLOAD") && saved.contains("NOTES-PAYLOAD"), saved);
    }

    @Test
    void aSnapshotTakenWithSomeRulesDoesNotFeedTheOthersMissingKinds() throws IOException {
        Path snap = tmp.resolve("spread-only.json");
        TestSupport.Run live =
                TestSupport.run(
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "--rules",
                        "k8s-lb-not-spread",
                        "--snapshot-out",
                        snap.toString(),
                        "--format",
                        "json");
        assertEquals(1, live.code(), live.err());
        TestSupport.Run offline = TestSupport.run("scan", snap.toString(), "--format", "json");
        assertEquals(1, offline.code(), offline.err());
        JsonNode report = json(offline.out());
        // the rules whose kinds the snapshot holds run (the live scan's findings are all there);
        // the others do not
        assertTrue(
                findings(report, null, null).containsAll(findings(json(live.out()), null, null)),
                offline.out());
        assertEquals(Set.of(), findings(report, null, "k8s-lb-no-disruption-headroom"));
        assertEquals(Set.of(), findings(report, null, "k8s-ingress-nginx-serial-reloads"));
        Set<String> notRun = new TreeSet<>();
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (e.path("source").asString().equals("rules")) {
                assertEquals("skipped", e.path("status").asString());
                assertTrue(
                        e.path("detail")
                                .asString()
                                .contains("which this snapshot of the cluster does not hold"),
                        e.toString());
                notRun.add(e.path("scope").asString());
            }
        }
        // need ConfigMaps, HPAs and PDBs, Services, NetworkPolicies, webhook configurations or RBAC
        // objects, which the
        // snapshot was not asked to list (the load-balancer detector reads workloads and
        // IngressClasses only: a Service
        // of type LoadBalancer makes nothing a proxy)
        assertEquals(
                Set.of(
                        "k8s-ingress-nginx-serial-reloads",
                        "k8s-lb-no-disruption-headroom",
                        "k8s-nlb-service-single-zone-risk",
                        "k8s-haproxy-ingress-hot-pods",
                        "k8s-ingress-nginx-admission-exposed",
                        "k8s-ingress-nginx-admission-rce",
                        // Services and PDBs (IL-0463), CustomResourceDefinitions (IL-0106)
                        "k8s-internal-lb-local-traffic-policy",
                        "k8s-internal-lb-no-drain-headroom",
                        "k8s-traefik-before-crd-schemas",
                        "k8s-traefik-crd-no-schema",
                        // ConfigMaps: Traefik's static configuration file or variables (IL-0106)
                        "k8s-traefik-crd-shared-scope",
                        // etcd's static pods in kube-system (IL-0072), listed live
                        "k8s-etcd-even-or-single-member"),
                notRun);
        // with manifests beside the snapshot, the kinds may come from them: those rules run
        TestSupport.Run mixed =
                TestSupport.run(
                        "scan",
                        snap.toString(),
                        "examples/kubernetes/il-0081-serial-reloads.yaml",
                        "--format",
                        "json");
        assertFalse(
                findings(json(mixed.out()), null, "k8s-ingress-nginx-serial-reloads").isEmpty(),
                mixed.out());
        TestSupport.Run text = TestSupport.run("scan", snap.toString());
        assertTrue(
                text.out()
                        .contains(
                                "Skipped (not run: it needs ConfigMap, which this snapshot of the cluster does not"
                                        + " hold (taken with other rules selected)): k8s-haproxy-ingress-hot-pods, k8s-ingress-nginx-serial-reloads"),
                text.out());
    }

    @Test
    void onlyTheKindsOfTheSelectedRulesAreListed() {
        int before = cluster.server.getRequestCount();
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "--format",
                        "json",
                        "--rules",
                        "k8s-nlb-service-single-zone-risk");
        assertEquals(1, r.code(), r.err());
        JsonNode report = json(r.out());
        List<String> scopes = new ArrayList<>();
        report.path("coverage")
                .path("entries")
                .forEach(e -> scopes.add(e.path("scope").asString()));
        assertEquals(List.of("Service in all namespaces"), scopes);
        assertEquals(1, cluster.server.getRequestCount() - before, "one list request for Services");
        try {
            RecordedRequest last = cluster.server.getLastRequest();
            assertEquals("/api/v1/services?limit=500", last.getPath());
            assertEquals(
                    "Bearer not-a-real-token",
                    last.getHeader("Authorization"),
                    "the kubeconfig's token is sent");
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void namespacesAndSelectorNarrowTheScan() {
        String ns =
                fixtureNamespaces.entrySet().stream()
                        .filter(
                                e ->
                                        e.getValue()[2].endsWith(
                                                "k8s-lb-probe-fails-fast/ingress-nginx-default-timeout.yaml"))
                        .findFirst()
                        .orElseThrow()
                        .getKey();
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "--format",
                        "json",
                        "-n",
                        ns,
                        "--rules",
                        "k8s-lb-probe-fails-fast");
        JsonNode report = json(r.out());
        assertEquals(
                Set.of("k8s-lb-probe-fails-fast Deployment " + ns + "/ingress-nginx-controller"),
                findings(report, null, null),
                r.out());
        TestSupport.Run none =
                TestSupport.run(
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "--format",
                        "json",
                        "-n",
                        ns,
                        "-l",
                        "app=nothing-like-this",
                        "--rules",
                        "k8s-lb-probe-fails-fast");
        assertEquals(0, none.code(), none.err());
        assertEquals(Set.of(), findings(json(none.out()), null, null));
    }

    @Test
    void kubeconfigFromSeveralPathsAndContext() throws IOException {
        Path other =
                MockCluster.writeKubeconfig(
                        tmp.resolve("other"), "other", "http://127.0.0.1:" + freePort());
        String env =
                tmp.resolve("missing")
                        + File.pathSeparator
                        + other
                        + File.pathSeparator
                        + kubeconfig;
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of("KUBECONFIG", env),
                        "scan",
                        "--cluster",
                        "--context",
                        "mock",
                        "--rules",
                        "k8s-nlb-service-single-zone-risk");
        assertEquals(1, r.code(), r.err());
        assertTrue(r.out().contains("k8s-nlb-service-single-zone-risk"), r.out());
        // without --context the first file's current-context ("other", unreachable) wins, as with
        // kubectl
        TestSupport.Run first =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of("KUBECONFIG", env),
                        "scan",
                        "--cluster",
                        "--rules",
                        "k8s-nlb-service-single-zone-risk");
        assertEquals(3, first.code(), first.err());
        assertTrue(first.err().contains("context other"), first.err());
        TestSupport.Run bad =
                TestSupport.run(
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        kubeconfig.toString(),
                        "--context",
                        "nope");
        assertEquals(2, bad.code());
        assertEquals(
                "deja: --context nope: no such context in " + kubeconfig + " (contexts: mock)",
                bad.err().strip());
    }

    @Test
    void execCredentialPluginsGoThroughFabric8() throws Exception {
        Path plugin = tmp.resolve("get-token.sh");
        Files.writeString(
                plugin,
                "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                        + "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"exec-token\"}}'\n");
        plugin.toFile().setExecutable(true);
        Path kc = tmp.resolve("kc-exec");
        Files.writeString(
                kc,
                """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "%s"}}]
                users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: "%s",
                  interactiveMode: Never}}}]
                contexts: [{name: x, context: {cluster: c, user: u}}]
                current-context: x
                """
                        .formatted(cluster.url(), plugin));
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        kc.toString(),
                        "--rules",
                        "k8s-nlb-service-single-zone-risk");
        assertEquals(1, r.code(), r.err());
        assertEquals(
                "Bearer exec-token", cluster.server.getLastRequest().getHeader("Authorization"));
    }

    @Test
    void corpusIngressNginxAwsManifestLive() throws IOException {
        Path aws = TestSupport.shared("corpus/kubernetes/ingress-nginx_aws_deploy.yaml");
        try (MockCluster c = new MockCluster()) {
            c.apply(aws, null);
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--cluster",
                            "--kubeconfig",
                            c.kubeconfig(tmp).toString(),
                            "--format",
                            "json");
            assertEquals(1, r.code(), r.err());
            Set<String> got = findings(json(r.out()), null, null);
            String d = "Deployment ingress-nginx/ingress-nginx-controller";
            // one replica: its spread is the same root cause as the single-replica finding,
            // reported once; liveness on readiness's endpoint with a higher failureThreshold (51s
            // against 31s, as Kubernetes advises) is not reported
            assertEquals(
                    Set.of(
                            "k8s-lb-no-disruption-headroom " + d,
                            "k8s-lb-probe-fails-fast " + d,
                            "k8s-ingress-nginx-admission-exposed " + d),
                    got);
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
