package dev.deja.rules.cel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.collect.Collector;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.Workload;
import dev.deja.source.ScanRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link KubeIndex} finds what {@link KubeInventory#hpaOf}, {@link KubeInventory#pdbsOf} and {@link
 * KubeInventory#servicesOf} find, in their order, on every workload of the Kubernetes examples, the
 * rules' fixtures and the corpus beside this clone (several definitions of one object in a folder
 * included: {@link KubeInventory#nearest}).
 */
class KubeIndexTest {
    @Test
    void theIndexFindsWhatTheInventoryFinds() throws IOException {
        List<String> inputs = new ArrayList<>(List.of("examples/kubernetes"));
        try (Stream<Path> s = Files.list(Path.of("src/test/resources/fixtures"))) {
            s.filter(p -> p.getFileName().toString().startsWith("k8s-"))
                    .sorted()
                    .forEach(p -> inputs.add(p.toString()));
        }
        for (String corpus : List.of("kubernetes", "kubernetes-real")) {
            if (Files.isDirectory(Path.of("../shared/corpus", corpus))) {
                inputs.add("../shared/corpus/" + corpus);
            }
        }
        int related = 0;
        for (String input : inputs) {
            ScanRequest.Builder b = ScanRequest.builder();
            b.paths = List.of(input);
            b.processEnv = Map.of();
            b.kubeKinds =
                    Set.of(
                            "Deployment",
                            "StatefulSet",
                            "DaemonSet",
                            "HorizontalPodAutoscaler",
                            "PodDisruptionBudget",
                            "Service");
            KubeInventory inv;
            try {
                inv = Collector.collect(b.build()).part(KubeInventory.class).orElse(null);
            } catch (RuntimeException e) {
                continue; // an input deja refuses (a fixture of a parse error): nothing to index
            }
            if (inv == null) {
                continue;
            }
            KubeIndex index = new KubeIndex(inv);
            for (Workload w : inv.workloads()) {
                String where = input + ": " + w.meta().display();
                assertEquals(inv.hpaOf(w), index.hpaOf(w), where);
                assertEquals(inv.pdbsOf(w), index.pdbsOf(w), where);
                assertEquals(inv.servicesOf(w), index.servicesOf(w), where);
                related +=
                        inv.pdbsOf(w).size()
                                + inv.servicesOf(w).size()
                                + (inv.hpaOf(w).isPresent() ? 1 : 0);
            }
        }
        assertTrue(related > 20, "the inputs relate few objects: " + related);
    }
}
