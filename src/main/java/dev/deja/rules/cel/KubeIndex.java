package dev.deja.rules.cel;

import dev.deja.model.kube.Hpa;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.Pdb;
import dev.deja.model.kube.Selector;
import dev.deja.model.kube.Service;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The related objects of a workload as {@link KubeInventory#hpaOf}, {@link KubeInventory#pdbsOf}
 * and {@link KubeInventory#servicesOf} find them, without reading every HPA, PDB or Service of the
 * inventory for each workload: each list is cut once by what the model's test compares first (an
 * HPA's target kind and name, a PDB's or a Service's namespace), then the model's own test and
 * {@link KubeInventory#nearest} run on the few of that group, in inventory order: the same objects,
 * in the same order (3,000 Deployments and 300 HPAs: 3,000 short lists read instead of 900,000
 * comparisons).
 */
final class KubeIndex {
    private final KubeInventory inv;
    private final Map<List<String>, List<Hpa>> hpasByTarget = new HashMap<>();
    private final Map<String, List<Pdb>> pdbsByNamespace = new HashMap<>();
    private final Map<String, List<Service>> servicesByNamespace = new HashMap<>();

    KubeIndex(KubeInventory inv) {
        this.inv = inv;
        for (Hpa h : inv.hpas()) {
            hpasByTarget
                    .computeIfAbsent(key(h.targetKind(), h.targetName()), k -> new ArrayList<>())
                    .add(h);
        }
        for (Pdb p : inv.pdbs()) {
            pdbsByNamespace.computeIfAbsent(p.meta().namespace(), k -> new ArrayList<>()).add(p);
        }
        for (Service s : inv.services()) {
            servicesByNamespace
                    .computeIfAbsent(s.meta().namespace(), k -> new ArrayList<>())
                    .add(s);
        }
    }

    private static List<String> key(String kind, String name) {
        List<String> k = new ArrayList<>(2); // List.of refuses null
        k.add(kind);
        k.add(name);
        return k;
    }

    /** {@link KubeInventory#hpaOf}. */
    Optional<Hpa> hpaOf(Workload w) {
        List<Hpa> targeting = new ArrayList<>();
        for (Hpa h : hpasByTarget.getOrDefault(key(w.kind(), w.name()), List.of())) {
            if (h.targets(w)) {
                targeting.add(h);
            }
        }
        return inv.nearest(w.meta(), targeting, Hpa::meta).stream().findFirst();
    }

    /** {@link KubeInventory#pdbsOf}. */
    List<Pdb> pdbsOf(Workload w) {
        List<Pdb> selecting = new ArrayList<>();
        for (Pdb p : pdbsByNamespace.getOrDefault(w.meta().namespace(), List.of())) {
            if (p.selects(w)) {
                selecting.add(p);
            }
        }
        return inv.nearest(w.meta(), selecting, Pdb::meta);
    }

    /** {@link KubeInventory#servicesOf}. */
    List<Service> servicesOf(Workload w) {
        List<Service> selecting = new ArrayList<>();
        for (Service s : servicesByNamespace.getOrDefault(w.meta().namespace(), List.of())) {
            if (s.meta().sameNamespace(w.meta())
                    && Selector.of(s.selector()).matches(w.podLabels())) {
                selecting.add(s);
            }
        }
        return inv.nearest(w.meta(), selecting, Service::meta);
    }
}
