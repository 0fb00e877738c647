package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.Hpa;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.LoadBalancers;
import dev.deja.model.kube.Pdb;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * IL-0495: a load balancer without headroom for losing pods. One root cause, one finding:
 *
 * <ul>
 *   <li>fewer than {@value #MIN_REPLICAS} replicas (or an HPA that may scale down below that):
 *       reported alone, since a budget or a rollout setting cannot help a single pod;
 *   <li>otherwise no PodDisruptionBudget selecting its pods (Deployments and StatefulSets only:
 *       {@code kubectl drain --ignore-daemonsets} never evicts DaemonSet pods and a budget does not
 *       protect them);
 *   <li>a rollout that takes so many pods out at once that the survivors carry more than {@value
 *       #MAX_LOAD_FACTOR}x their normal load: {@code maxUnavailable} resolved as Kubernetes does
 *       (Deployments round a percentage down, 25% when unset; StatefulSets and DaemonSets round
 *       up), {@code Recreate} (every pod at once). For a DaemonSet the node count is not in the
 *       manifest: a percentage is judged on its own, an absolute number by the node count below
 *       which it is too many, and the message says so.
 * </ul>
 *
 * The remediation is computed from the same threshold, so following it clears the finding.
 */
public final class LbNoDisruptionHeadroom extends KubeRule {
    static final int MIN_REPLICAS = 2;

    /**
     * During a rollout, the pods still in rotation may carry at most this many times their normal
     * load.
     */
    /**
     * The default of the parameter maxLoadFactor (rules/k8s-lb-no-disruption-headroom.yaml), for
     * the arithmetic tests.
     */
    static final double MAX_LOAD_FACTOR = 1.5;

    /**
     * The most load the pods left in rotation may carry during a rollout, as a multiple of their
     * normal load.
     */
    static final String MAX_LOAD = "maxLoadFactor";

    /** Deployments' default maxUnavailable. */
    static final int DEFAULT_MAX_UNAVAILABLE_PERCENT = 25;

    @Override
    public String id() {
        return "k8s-lb-no-disruption-headroom";
    }

    @Override
    public Set<String> kubeKinds() {
        return union(DETECTOR_KINDS, "HorizontalPodAutoscaler", "PodDisruptionBudget");
    }

    /** The HPA that scales this definition of the workload (the nearest one), or null. */
    static Hpa hpaOf(KubeInventory inv, Workload w) {
        return inv.hpaOf(w).orElse(null);
    }

    /**
     * The fewest replicas the workload may run (HPA minReplicas, else replicas); null for a
     * DaemonSet.
     */
    public static Integer floor(KubeInventory inv, Workload w) {
        if ("DaemonSet".equals(w.kind())) {
            return null;
        }
        Hpa hpa = hpaOf(inv, w);
        return hpa != null ? Integer.valueOf(hpa.effectiveMin()) : w.effectiveReplicas();
    }

    /**
     * Whether the single-replica finding covers this workload (other rules then stay silent on the
     * same cause).
     */
    static boolean singleReplica(KubeInventory inv, Workload w) {
        Integer f = floor(inv, w);
        return f != null && f < MIN_REPLICAS;
    }

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (LoadBalancers.Lb lb : loadBalancers(snapshot)) {
            Workload w = lb.workload();
            boolean daemonSet = "DaemonSet".equals(w.kind());
            Hpa hpa = daemonSet ? null : hpaOf(inv, w);
            Integer floor = floor(inv, w);
            List<Pdb> pdbs = inv.pdbsOf(w);
            if (floor != null && floor == 0 && hpa == null) {
                continue; // scaled to zero: it serves nothing, so it loses nothing
            }
            if (floor != null && floor < MIN_REPLICAS) {
                out.add(minReplicas(lb, hpa, floor, pdbs, ctx));
                continue;
            }
            if (!daemonSet && pdbs.isEmpty()) {
                out.add(noPdb(lb, floor, ctx));
            }
            Rollout r = rollout(w, floor, ctx.parameter(MAX_LOAD));
            if (r != null) {
                out.add(rolloutFinding(lb, r, ctx));
            }
        }
        return out;
    }

    /**
     * The finding on a workload that runs (or may scale down to) fewer than {@value #MIN_REPLICAS}
     * pods, reported alone: with one pod, a budget or rollout settings cannot help.
     */
    private static Finding minReplicas(
            LoadBalancers.Lb lb, Hpa hpa, int floor, List<Pdb> pdbs, RuleContext ctx) {
        Workload w = lb.workload();
        String name = w.meta().display();
        String msg =
                hpa != null
                        ? name
                                + ": "
                                + hpa.meta().display()
                                + " lets it scale down to minReplicas "
                                + floor
                                + (hpa.minReplicas() == null ? " (the default)" : "")
                                + "; with one pod, its failure"
                                + " or eviction takes all of the traffic down "
                                + lb.because()
                        : name
                                + ": runs "
                                + floor
                                + " replica"
                                + (w.replicas() == null
                                        ? " (replicas unset: the default of 1)"
                                        : "")
                                + " and no HorizontalPodAutoscaler targets it; one failing or evicted pod takes all of"
                                + " the traffic down "
                                + lb.because();
        String pdbToo =
                pdbs.isEmpty()
                        ? " and a PodDisruptionBudget selecting "
                                + w.podLabels()
                                + " with `maxUnavailable: 1`"
                        : "";
        var f =
                ctx.finding(w.meta().at(w.replicasLine()), msg)
                        .key("min-replicas")
                        .remediation(
                                hpa != null
                                        ? "Set `minReplicas: "
                                                + MIN_REPLICAS
                                                + "` (3 or more across zones) on "
                                                + hpa.meta().display()
                                                + pdbToo
                                                + "."
                                        : "Run `replicas: "
                                                + MIN_REPLICAS
                                                + "` or more (3 or more across zones)"
                                                + pdbToo
                                                + ".");
        if (hpa != null) {
            f.fix("hpa", hpa.meta().ref()).fix("minReplicas", (long) MIN_REPLICAS);
        } else {
            f.fix("replicas", (long) MIN_REPLICAS);
        }
        if (pdbs.isEmpty()) {
            f.fix("pdbMetadata", pdbMetadata(w)).fix("podLabels", w.podLabels());
        }
        f.note(
                "One root cause, one finding: with a single pod, spreading (k8s-lb-not-spread), a disruption"
                        + " budget and rollout settings are not reported separately.");
        return f.build();
    }

    /** The finding on a Deployment or StatefulSet that no PodDisruptionBudget selects. */
    private static Finding noPdb(LoadBalancers.Lb lb, Integer floor, RuleContext ctx) {
        Workload w = lb.workload();
        return ctx.finding(
                        w.meta().location(),
                        w.meta().display()
                                + ": no PodDisruptionBudget selects its pods "
                                + w.podLabels()
                                + ", so a node drain or cluster upgrade may evict "
                                + replicasText(floor)
                                + " at the same time "
                                + lb.because())
                .key("no-pdb")
                .remediation(
                        "Add a PodDisruptionBudget selecting "
                                + w.podLabels()
                                + " with `maxUnavailable: 1` (or a minAvailable that leaves the rest enough capacity).")
                .fix("pdbMetadata", pdbMetadata(w))
                .fix("podLabels", w.podLabels())
                .build();
    }

    /** The finding of a rollout that takes too many pods out at once ({@link #rollout}). */
    private static Finding rolloutFinding(LoadBalancers.Lb lb, Rollout r, RuleContext ctx) {
        Workload w = lb.workload();
        return ctx.finding(
                        w.meta().at(w.strategyLine()),
                        w.meta().display() + ": " + r.message() + " " + lb.because())
                .key("rollout")
                .severity(r.severity() == null ? ctx.metadata().severity() : r.severity())
                .remediation(r.remediation())
                .fix("strategy", "Deployment".equals(w.kind()) ? "strategy" : "updateStrategy")
                .fix("type", r.fix().get("type"))
                .fix("maxUnavailable", r.fix().get("maxUnavailable"))
                .fix("maxSurge", r.fix().get("maxSurge"))
                .fix("unsetMaxUnavailable", r.fix().get("unsetMaxUnavailable"))
                .build();
    }

    /**
     * Why a rollout takes too many pods out at once, the fix, and a severity (null: the rule's).
     */
    record Rollout(
            String message, String remediation, Severity severity, Map<String, Object> fix) {}

    /**
     * Whether survivors of a rollout that takes {@code down} of {@code total} pods out carry too
     * much.
     */
    static boolean tooMany(int down, int total, double factor) {
        return down > 0 && total > 0 && (down >= total || (double) total / (total - down) > factor);
    }

    /**
     * The largest maxUnavailable that keeps the survivors at or under the load factor (0: use
     * maxSurge instead).
     */
    static int largestSafe(int total) {
        return largestSafe(total, MAX_LOAD_FACTOR);
    }

    static int largestSafe(int total, double factor) {
        int k = 0;
        while (k + 1 < total && !tooMany(k + 1, total, factor)) {
            k++;
        }
        return k;
    }

    static String loadFactor(int down, int total, double factor) {
        if (down >= total) {
            return "no pod is left to take the traffic";
        }
        return "the "
                + (total - down)
                + " left carry "
                + String.format(Locale.ROOT, "%.2f", (double) total / (total - down))
                + "x their normal load (more than "
                + factor
                + "x)";
    }

    /** The rollout finding for a workload, or null. {@code replicas} is null for a DaemonSet. */
    static Rollout rollout(Workload w, Integer replicas) {
        return rollout(w, replicas, MAX_LOAD_FACTOR);
    }

    /** The same, with the survivors' load factor the rule's parameter sets. */
    static Rollout rollout(Workload w, Integer replicas, double factor) {
        String kind = w.kind();
        if ("OnDelete".equals(w.strategy())) {
            return null; // pods are replaced only when someone deletes them
        }
        if ("Deployment".equals(kind) && "Recreate".equals(w.strategy())) {
            return recreate(replicas, factor);
        }
        String mu = w.maxUnavailable();
        if (mu == null && !"Deployment".equals(kind)) {
            return null; // StatefulSets and DaemonSets replace one pod at a time by default
        }
        String written =
                mu == null
                        ? DEFAULT_MAX_UNAVAILABLE_PERCENT + "% (unset: the Kubernetes default)"
                        : mu;
        String value = mu == null ? DEFAULT_MAX_UNAVAILABLE_PERCENT + "%" : mu.strip();
        boolean pct = value.endsWith("%");
        int n = parse(pct ? value.substring(0, value.length() - 1) : value);
        if (replicas == null) {
            return daemonSet(written, pct, n, factor);
        }
        if (replicas <= 0) {
            return null;
        }
        return rollingUpdate(kind, written, pct, n, replicas, factor);
    }

    /** A Deployment of strategy Recreate: every pod stops before new ones start. */
    private static Rollout recreate(Integer replicas, double factor) {
        return new Rollout(
                "strategy Recreate stops every pod before starting new ones: each rollout is an outage",
                "Use `type: RollingUpdate` with `maxUnavailable: "
                        + (replicas == null ? 0 : largestSafe(replicas, factor))
                        + "`"
                        + (replicas == null || largestSafe(replicas, factor) == 0
                                ? " and `maxSurge: 1`"
                                : "")
                        + " so that new pods start before old ones stop.",
                null,
                inputs(
                        "type",
                        "RollingUpdate",
                        "maxUnavailable",
                        (long) (replicas == null ? 0 : largestSafe(replicas, factor)),
                        "maxSurge",
                        replicas == null || largestSafe(replicas, factor) == 0 ? 1L : null));
    }

    /**
     * A Deployment's or StatefulSet's rolling update of {@code replicas} pods with maxUnavailable
     * {@code n} ({@code pct}: a percentage), or null when the survivors carry little enough.
     */
    private static Rollout rollingUpdate(
            String kind, String written, boolean pct, int n, int replicas, double factor) {
        boolean roundUp = !"Deployment".equals(kind);
        int pods;
        String how;
        if (pct) {
            pods = roundUp ? (n * replicas + 99) / 100 : n * replicas / 100;
            how = n + "% of " + replicas + " rounded " + (roundUp ? "up" : "down") + " = " + pods;
        } else {
            pods = n;
            how = Integer.toString(pods);
        }
        if (!tooMany(pods, replicas, factor)) {
            return null;
        }
        int safe = largestSafe(replicas, factor);
        String msg =
                "rolling update maxUnavailable "
                        + written
                        + " resolves to "
                        + how
                        + " pod"
                        + (pods == 1 ? "" : "s")
                        + " of "
                        + replicas
                        + " out of rotation at once during every rollout: "
                        + loadFactor(pods, replicas, factor);
        if ("StatefulSet".equals(kind)) {
            msg +=
                    " (StatefulSets honour maxUnavailable only where the MaxUnavailableStatefulSet feature is on: alpha"
                            + " from Kubernetes 1.24, beta in 1.35; elsewhere they replace one pod at a time)";
        }
        Map<String, Object> inputs =
                "StatefulSet".equals(kind) && safe == 0
                        ? inputs("unsetMaxUnavailable", true)
                        : inputs("maxUnavailable", (long) safe, "maxSurge", safe == 0 ? 1L : null);
        return new Rollout(msg, rollingUpdateFix(kind, safe, replicas, factor) + ".", null, inputs);
    }

    /** The advice for a rolling update: maxUnavailable {@code safe}, or maxSurge when it is 0. */
    private static String rollingUpdateFix(String kind, int safe, int replicas, double factor) {
        if ("StatefulSet".equals(kind)) {
            return safe > 0
                    ? "Set `maxUnavailable: "
                            + safe
                            + "` or remove it (StatefulSets then replace one pod at a time)"
                    : "Remove maxUnavailable (StatefulSets then replace one pod at a time)";
        }
        return safe > 0
                ? "Set `maxUnavailable: "
                        + safe
                        + "` (the most that leaves the others at or under "
                        + factor
                        + "x their load with "
                        + replicas
                        + " replicas)"
                : "Set `maxUnavailable: 0` and `maxSurge: 1`: each new pod starts before an old one stops";
    }

    /**
     * A DaemonSet: one pod per node, the node count unknown from a manifest; maxUnavailable rounds
     * up.
     */
    private static Rollout daemonSet(String written, boolean pct, int n, double factor) {
        if (pct) {
            // p% of N nodes rounded up is at least p% of them: the survivors carry at least 1 / (1
            // - p) of their load
            if (n <= 0 || !(n >= 100 || 100.0 / (100 - n) > factor)) {
                return null;
            }
            return new Rollout(
                    "rolling update maxUnavailable "
                            + written
                            + " takes "
                            + n
                            + "% of the nodes' pods (rounded"
                            + " up) out of rotation at once during every rollout: "
                            + (n >= 100
                                    ? "no pod is left to take the traffic"
                                    : "the rest carry at least "
                                            + String.format(Locale.ROOT, "%.2f", 100.0 / (100 - n))
                                            + "x their normal load (more than "
                                            + factor
                                            + "x), whatever the node count"),
                    "Set `maxUnavailable: 1` (the DaemonSet default: one node's pod at a time), or a percentage of at most "
                            + (int) Math.floor(100 - 100 / factor)
                            + "%.",
                    null,
                    inputs("maxUnavailable", 1L));
        }
        if (n <= 1) {
            return null;
        }
        int nodes = minNodes(n, factor);
        return new Rollout(
                "rolling update maxUnavailable "
                        + written
                        + " takes "
                        + n
                        + " nodes' pods out of rotation at"
                        + " once during every rollout; the node count is not in the manifest: on fewer than "
                        + nodes
                        + " nodes the rest carry more than "
                        + factor
                        + "x their normal load",
                "Set `maxUnavailable: 1` (the DaemonSet default), or a number that stays small next to your node count.",
                Severity.LOW,
                inputs("maxUnavailable", 1L));
    }

    /**
     * The fewest nodes on which taking {@code n} out keeps the others at or under the load factor.
     */
    static int minNodes(int n, double factor) {
        int total = n + 1;
        while (tooMany(n, total, factor)) {
            total++;
        }
        return total;
    }

    private static int parse(String s) {
        try {
            return Integer.parseInt(s.strip());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
