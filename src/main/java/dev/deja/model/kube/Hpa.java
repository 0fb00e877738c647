package dev.deja.model.kube;

/** A HorizontalPodAutoscaler: its target and replica bounds (minReplicas defaults to 1). */
public record Hpa(
        Meta meta, String targetKind, String targetName, Integer minReplicas, Integer maxReplicas) {

    public int effectiveMin() {
        return minReplicas == null ? 1 : minReplicas;
    }

    /**
     * Whether it scales the workload: same kind, name and namespace (a manifest's workload without
     * metadata.name is never a target).
     */
    public boolean targets(Workload w) {
        return targetKind != null
                && targetKind.equals(w.kind())
                && targetName != null
                && targetName.equals(w.name())
                && meta.sameNamespace(w.meta());
    }
}
