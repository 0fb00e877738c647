package dev.deja.model.kube;

import java.util.List;
import java.util.Map;

/**
 * A Deployment, StatefulSet or DaemonSet, reduced to what the rules read: metadata, replicas, the
 * update strategy, the selector and the pod template (labels, annotations, containers, spread
 * constraints, anti-affinity).
 *
 * @param meta name, namespace, labels and annotations, and the object's line in a manifest
 * @param replicas as declared (null: Kubernetes default 1; always null for a DaemonSet)
 * @param strategy RollingUpdate | Recreate | OnDelete (null when unset)
 * @param maxUnavailable as written ("25%", "1"), null when unset
 * @param spreadConstraints topology spread constraints of the pod template
 * @param antiAffinity pod anti-affinity terms (required and preferred)
 * @param replicasLine line of {@code replicas:} in a manifest, or null
 * @param strategyLine line of {@code strategy:}/{@code updateStrategy:} in a manifest, or null
 * @param serviceAccountName the pod template's ServiceAccount (null when unset: Kubernetes uses
 *     "default")
 */
public record Workload(
        Meta meta,
        Integer replicas,
        String strategy,
        String maxUnavailable,
        Selector selector,
        Map<String, String> podLabels,
        Map<String, String> podAnnotations,
        List<Container> containers,
        List<Spread> spreadConstraints,
        List<Spread> antiAffinity,
        Integer replicasLine,
        Integer strategyLine,
        String serviceAccountName,
        List<Volume> volumes) {

    /**
     * One volume of the pod template: a ConfigMap's ({@code configMap} set, with its {@code items}
     * as path -> key, empty when every key is a file), or of another kind ({@code kind}: secret,
     * emptyDir, projected, ...), whose files deja does not read.
     */
    public record Volume(
            String name,
            String kind,
            String configMap,
            Map<String, String> items,
            boolean optional) {
        public Volume {
            items = items == null ? Map.of() : Sorted.copyOf(items);
        }
    }

    public Workload(
            Meta meta,
            Integer replicas,
            String strategy,
            String maxUnavailable,
            Selector selector,
            Map<String, String> podLabels,
            Map<String, String> podAnnotations,
            List<Container> containers,
            List<Spread> spreadConstraints,
            List<Spread> antiAffinity,
            Integer replicasLine,
            Integer strategyLine,
            String serviceAccountName) {
        this(
                meta,
                replicas,
                strategy,
                maxUnavailable,
                selector,
                podLabels,
                podAnnotations,
                containers,
                spreadConstraints,
                antiAffinity,
                replicasLine,
                strategyLine,
                serviceAccountName,
                null);
    }

    public Workload(
            Meta meta,
            Integer replicas,
            String strategy,
            String maxUnavailable,
            Selector selector,
            Map<String, String> podLabels,
            Map<String, String> podAnnotations,
            List<Container> containers,
            List<Spread> spreadConstraints,
            List<Spread> antiAffinity,
            Integer replicasLine,
            Integer strategyLine) {
        this(
                meta,
                replicas,
                strategy,
                maxUnavailable,
                selector,
                podLabels,
                podAnnotations,
                containers,
                spreadConstraints,
                antiAffinity,
                replicasLine,
                strategyLine,
                null,
                null);
    }

    /** The ServiceAccount the pods run as: the template's, or "default". */
    public String effectiveServiceAccount() {
        return serviceAccountName == null || serviceAccountName.isBlank()
                ? "default"
                : serviceAccountName;
    }

    public Workload {
        podLabels = podLabels == null ? Map.of() : Sorted.copyOf(podLabels);
        podAnnotations = podAnnotations == null ? Map.of() : Sorted.copyOf(podAnnotations);
        containers = containers == null ? List.of() : List.copyOf(containers);
        spreadConstraints = spreadConstraints == null ? List.of() : List.copyOf(spreadConstraints);
        antiAffinity = antiAffinity == null ? List.of() : List.copyOf(antiAffinity);
        selector = selector == null ? Selector.EMPTY : selector;
        volumes = volumes == null ? List.of() : List.copyOf(volumes);
    }

    /** The volume of that name, or null. */
    public Volume volume(String name) {
        for (Volume v : volumes) {
            if (v.name() != null && v.name().equals(name)) {
                return v;
            }
        }
        return null;
    }

    /**
     * One way pods are kept apart: a topology key, whether it is a hard rule, and the pods it
     * counts.
     *
     * @param required whenUnsatisfiable DoNotSchedule / requiredDuringScheduling (true) or soft
     *     (false)
     */
    /**
     * A topology spread constraint or pod anti-affinity term. Without a labelSelector it selects no
     * pods (Kubernetes: a nil selector matches nothing), so a missing one is {@link
     * Selector#EMPTY}.
     */
    public record Spread(String topologyKey, boolean required, Selector selector) {
        public Spread {
            selector = selector == null ? Selector.EMPTY : selector;
        }
    }

    public String kind() {
        return meta.kind();
    }

    public String namespace() {
        return meta.namespace();
    }

    public String name() {
        return meta.name();
    }

    /** Declared replicas, or Kubernetes' default of 1; null for a DaemonSet (one per node). */
    public Integer effectiveReplicas() {
        if ("DaemonSet".equals(kind())) {
            return null;
        }
        return replicas == null ? 1 : replicas;
    }
}
