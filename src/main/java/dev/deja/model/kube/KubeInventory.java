package dev.deja.model.kube;

import dev.deja.engine.PartBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The Kubernetes part of a snapshot: views of the objects the rules read, from manifests or a live
 * cluster. Plain immutable records (no Fabric8 types), so rules and saved snapshots never load the
 * client. Pods of workloads are not kept: the rules judge workloads by their pod template, which is
 * what every replica shares; bare Pods (static pod manifests of the control plane) are, in {@code
 * pods}.
 *
 * @param customResourceDefinitions the CustomResourceDefinitions read, with their schema verdicts
 * @param others every other object read (kind, namespace, name, where), kept so coverage and
 *     suppressions can name them; custom resources (IngressRoutes, ...) and unknown kinds land here
 */
public record KubeInventory(
        List<Workload> workloads,
        List<Service> services,
        List<Hpa> hpas,
        List<Pdb> pdbs,
        List<Ingress> ingresses,
        List<IngressClass> ingressClasses,
        List<ConfigMap> configMaps,
        List<Meta> others,
        List<NetworkPolicy> networkPolicies,
        List<WebhookConfiguration> webhookConfigurations,
        List<ClusterRole> clusterRoles,
        List<ClusterRoleBinding> clusterRoleBindings,
        List<CustomResourceDefinition> customResourceDefinitions,
        List<Pod> pods) {

    public static final KubeInventory EMPTY =
            new KubeInventory(
                    List.of(), List.of(), List.of(), List.of(), List.of(), List.of(), List.of(),
                    List.of());

    public KubeInventory(
            List<Workload> workloads,
            List<Service> services,
            List<Hpa> hpas,
            List<Pdb> pdbs,
            List<Ingress> ingresses,
            List<IngressClass> ingressClasses,
            List<ConfigMap> configMaps,
            List<Meta> others) {
        this(
                workloads,
                services,
                hpas,
                pdbs,
                ingresses,
                ingressClasses,
                configMaps,
                others,
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                List.of());
    }

    /** An inventory without CustomResourceDefinitions and bare Pods. */
    public KubeInventory(
            List<Workload> workloads,
            List<Service> services,
            List<Hpa> hpas,
            List<Pdb> pdbs,
            List<Ingress> ingresses,
            List<IngressClass> ingressClasses,
            List<ConfigMap> configMaps,
            List<Meta> others,
            List<NetworkPolicy> networkPolicies,
            List<WebhookConfiguration> webhookConfigurations,
            List<ClusterRole> clusterRoles,
            List<ClusterRoleBinding> clusterRoleBindings) {
        this(
                workloads,
                services,
                hpas,
                pdbs,
                ingresses,
                ingressClasses,
                configMaps,
                others,
                networkPolicies,
                webhookConfigurations,
                clusterRoles,
                clusterRoleBindings,
                List.of(),
                List.of());
    }

    public KubeInventory {
        workloads = copy(workloads);
        services = copy(services);
        hpas = copy(hpas);
        pdbs = copy(pdbs);
        ingresses = copy(ingresses);
        ingressClasses = copy(ingressClasses);
        configMaps = copy(configMaps);
        others = copy(others);
        networkPolicies = copy(networkPolicies);
        webhookConfigurations = copy(webhookConfigurations);
        clusterRoles = copy(clusterRoles);
        clusterRoleBindings = copy(clusterRoleBindings);
        customResourceDefinitions = copy(customResourceDefinitions);
        pods = copy(pods);
    }

    private static <T> List<T> copy(List<T> l) {
        return l == null ? List.of() : List.copyOf(l);
    }

    /** The ConfigMap of that namespace and name (namespace null: a manifest without one). */
    public Optional<ConfigMap> configMap(String namespace, String name) {
        return configMaps.stream()
                .filter(
                        c ->
                                Objects.equals(c.name(), name)
                                        && Objects.equals(c.namespace(), namespace))
                .findFirst();
    }

    /**
     * The ConfigMaps of that namespace and name that relate to the object {@code user} (a
     * controller naming it in its arguments): the nearest definitions as {@link #nearest} picks
     * them.
     */
    public List<ConfigMap> configMapsFor(Meta user, String namespace, String name) {
        return nearest(
                user,
                configMaps.stream()
                        .filter(
                                c ->
                                        Objects.equals(c.name(), name)
                                                && Objects.equals(c.namespace(), namespace))
                        .toList(),
                ConfigMap::meta);
    }

    /**
     * The PodDisruptionBudgets that select the workload's pods and belong to this definition of it.
     */
    public List<Pdb> pdbsOf(Workload w) {
        return nearest(w.meta(), pdbs.stream().filter(p -> p.selects(w)).toList(), Pdb::meta);
    }

    /**
     * The HorizontalPodAutoscaler that targets this definition of the workload (the first when
     * several do).
     */
    public Optional<Hpa> hpaOf(Workload w) {
        return nearest(w.meta(), hpas.stream().filter(h -> h.targets(w)).toList(), Hpa::meta)
                .stream()
                .findFirst();
    }

    /**
     * The Services whose selector selects this definition's pods (same namespace, non-empty
     * selector).
     */
    public List<Service> servicesOf(Workload w) {
        return nearest(
                w.meta(),
                services.stream()
                        .filter(
                                s ->
                                        s.meta().sameNamespace(w.meta())
                                                && Selector.of(s.selector()).matches(w.podLabels()))
                        .toList(),
                Service::meta);
    }

    /**
     * Of the objects that relate to {@code of} by their content (a selector, a target, a name: the
     * caller filters), those that belong to this definition of it. One object can be defined
     * several times in a scan (a folder holds providers' variants, a risky and a fixed version,
     * overlays); each definition is judged on its own, so related objects are matched preferring
     * the same file, then the same folder, then anywhere in the scan ({@link #distance}): only the
     * nearest ones are kept. A related object that is nearer to another definition of {@code of}
     * (same kind, namespace and name) than to this one belongs to that one, not this. Objects read
     * from a cluster or a snapshot have no file: they are all in one scope.
     */
    public <T> List<T> nearest(Meta of, List<T> related, Function<T, Meta> metaOf) {
        if (related.isEmpty()) {
            return List.of();
        }
        List<Meta> others = null;
        int best = Integer.MAX_VALUE;
        List<T> out = new ArrayList<>();
        for (T r : related) {
            Meta m = metaOf.apply(r);
            int d = distance(of, m);
            if (d > 0) {
                if (others == null) {
                    others = definitions(of).stream().filter(o -> !o.equals(of)).toList();
                }
                boolean nearerToAnother = false;
                for (Meta o : others) {
                    if (distance(o, m) < d) {
                        nearerToAnother = true;
                        break;
                    }
                }
                if (nearerToAnother) {
                    continue;
                }
            }
            if (d < best) {
                best = d;
                out.clear();
            }
            if (d == best) {
                out.add(r);
            }
        }
        return List.copyOf(out);
    }

    /**
     * 0: the same file (or neither has one: read from a cluster or a snapshot), 1: the same folder,
     * 2: anywhere else in the scan.
     */
    public static int distance(Meta a, Meta b) {
        if (Objects.equals(a.file(), b.file())) {
            return 0;
        }
        if (a.file() != null && b.file() != null && folder(a.file()).equals(folder(b.file()))) {
            return 1;
        }
        return 2;
    }

    private static String folder(String file) {
        int i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
        return i < 0 ? "" : file.substring(0, i);
    }

    /**
     * Every definition of the object's identity (kind, namespace, name) in the inventory, itself
     * included.
     */
    public List<Meta> definitions(Meta of) {
        List<Meta> out = new ArrayList<>();
        for (Meta m : metas()) {
            if (Objects.equals(m.kind(), of.kind())
                    && Objects.equals(m.name(), of.name())
                    && m.sameNamespace(of)) {
                out.add(m);
            }
        }
        return out;
    }

    /** The metadata of every object held, in inventory order (workloads first). */
    public List<Meta> metas() {
        List<Meta> out = new ArrayList<>(size());
        workloads.forEach(x -> out.add(x.meta()));
        services.forEach(x -> out.add(x.meta()));
        hpas.forEach(x -> out.add(x.meta()));
        pdbs.forEach(x -> out.add(x.meta()));
        ingresses.forEach(x -> out.add(x.meta()));
        ingressClasses.forEach(x -> out.add(x.meta()));
        configMaps.forEach(x -> out.add(x.meta()));
        out.addAll(others);
        networkPolicies.forEach(x -> out.add(x.meta()));
        webhookConfigurations.forEach(x -> out.add(x.meta()));
        clusterRoles.forEach(x -> out.add(x.meta()));
        clusterRoleBindings.forEach(x -> out.add(x.meta()));
        customResourceDefinitions.forEach(x -> out.add(x.meta()));
        pods.forEach(x -> out.add(x.meta()));
        return out;
    }

    /** Number of objects held. */
    public int size() {
        return workloads.size()
                + services.size()
                + hpas.size()
                + pdbs.size()
                + ingresses.size()
                + ingressClasses.size()
                + configMaps.size()
                + others.size()
                + networkPolicies.size()
                + webhookConfigurations.size()
                + clusterRoles.size()
                + clusterRoleBindings.size()
                + customResourceDefinitions.size()
                + pods.size();
    }

    /** Accumulates views from several files or pages; thread-safe. */
    public static final class Builder implements PartBuilder<KubeInventory> {
        private final List<Workload> workloads = new ArrayList<>();
        private final List<Service> services = new ArrayList<>();
        private final List<Hpa> hpas = new ArrayList<>();
        private final List<Pdb> pdbs = new ArrayList<>();
        private final List<Ingress> ingresses = new ArrayList<>();
        private final List<IngressClass> ingressClasses = new ArrayList<>();
        private final List<ConfigMap> configMaps = new ArrayList<>();
        private final List<Meta> others = new ArrayList<>();
        private final List<NetworkPolicy> networkPolicies = new ArrayList<>();
        private final List<WebhookConfiguration> webhookConfigurations = new ArrayList<>();
        private final List<ClusterRole> clusterRoles = new ArrayList<>();
        private final List<ClusterRoleBinding> clusterRoleBindings = new ArrayList<>();
        private final List<CustomResourceDefinition> customResourceDefinitions = new ArrayList<>();
        private final List<Pod> pods = new ArrayList<>();

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
            } else if (view instanceof NetworkPolicy n) {
                networkPolicies.add(n);
            } else if (view instanceof WebhookConfiguration w) {
                webhookConfigurations.add(w);
            } else if (view instanceof ClusterRole r) {
                clusterRoles.add(r);
            } else if (view instanceof ClusterRoleBinding b) {
                clusterRoleBindings.add(b);
            } else if (view instanceof CustomResourceDefinition d) {
                customResourceDefinitions.add(d);
            } else if (view instanceof Pod p) {
                pods.add(p);
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
            networkPolicies.addAll(inv.networkPolicies());
            webhookConfigurations.addAll(inv.webhookConfigurations());
            clusterRoles.addAll(inv.clusterRoles());
            clusterRoleBindings.addAll(inv.clusterRoleBindings());
            customResourceDefinitions.addAll(inv.customResourceDefinitions());
            pods.addAll(inv.pods());
            return this;
        }

        @Override
        public Class<KubeInventory> partType() {
            return KubeInventory.class;
        }

        @Override
        public synchronized KubeInventory build() {
            return new KubeInventory(
                    workloads,
                    services,
                    hpas,
                    pdbs,
                    ingresses,
                    ingressClasses,
                    configMaps,
                    others,
                    networkPolicies,
                    webhookConfigurations,
                    clusterRoles,
                    clusterRoleBindings,
                    customResourceDefinitions,
                    pods);
        }
    }
}
