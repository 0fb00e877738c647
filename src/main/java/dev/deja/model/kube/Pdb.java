package dev.deja.model.kube;

/** A PodDisruptionBudget: selector and budget (minAvailable / maxUnavailable as written). */
public record Pdb(Meta meta, Selector selector, String minAvailable, String maxUnavailable) {

    public boolean selects(Workload w) {
        return meta.sameNamespace(w.meta()) && selector.matches(w.podLabels());
    }
}
