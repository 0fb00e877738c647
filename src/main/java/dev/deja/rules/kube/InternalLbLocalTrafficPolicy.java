package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.Service;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * IL-0463: an internal load balancer with {@code externalTrafficPolicy: Local} whose pods may all
 * sit on one node. With Local, the cloud load balancer sends traffic only to nodes that run a ready
 * pod of the Service (its health check on {@code healthCheckNodePort} fails on the others), so the
 * nodes behind it are the nodes of its pods: with no topology spread constraint or pod
 * anti-affinity on {@code kubernetes.io/hostname}, the scheduler may put them all on one node, and
 * draining that node takes every backend of the load balancer away at once. AWS load balancers with
 * IP targets send traffic to the pods directly and are not judged; a backend that runs a single pod
 * is reported by k8s-internal-lb-no-drain-headroom (one root cause, one finding).
 */
public final class InternalLbLocalTrafficPolicy extends KubeRule {
    static final String NODE_KEY = "kubernetes.io/hostname";

    @Override
    public String id() {
        return "k8s-internal-lb-local-traffic-policy";
    }

    @Override
    public Set<String> kubeKinds() {
        return union(DETECTOR_KINDS, "Service", "HorizontalPodAutoscaler");
    }

    /**
     * Whether a spread constraint or anti-affinity term keeps the workload's pods on apart nodes.
     */
    static boolean spreadAcrossNodes(Workload w) {
        for (List<Workload.Spread> list : List.of(w.spreadConstraints(), w.antiAffinity())) {
            for (Workload.Spread s : list) {
                if (NODE_KEY.equals(s.topologyKey()) && s.selector().matches(w.podLabels())) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        Set<Workload> proxies = InternalLb.proxies(loadBalancers(snapshot));
        for (Service s : inv.services()) {
            String by = InternalLb.internalBy(s);
            if (by == null
                    || !"Local".equals(s.externalTrafficPolicy())
                    || InternalLb.ipTargets(s)) {
                continue;
            }
            List<Workload> backends = InternalLb.backends(inv, s, proxies);
            List<String> packed = new ArrayList<>();
            List<Map<String, Object>> spread = new ArrayList<>();
            int total = 0;
            boolean single = false;
            for (Workload w : backends) {
                Integer n = pods(inv, w);
                if (n == null) {
                    continue;
                }
                total += n;
                if (n < 2) {
                    single = true; // the other rule's finding
                } else if (!spreadAcrossNodes(w)) {
                    packed.add(w.meta().display() + " (" + n + " pods)");
                    spread.add(inputs("workload", w.meta().ref(), "podLabels", w.podLabels()));
                }
            }
            if (single || packed.isEmpty() || packed.size() < backends.size()) {
                continue; // a spread backend keeps some nodes serving
            }
            String msg =
                    s.meta().display()
                            + " ("
                            + by
                            + ") has externalTrafficPolicy: Local, so the load balancer sends"
                            + " traffic only to nodes running one of its ready pods; "
                            + String.join(", ", packed)
                            + (packed.size() == 1 ? " has" : " have")
                            + " no topology spread constraint or pod anti-affinity on "
                            + NODE_KEY
                            + ", so all "
                            + total
                            + " pods may sit on one node, and draining it (node maintenance, an"
                            + " upgrade) leaves the load balancer without a healthy backend";
            out.add(
                    ctx.finding(s.meta().location(), msg)
                            .key("local " + s.meta().name())
                            .remediation(
                                    "Spread the pods across nodes (`topologySpreadConstraints` with"
                                            + " `topologyKey: kubernetes.io/hostname` and a"
                                            + " labelSelector that selects them), or use"
                                            + " `externalTrafficPolicy: Cluster` if the clients'"
                                            + " source addresses are not needed.")
                            .fix("backends", spread)
                            .build());
        }
        return out;
    }
}
