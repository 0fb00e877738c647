package dev.deja.model.kube;

/** A PodDisruptionBudget: selector and budget (minAvailable / maxUnavailable as written). */
public record Pdb(Meta meta, Selector selector, String minAvailable, String maxUnavailable) {

    /** Without a selector a PodDisruptionBudget selects no pods (policy/v1: a null selector). */
    public Pdb {
        selector = selector == null ? Selector.EMPTY : selector;
    }

    public boolean selects(Workload w) {
        return meta.sameNamespace(w.meta()) && selector.matches(w.podLabels());
    }
}
