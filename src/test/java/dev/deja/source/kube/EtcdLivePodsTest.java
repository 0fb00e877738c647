package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * k8s-etcd-even-or-single-member in a live cluster: etcd's static pods (their mirror pods) are read
 * with one list in kube-system filtered by kubeadm's labels, through a real kubeconfig to a Fabric8
 * mock API server in CRUD mode; without the permission, the report says what was not checked.
 */
class EtcdLivePodsTest {
    static final String RULE = "k8s-etcd-even-or-single-member";
    static final Map<String, String> ETCD_LABELS =
            Map.of("component", "etcd", "tier", "control-plane");

    @TempDir Path tmp;

    private final List<AutoCloseable> open = new ArrayList<>();

    /** The paths (with query) of every GET the API server got. */
    private final List<String> requests = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private MockCluster cluster(Predicate<String> deny) {
        MockCluster c =
                new MockCluster(
                        (RecordedRequest r) -> {
                            if (!"GET".equals(r.getMethod())) {
                                return null; // the test's own set-up (POST) and deja's reads apart
                            }
                            synchronized (requests) {
                                requests.add(r.getPath());
                            }
                            return deny.test(r.getPath())
                                    ? MockCluster.status(403, "Forbidden", "pods is forbidden")
                                    : null;
                        });
        open.add(c);
        return c;
    }

    static void pod(
            MockCluster c, String ns, String name, Map<String, String> labels, String... command) {
        c.ensureNamespace(ns);
        Pod p =
                new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(ns)
                        .withLabels(labels)
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(name.substring(name.lastIndexOf('-') + 1))
                        .addNewContainer()
                        .withName(labels.getOrDefault("component", "app"))
                        .withImage("registry.k8s.io/etcd:3.5.15-0")
                        .withCommand(command)
                        .endContainer()
                        .endSpec()
                        .build();
        c.client.pods().inNamespace(ns).resource(p).create();
    }

    /**
     * Two etcd members (cp1 bootstrapped, cp2 joined), a kube-apiserver, a look-alike elsewhere.
     */
    private void controlPlane(MockCluster c) {
        pod(
                c,
                "kube-system",
                "etcd-cp1",
                ETCD_LABELS,
                "etcd",
                "--name=cp1",
                "--initial-cluster=cp1=https://10.0.0.11:2380");
        pod(
                c,
                "kube-system",
                "etcd-cp2",
                ETCD_LABELS,
                "etcd",
                "--name=cp2",
                "--initial-cluster=cp1=https://10.0.0.11:2380,cp2=https://10.0.0.12:2380",
                "--initial-cluster-state=existing");
        pod(
                c,
                "kube-system",
                "kube-apiserver-cp1",
                Map.of("component", "kube-apiserver", "tier", "control-plane"),
                "kube-apiserver");
        // an etcd of someone's own in another namespace: not kubeadm's, not listed
        pod(
                c,
                "default",
                "etcd-dev1",
                ETCD_LABELS,
                "etcd",
                "--name=dev1",
                "--initial-cluster=dev1=http://10.0.9.1:2380");
    }

    private Set<String> podRequests() {
        Set<String> out = new TreeSet<>();
        synchronized (requests) {
            for (String r : requests) {
                if (r.contains("/pods")) {
                    out.add(r.replaceAll("&?limit=\\d+", "").replace("?&", "?"));
                }
            }
        }
        return out;
    }

    private TestSupport.Run scan(MockCluster c, String... more) throws Exception {
        Path kc = c.kubeconfig(tmp);
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "scan",
                                "--cluster",
                                "--kubeconfig",
                                kc.toString(),
                                "--rules",
                                RULE,
                                "--format",
                                "json"));
        args.addAll(List.of(more));
        return TestSupport.run(args.toArray(String[]::new));
    }

    @Test
    void etcdsStaticPodsAreReadWithOneFilteredListInKubeSystem() throws Exception {
        MockCluster c = cluster(p -> false);
        controlPlane(c);
        TestSupport.Run r = scan(c);
        assertEquals(1, r.code(), r.err() + r.out());
        JsonNode report = TestSupport.json(r.out());
        List<String> found = new ArrayList<>();
        for (JsonNode f : report.path("findings")) {
            found.add(
                    f.path("location").path("kind").asString()
                            + " "
                            + f.path("location").path("namespace").asString()
                            + "/"
                            + f.path("location").path("name").asString()
                            + ": "
                            + f.path("message").asString());
        }
        assertEquals(1, found.size(), found.toString());
        assertTrue(
                found.get(0)
                        .startsWith(
                                "Pod kube-system/etcd-cp1: etcd has an even number of members, 2 (cp1, cp2"),
                found.toString());
        assertEquals(
                Set.of(
                        "/api/v1/namespaces/kube-system/pods?labelSelector=component%3Detcd%2Ctier%3Dcontrol-plane"),
                podRequests(),
                "one list, in kube-system, by kubeadm's labels: never every pod of the cluster");
    }

    @Test
    void withoutThePermissionTheReportSaysWhatWasNotChecked() throws Exception {
        MockCluster c = cluster(p -> p.contains("/pods"));
        controlPlane(c);
        TestSupport.Run r = scan(c);
        assertEquals(
                3, r.code(), "a kind that could not be read makes the scan incomplete: " + r.err());
        JsonNode report = TestSupport.json(r.out());
        assertEquals(0, report.path("findings").size(), report.path("findings").toString());
        String denied = null;
        String skipped = null;
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (e.path("scope").asString().equals("Pod in namespace kube-system")) {
                denied = e.path("status").asString();
            }
            if (e.path("scope").asString().equals(RULE)) {
                skipped = e.path("status").asString() + ": " + e.path("detail").asString();
            }
        }
        assertEquals("denied", denied, report.path("coverage").toString());
        assertEquals(
                "skipped: not run: it needs Pod and Pod in namespace kube-system could not be read",
                skipped,
                report.path("coverage").toString());

        // --allow-partial: the report is written, exit 0 (nothing else was found)
        assertEquals(0, scan(c, "--allow-partial").code());
    }

    @Test
    void namespacesWithoutKubeSystemListNoPod() throws Exception {
        MockCluster c = cluster(p -> false);
        controlPlane(c);
        TestSupport.Run r = scan(c, "-n", "default");
        assertEquals(0, r.code(), r.err() + r.out());
        JsonNode report = TestSupport.json(r.out());
        String note = null;
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (e.path("scope").asString().equals("Pod in namespace kube-system")) {
                note = e.path("status").asString() + ": " + e.path("detail").asString();
            }
        }
        assertTrue(
                note != null
                        && note.startsWith(
                                "skipped: not listed: the namespaces to scan (-n) leave out kube-system"),
                String.valueOf(note));
        assertEquals(Set.of(), podRequests());
    }
}
