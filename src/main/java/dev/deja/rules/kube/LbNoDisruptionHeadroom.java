package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.kube.model.Hpa;
import dev.deja.kube.model.KubeInventory;
import dev.deja.kube.model.Pdb;
import dev.deja.kube.model.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * IL-0495: a load balancer without headroom for losing pods: fewer than 2 replicas (or an HPA that may scale down
 * below 2), no PodDisruptionBudget selecting its pods, or a rolling update whose {@code maxUnavailable}, resolved to
 * pods as Kubernetes does (a percentage of the replicas rounded down; 25% when unset), is 25% or more of the
 * replicas. When some instances go, the rest take their connections (11x the normal peak at HubSpot).
 */
public final class LbNoDisruptionHeadroom extends KubeRule {
    static final int MIN_REPLICAS = 2;
    static final int MAX_UNAVAILABLE_PERCENT = 25;

    @Override
    public String id() {
        return "k8s-lb-no-disruption-headroom";
    }

    @Override
    public Set<String> kubeKinds() {
        return union(DETECTOR_KINDS, "HorizontalPodAutoscaler", "PodDisruptionBudget");
    }

    @Override
    List<Finding> check(KubeInventory inv, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        List<LoadBalancers.Lb> lbs = LoadBalancers.of(inv);
        if (lbs.isEmpty()) {
            return out;
        }
        for (LoadBalancers.Lb lb : lbs) {
            Workload w = lb.workload();
            Hpa hpa = inv.hpaOf(w).orElse(null);
            Integer replicas = w.effectiveReplicas();
            Integer floor = hpa != null ? Integer.valueOf(hpa.effectiveMin()) : replicas;
            String name = w.meta().display();
            if (floor != null && floor < MIN_REPLICAS) {
                String msg = hpa != null
                        ? name + ": " + hpa.meta().display() + " lets it scale down to minReplicas " + floor
                                + (hpa.minReplicas() == null ? " (the default)" : "") + "; below " + MIN_REPLICAS
                                + " replicas one failing pod takes all of the traffic down " + lb.because()
                        : name + ": runs " + floor + " replica" + (w.replicas() == null ? " (replicas unset: the default of 1)" : "")
                                + " and no HorizontalPodAutoscaler targets it; one failing or evicted pod takes all of"
                                + " the traffic down " + lb.because();
                out.add(ctx.finding(w.meta().at(w.replicasLine()), msg).remediation(hpa != null
                        ? "Set minReplicas of " + hpa.meta().display() + " to " + MIN_REPLICAS + " or more (3 or more across zones)."
                        : "Run at least " + MIN_REPLICAS + " replicas (3 or more across zones), or add a HorizontalPodAutoscaler"
                                + " with minReplicas " + MIN_REPLICAS + " or more.").build());
            }
            List<Pdb> pdbs = inv.pdbsOf(w);
            if (pdbs.isEmpty()) {
                out.add(ctx.finding(w.meta().location(), name + ": no PodDisruptionBudget selects its pods "
                        + w.podLabels() + ", so a node drain or cluster upgrade may evict "
                        + replicasText(replicas) + " at the same time " + lb.because())
                        .remediation("Add a PodDisruptionBudget selecting " + w.podLabels()
                                + " with maxUnavailable: 1 (or a minAvailable that leaves the rest enough capacity).")
                        .build());
            }
            String unavailable = maxUnavailable(w, floor);
            if (unavailable != null) {
                out.add(ctx.finding(w.meta().at(w.strategyLine()), name + ": " + unavailable + " " + lb.because())
                        .remediation("Use a RollingUpdate with maxUnavailable: 1 (or 0 with maxSurge: 1) so that a"
                                + " rollout takes at most one load-balancer pod out of rotation at a time.").build());
            }
        }
        return out;
    }

    /** Why the update strategy takes too many pods down at once, or null. */
    static String maxUnavailable(Workload w, Integer replicas) {
        String kind = w.kind();
        if ("Deployment".equals(kind) && "Recreate".equals(w.strategy())) {
            return "strategy Recreate stops every pod before starting new ones: each rollout is an outage";
        }
        if ("OnDelete".equals(w.strategy())) {
            return null;
        }
        String mu = w.maxUnavailable();
        if (mu == null && !"Deployment".equals(kind)) {
            return null; // StatefulSets and DaemonSets replace one pod at a time by default
        }
        String written = mu == null ? "25% (unset: the Kubernetes default)" : mu;
        String value = mu == null ? "25%" : mu.strip();
        if (replicas == null) { // a DaemonSet: the pod count is the node count, unknown here
            if (value.endsWith("%")) {
                int pct = parse(value.substring(0, value.length() - 1));
                if (pct >= MAX_UNAVAILABLE_PERCENT) {
                    return "rolling update maxUnavailable " + written + " takes " + pct
                            + "% of the nodes' pods down at once";
                }
            }
            return null;
        }
        if (replicas <= 0) {
            return null;
        }
        int pods;
        String how;
        if (value.endsWith("%")) {
            int pct = parse(value.substring(0, value.length() - 1));
            pods = pct * replicas / 100; // Kubernetes rounds maxUnavailable down
            how = pct + "% of " + replicas + " rounded down = " + pods;
        } else {
            pods = parse(value);
            how = Integer.toString(pods);
        }
        if (pods <= 0 || pods * 100 < MAX_UNAVAILABLE_PERCENT * replicas) {
            return null;
        }
        return "rolling update maxUnavailable " + written + " resolves to " + how + " pod" + (pods == 1 ? "" : "s")
                + " of " + replicas + " (" + (pods * 100 / replicas) + "%, at least " + MAX_UNAVAILABLE_PERCENT
                + "%) out of rotation during every rollout";
    }

    private static int parse(String s) {
        try {
            return Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
