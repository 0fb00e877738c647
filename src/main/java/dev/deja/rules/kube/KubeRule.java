package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SourceKind;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.KubeScope;
import dev.deja.model.kube.LoadBalancers;
import dev.deja.model.kube.Workload;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Base of the Kubernetes rules: reads the inventory (nothing to do when the scan has none). */
abstract class KubeRule implements Rule {

    /** The Kubernetes inventory, unless a rule reads other parts. */
    @Override
    public List<Class<?>> parts() {
        return List.of(KubeInventory.class);
    }

    /** What the load-balancer detector reads. */
    static final Set<String> DETECTOR_KINDS =
            Set.of("Deployment", "StatefulSet", "DaemonSet", "IngressClass");

    /**
     * What a load-balancer rule reads that also counts a workload's pods ({@link #pods}): the
     * detector's kinds and HorizontalPodAutoscalers.
     */
    static final Set<String> DETECTOR_AND_HPA_KINDS =
            union(DETECTOR_KINDS, "HorizontalPodAutoscaler");

    @Override
    public final SourceKind source() {
        return SourceKind.KUBERNETES;
    }

    /**
     * The kinds the rule reads; most rules judge load balancers only, so the detector's kinds by
     * default.
     */
    @Override
    public Set<String> kubeKinds() {
        return DETECTOR_KINDS;
    }

    @Override
    public final List<Finding> check(Snapshot snapshot, RuleContext ctx) {
        return snapshot.part(KubeInventory.class)
                .map(
                        inv -> {
                            List<Finding> found = check(inv, snapshot, ctx);
                            // -l/--selector: findings only on the objects the scan is narrowed to
                            return snapshot.part(KubeScope.class)
                                    .map(scope -> scope.keep(inv, found))
                                    .orElse(found);
                        })
                .orElse(List.of());
    }

    /**
     * The load-balancer workloads of the snapshot (a view derived once per snapshot, shared by the
     * rules).
     */
    static List<LoadBalancers.Lb> loadBalancers(Snapshot snapshot) {
        return LoadBalancers.of(snapshot);
    }

    abstract List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx);

    /**
     * How many pods the rules count for a workload, the same in every rule of a scan: the
     * HorizontalPodAutoscaler's minReplicas when one targets it, else its replicas (default 1);
     * null for a DaemonSet. A rule that uses it reads HorizontalPodAutoscalers (its kubeKinds).
     */
    static Integer pods(KubeInventory inv, Workload w) {
        return LbNoDisruptionHeadroom.floor(inv, w);
    }

    static Set<String> union(Set<String> a, String... more) {
        TreeSet<String> s = new TreeSet<>(a);
        s.addAll(List.of(more));
        return Set.copyOf(s);
    }

    /**
     * "all 3 replicas restart", "its single replica restarts", "every pod of the DaemonSet
     * restarts".
     */
    static String replicasDo(Integer n, String verb) {
        return replicasText(n) + " " + (n == null || n == 1 ? verb + "s" : verb);
    }

    /**
     * "all 3 replicas fail together", "every pod of the DaemonSet fails together", but "its single
     * replica fails" (one pod does nothing together).
     */
    static String replicasDoTogether(Integer n, String verb) {
        return replicasDo(n, verb) + (n != null && n == 1 ? "" : " together");
    }

    /**
     * Inputs of a rule's fix, as pairs of name and value; a null value is left out (the step that
     * needs it is then not applied), so a manifest missing a field never fails the rule.
     */
    static Map<String, Object> inputs(Object... pairs) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i + 1] != null) {
                m.put((String) pairs[i], pairs[i + 1]);
            }
        }
        return m;
    }

    /**
     * The metadata of the PodDisruptionBudget a fix adds for {@code w}: {@code <name>-pdb} in its
     * namespace (none when the manifest gives none).
     */
    static Map<String, Object> pdbMetadata(Workload w) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("name", w.meta().name() + "-pdb");
        if (w.meta().namespace() != null) {
            m.put("namespace", w.meta().namespace());
        }
        return m;
    }

    static String replicasText(Integer n) {
        return n == null
                ? "every pod of the DaemonSet"
                : n == 1 ? "its single replica" : "all " + n + " replicas";
    }
}
