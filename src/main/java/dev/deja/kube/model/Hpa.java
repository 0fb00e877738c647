package dev.deja.kube.model;

/** A HorizontalPodAutoscaler: its target and replica bounds (minReplicas defaults to 1). */
public record Hpa(
        Meta meta, String targetKind, String targetName, Integer minReplicas, Integer maxReplicas) {

    public int effectiveMin() {
        return minReplicas == null ? 1 : minReplicas;
    }

    public boolean targets(Workload w) {
        return w.kind().equals(targetKind)
                && w.name().equals(targetName)
                && meta.sameNamespace(w.meta());
    }
}
