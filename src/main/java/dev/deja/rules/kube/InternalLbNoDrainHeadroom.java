package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.Hpa;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.Service;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * IL-0463: the pods behind an internal load balancer cannot all survive a node drain. A node
 * maintenance event (GKE's automatic upgrades and maintenance, an EKS node group update) drains
 * nodes: {@code kubectl drain} evicts pods through the eviction API, which only a
 * PodDisruptionBudget can hold back. One finding per workload, the worse cause only: a workload
 * that runs a single pod (replicas, or its HorizontalPodAutoscaler's minReplicas), else one that no
 * PodDisruptionBudget selects. Workloads deja counts as load balancers (an ingress controller
 * behind the Service) are judged by k8s-lb-no-disruption-headroom instead.
 */
public final class InternalLbNoDrainHeadroom extends KubeRule {
    @Override
    public String id() {
        return "k8s-internal-lb-no-drain-headroom";
    }

    @Override
    public Set<String> kubeKinds() {
        return union(DETECTOR_KINDS, "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget");
    }

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        Set<Workload> proxies = InternalLb.proxies(loadBalancers(snapshot));
        for (Service s : inv.services()) {
            String by = InternalLb.internalBy(s);
            if (by == null) {
                continue;
            }
            String front = "behind internal load balancer " + s.meta().display() + " (" + by + ")";
            for (Workload w : InternalLb.backends(inv, s, proxies)) {
                Integer n = pods(inv, w);
                Hpa hpa = inv.hpaOf(w).orElse(null);
                if (n == null || n == 0 && hpa == null) {
                    continue; // scaled to zero: nothing to lose
                }
                if (n < 2) {
                    out.add(singlePod(s, front, w, n, hpa, ctx));
                    continue;
                }
                if (inv.pdbsOf(w).isEmpty()) {
                    out.add(noPdb(s, front, w, n, ctx));
                }
            }
        }
        return out;
    }

    /**
     * The finding on backend {@code w} of Service {@code s} that runs (or may scale down to) a
     * single pod.
     */
    private static Finding singlePod(
            Service s, String front, Workload w, int n, Hpa hpa, RuleContext ctx) {
        String runs =
                hpa != null
                        ? hpa.meta().display() + " lets it scale down to minReplicas " + n
                        : "it runs "
                                + n
                                + " replica"
                                + (w.replicas() == null ? " (replicas unset)" : "");
        String msg =
                w.meta().display()
                        + " "
                        + front
                        + ": "
                        + runs
                        + "; draining the node it runs on (node maintenance, an"
                        + " upgrade) leaves the load balancer with no ready"
                        + " backend until a new pod is scheduled and ready";
        return ctx.finding(w.meta().at(w.replicasLine()), msg)
                .key("single pod " + s.meta().name())
                .remediation(
                        (hpa != null
                                        ? "Set `minReplicas: 2` or more on " + hpa.meta().display()
                                        : "Run `replicas: 2` or more")
                                + " spread across nodes, and add a"
                                + " PodDisruptionBudget selecting "
                                + w.podLabels()
                                + " with `maxUnavailable: 1`.")
                .fix("hpa", hpa == null ? null : hpa.meta().ref())
                .fix("minReplicas", hpa == null ? null : 2L)
                .fix("replicas", hpa == null ? 2L : null)
                .fix("pdbMetadata", pdbMetadata(w))
                .fix("podLabels", w.podLabels())
                .build();
    }

    /**
     * The finding on backend {@code w} of Service {@code s} that no PodDisruptionBudget selects.
     */
    private static Finding noPdb(Service s, String front, Workload w, int n, RuleContext ctx) {
        String msg =
                w.meta().display()
                        + " "
                        + front
                        + ": no PodDisruptionBudget selects its pods "
                        + w.podLabels()
                        + ", so nothing holds a node drain back: maintenance"
                        + " may evict "
                        + replicasText(n)
                        + " before replacements are ready (when they share a"
                        + " node, or nodes are drained together), leaving the"
                        + " load balancer with no ready backend";
        return ctx.finding(w.meta().location(), msg)
                .key("no pdb " + s.meta().name())
                .remediation(
                        "Add a PodDisruptionBudget selecting "
                                + w.podLabels()
                                + " with `maxUnavailable: 1`.")
                .fix("pdbMetadata", pdbMetadata(w))
                .fix("podLabels", w.podLabels())
                .build();
    }
}
