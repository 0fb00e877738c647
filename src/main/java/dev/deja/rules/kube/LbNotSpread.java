package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.LoadBalancers;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * IL-0495 (the September repeat: badly spread traffic pods failed readiness together) and IL-0364
 * (one zone's trouble): a load balancer without a topology spread constraint or pod anti-affinity
 * across nodes and across zones. Only constraints whose label selector selects the workload's own
 * pods count. DaemonSets run one pod per node and are not checked. Nor are workloads that may run a
 * single pod (replicas or HPA minReplicas under 2): that is one root cause, reported once by
 * k8s-lb-no-disruption-headroom; spreading one pod means nothing.
 */
public final class LbNotSpread extends KubeRule {
    static final Set<String> NODE_KEYS = Set.of("kubernetes.io/hostname");
    static final Set<String> ZONE_KEYS =
            Set.of("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone");

    @Override
    public String id() {
        return "k8s-lb-not-spread";
    }

    @Override
    public Set<String> kubeKinds() {
        return DETECTOR_AND_HPA_KINDS;
    }

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (LoadBalancers.Lb lb : loadBalancers(snapshot)) {
            Workload w = lb.workload();
            if ("DaemonSet".equals(w.kind()) || LbNoDisruptionHeadroom.singleReplica(inv, w)) {
                continue;
            }
            List<String> ignored = new ArrayList<>();
            boolean nodes = spreads(w, NODE_KEYS, ignored);
            boolean zones = spreads(w, ZONE_KEYS, ignored);
            if (nodes && zones) {
                continue;
            }
            String missing =
                    !nodes && !zones
                            ? "across nodes or zones"
                            : !nodes ? "across nodes" : "across zones";
            String has =
                    nodes
                            ? " (it is spread across nodes only)"
                            : zones ? " (it is spread across zones only)" : "";
            String msg =
                    w.meta().display()
                            + ": no topology spread constraint or pod anti-affinity keeps its "
                            + (pods(inv, w) == null ? "" : pods(inv, w) + " ")
                            + "pods apart "
                            + missing
                            + has
                            + "; the scheduler may pack them on one node or zone, which then fails them all at once "
                            + lb.because();
            List<String> keys = new ArrayList<>();
            List<Map<String, String>> spreads = new ArrayList<>();
            if (!nodes) {
                keys.add("`topologyKey: kubernetes.io/hostname`");
                spreads.add(Map.of("topologyKey", "kubernetes.io/hostname"));
            }
            if (!zones) {
                keys.add("`topologyKey: topology.kubernetes.io/zone`");
                spreads.add(Map.of("topologyKey", "topology.kubernetes.io/zone"));
            }
            var f =
                    ctx.finding(w.meta().location(), msg)
                            .key("spread")
                            .remediation(
                                    "Add `topologySpreadConstraints` to the pod template"
                                            + " with "
                                            + String.join(" and ", keys)
                                            + " (`maxSkew: 1`; `whenUnsatisfiable: ScheduleAnyway` keeps"
                                            + " pods schedulable when a zone is short), each with a `labelSelector` whose matchLabels select the"
                                            + " pods "
                                            + w.podLabels()
                                            + "; pod anti-affinity on the same keys works too.")
                            .fix("spreads", spreads)
                            .fix("podLabels", w.podLabels());
            for (String i : ignored) {
                f.note(i);
            }
            out.add(f.build());
        }
        return out;
    }

    private static boolean spreads(Workload w, Set<String> keys, List<String> ignored) {
        boolean found = false;
        for (List<Workload.Spread> list : List.of(w.spreadConstraints(), w.antiAffinity())) {
            for (Workload.Spread s : list) {
                if (s.topologyKey() == null || !keys.contains(s.topologyKey())) {
                    continue;
                }
                if (s.selector().matches(w.podLabels())) {
                    found = true;
                } else {
                    String n =
                            "a constraint on "
                                    + s.topologyKey()
                                    + " does not count: its labelSelector "
                                    + s.selector().matchLabels()
                                    + " does not select the pods "
                                    + w.podLabels();
                    if (!ignored.contains(n)) {
                        ignored.add(n);
                    }
                }
            }
        }
        return found;
    }
}
