package dev.deja.kube.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Kubernetes part of a snapshot: views of the objects the rules read, from manifests or a live cluster. Plain
 * immutable records (no Fabric8 types), so rules and saved snapshots never load the client. Pods are not kept: the
 * rules judge workloads by their pod template, which is what every replica shares.
 *
 * @param others every other object read (kind, namespace, name, where), kept so coverage and suppressions can name
 *               them; CRDs and unknown kinds land here
 */
public record KubeInventory(List<Workload> workloads, List<Service> services, List<Hpa> hpas, List<Pdb> pdbs,
                            List<Ingress> ingresses, List<IngressClass> ingressClasses, List<ConfigMap> configMaps,
                            List<Meta> others) {

    public static final KubeInventory EMPTY = new KubeInventory(List.of(), List.of(), List.of(), List.of(), List.of(),
            List.of(), List.of(), List.of());

    public KubeInventory {
        workloads = copy(workloads);
        services = copy(services);
        hpas = copy(hpas);
        pdbs = copy(pdbs);
        ingresses = copy(ingresses);
        ingressClasses = copy(ingressClasses);
        configMaps = copy(configMaps);
        others = copy(others);
    }

    private static <T> List<T> copy(List<T> l) {
        return l == null ? List.of() : List.copyOf(l);
    }

    /** The ConfigMap of that namespace and name (namespace null: a manifest without one). */
    public Optional<ConfigMap> configMap(String namespace, String name) {
        return configMaps.stream()
                .filter(c -> c.name().equals(name) && java.util.Objects.equals(c.namespace(), namespace))
                .findFirst();
    }

    /** Number of objects held. */
    public int size() {
        return workloads.size() + services.size() + hpas.size() + pdbs.size() + ingresses.size()
                + ingressClasses.size() + configMaps.size() + others.size();
    }

    /** Accumulates views from several files or pages; thread-safe. */
    public static final class Builder implements dev.deja.engine.PartBuilder<KubeInventory> {
        private final List<Workload> workloads = new ArrayList<>();
        private final List<Service> services = new ArrayList<>();
        private final List<Hpa> hpas = new ArrayList<>();
        private final List<Pdb> pdbs = new ArrayList<>();
        private final List<Ingress> ingresses = new ArrayList<>();
        private final List<IngressClass> ingressClasses = new ArrayList<>();
        private final List<ConfigMap> configMaps = new ArrayList<>();
        private final List<Meta> others = new ArrayList<>();

        public synchronized Builder add(Object view) {
            if (view instanceof Workload w) {
                workloads.add(w);
            } else if (view instanceof Service s) {
                services.add(s);
            } else if (view instanceof Hpa h) {
                hpas.add(h);
            } else if (view instanceof Pdb p) {
                pdbs.add(p);
            } else if (view instanceof Ingress i) {
                ingresses.add(i);
            } else if (view instanceof IngressClass c) {
                ingressClasses.add(c);
            } else if (view instanceof ConfigMap c) {
                configMaps.add(c);
            } else if (view instanceof Meta m) {
                others.add(m);
            } else {
                throw new IllegalArgumentException("not a Kubernetes view: " + view);
            }
            return this;
        }

        public synchronized Builder addAll(KubeInventory inv) {
            workloads.addAll(inv.workloads());
            services.addAll(inv.services());
            hpas.addAll(inv.hpas());
            pdbs.addAll(inv.pdbs());
            ingresses.addAll(inv.ingresses());
            ingressClasses.addAll(inv.ingressClasses());
            configMaps.addAll(inv.configMaps());
            others.addAll(inv.others());
            return this;
        }

        @Override
        public Class<KubeInventory> partType() {
            return KubeInventory.class;
        }

        @Override
        public synchronized KubeInventory build() {
            return new KubeInventory(workloads, services, hpas, pdbs, ingresses, ingressClasses, configMaps, others);
        }
    }
}
