package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SourceKind;
import dev.deja.model.kube.IngressNginx;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.Workload;
import dev.deja.model.prometheus.LivePeaks;
import dev.deja.model.prometheus.PodMetrics;
import dev.deja.model.prometheus.PrometheusPeaks;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * IL-0495 (HubSpot's follow-up: a metric of current against maximum allowed connections): a
 * load-balancer proxy whose peak connections over the Prometheus window reached warnPercent of its
 * capacity, per instance or pod, with the spread across the instances of its fleet. HAProxy:
 * haproxy_process_current_connections against haproxy_process_max_connections (global maxconn).
 * ingress-nginx: active client connections
 * (nginx_ingress_controller_nginx_process_connections{state="active"}) against
 * max-worker-connections x worker-processes of the controller's ConfigMap, when the scan holds the
 * controller and a numeric worker-processes. A hot instance among idle ones is the IL-0011 hot-pod
 * shape and the message says so.
 *
 * <p>Source kind {@code kubernetes}: the incident's load balancers ran on Kubernetes and
 * ingress-nginx's capacity comes from the Kubernetes inventory; the rule runs when Prometheus was
 * read ({@link #parts()}), with or without a cluster or manifests.
 */
public final class LbConnectionsNearCapacity implements Rule {

    @Override
    public String id() {
        return "lb-connections-near-capacity";
    }

    @Override
    public SourceKind source() {
        return SourceKind.KUBERNETES;
    }

    /** Prometheus's peaks, or the ingress-nginx pods' current gauges read by --live-metrics. */
    @Override
    public List<Class<?>> parts() {
        return List.of(PrometheusPeaks.class, PodMetrics.class);
    }

    @Override
    public Set<String> kubeKinds() {
        return Set.of("Deployment", "StatefulSet", "DaemonSet", "ConfigMap");
    }

    /**
     * One proxy instance judged: its peak (or, for a pod read by --live-metrics, its current
     * value), its capacity and how the capacity was found.
     *
     * @param live the pod read by --live-metrics, or null for a peak from Prometheus
     */
    record Judged(
            LivePeaks.Peak peak,
            double capacity,
            String capacityText,
            Location location,
            String kind,
            PodMetrics.Pod live) {
        double percent() {
            return peak.peak() * 100.0 / capacity;
        }

        /** Instances compared for the spread: those of one fleet read the same way. */
        String fleetKey() {
            return (live == null ? "prometheus " : "live ") + kind + " " + peak.fleet();
        }
    }

    @Override
    public List<Finding> check(Snapshot snapshot, RuleContext ctx) {
        PrometheusPeaks p = snapshot.part(PrometheusPeaks.class).orElse(null);
        PodMetrics live = snapshot.part(PodMetrics.class).orElse(null);
        if (p == null && live == null) {
            return List.of();
        }
        KubeInventory inv = snapshot.part(KubeInventory.class).orElse(KubeInventory.EMPTY);
        List<Judged> all = judged(p, live, inv);
        int warn = ctx.intParameter("warnPercent");
        int high = ctx.intParameter("highPercent");
        Map<String, List<Judged>> fleets = new LinkedHashMap<>();
        all.forEach(j -> fleets.computeIfAbsent(j.fleetKey(), k -> new ArrayList<>()).add(j));
        List<Finding> out = new ArrayList<>();
        for (Judged j : all) {
            if (j.percent() < warn) {
                continue;
            }
            String msg = message(j, p, spread(j, fleets.get(j.fleetKey()), warn));
            out.add(
                    ctx.finding(j.location(), msg)
                            .severity(
                                    j.percent() >= high ? Severity.HIGH : ctx.metadata().severity())
                            .key(
                                    (j.live() == null ? "prometheus " : "live ")
                                            + j.kind()
                                            + " "
                                            + j.peak().instance())
                            .build());
        }
        return out;
    }

    /**
     * Every proxy instance whose capacity is known: HAProxy processes and ingress-nginx pods from
     * Prometheus, ingress-nginx pods read by --live-metrics.
     */
    private static List<Judged> judged(PrometheusPeaks p, PodMetrics live, KubeInventory inv) {
        List<Judged> all = new ArrayList<>();
        if (p != null) {
            for (LivePeaks.Peak x : LivePeaks.processes(p)) {
                if (x.limit() > 0) {
                    all.add(haproxy(x));
                }
            }
            for (LivePeaks.Peak x : LivePeaks.nginx(p)) {
                Judged j = nginx(x, inv);
                if (j != null) {
                    all.add(j);
                }
            }
        }
        if (live != null) {
            for (PodMetrics.Pod pod : live.pods()) {
                Judged j = nginx(pod, inv);
                if (j != null) {
                    all.add(j);
                }
            }
        }
        return all;
    }

    /** A HAProxy process seen by Prometheus, against its global maxconn. */
    private static Judged haproxy(LivePeaks.Peak x) {
        return new Judged(
                x,
                x.limit(),
                "haproxy_process_max_connections " + LivePeaks.num(x.limit()) + " (global maxconn)",
                new Location(
                        x.instance(),
                        null,
                        "HAProxy process",
                        null,
                        x.labels().getOrDefault("job", "haproxy"),
                        null,
                        null,
                        null),
                "HAProxy",
                null);
    }

    /**
     * How the load is spread across {@code j}'s fleet, and whether {@code j} is one hot instance
     * among idle ones; empty when it is alone.
     */
    private static String spread(Judged j, List<Judged> fleet, int warn) {
        if (fleet.size() <= 1) {
            return "";
        }
        List<Double> pcts =
                fleet.stream().map(Judged::percent).sorted(Comparator.reverseOrder()).toList();
        @SuppressWarnings("ReferenceEquality") // every member of the fleet but this one
        List<Double> others =
                fleet.stream().filter(o -> o != j).map(Judged::percent).sorted().toList();
        double median = others.get(others.size() / 2);
        boolean hot = median < warn / 2.0;
        return "; across the "
                + fleet.size()
                + (j.live() == null ? " instances of " : " pods read of ")
                + (j.peak().fleet().isEmpty() ? "this " + j.kind() + " fleet" : j.peak().fleet())
                + ": "
                + String.join(
                        ", ", pcts.stream().limit(10).map(d -> (long) Math.floor(d) + "%").toList())
                + (pcts.size() > 10 ? ", ..." : "")
                + (hot
                        ? " (the others' median "
                                + (long) Math.floor(median)
                                + "%): one hot instance among idle"
                                + " ones, the IL-0011 hot-pod shape: look at how load is spread (the same server order and"
                                + " round robin on every instance, sticky or long-lived connections) before adding capacity"
                        : " (the fleet as a whole is loaded: add capacity)");
    }

    /** The finding's message: the peak (or, read live, the current value) against capacity. */
    private static String message(Judged j, PrometheusPeaks p, String spread) {
        if (j.live() == null) {
            return j.kind()
                    + " "
                    + j.peak().instance()
                    + " reached "
                    + LivePeaks.num(j.peak().peak())
                    + " connections in the last "
                    + p.window()
                    + ", "
                    + (long) Math.floor(j.percent())
                    + "% of "
                    + j.capacityText()
                    + spread
                    + " (Prometheus "
                    + p.url()
                    + ": max_over_time of "
                    + j.peak().series()
                    + ")";
        }
        String states = PodMetrics.states(j.live());
        return j.kind()
                + " "
                + j.peak().instance()
                + " holds "
                + LivePeaks.num(j.peak().peak())
                + " active client connections"
                + (states.isEmpty() ? "" : " (" + states + ")")
                + ", "
                + (long) Math.floor(j.percent())
                + "% of "
                + j.capacityText()
                + spread
                + " (read from "
                + j.live().address()
                + ": "
                + j.peak().series()
                + ", the value at the moment of the scan,"
                + " not a peak: a busier moment is not seen; --prometheus gives the peak over a window)";
    }

    /**
     * An ingress-nginx pod seen by Prometheus, judged against the capacity of the controller it
     * belongs to (by pod name and namespace, {@link #podOf}); null when the scan does not hold that
     * controller or its capacity is not known ({@link #capacity}).
     */
    static Judged nginx(LivePeaks.Peak x, KubeInventory inv) {
        String pod = x.labels().getOrDefault("controller_pod", x.labels().getOrDefault("pod", ""));
        String ns =
                x.labels()
                        .getOrDefault(
                                "controller_namespace", x.labels().getOrDefault("namespace", ""));
        for (Workload w : inv.workloads()) {
            if (!w.namespace().equals(ns) || !podOf(w, pod)) {
                continue;
            }
            IngressNginx.Capacity c = IngressNginx.capacity(w, inv);
            if (c != null) {
                return new Judged(
                        x, c.connections(), c.text(), c.location(), "ingress-nginx", null);
            }
        }
        return null;
    }

    /**
     * An ingress-nginx pod read by --live-metrics: its current active connections against the
     * capacity of the workload it was listed from; null when that workload is not in the scan, its
     * capacity is not known or the pod gave no active gauge.
     */
    static Judged nginx(PodMetrics.Pod pod, KubeInventory inv) {
        if (pod.active().isEmpty()) {
            return null;
        }
        for (Workload w : inv.workloads()) {
            if (!w.namespace().equals(pod.namespace())
                    || !w.kind().equals(pod.workloadKind())
                    || !w.name().equals(pod.workloadName())) {
                continue;
            }
            IngressNginx.Capacity c =
                    IngressNginx.capacity(
                            w,
                            inv,
                            pod.node() == null || pod.nodeCpus() < 1
                                    ? null
                                    : new IngressNginx.Node(pod.node(), pod.nodeCpus()));
            if (c == null) {
                return null;
            }
            Map<String, String> labels =
                    new TreeMap<>(
                            Map.of(
                                    "controller_namespace",
                                    pod.namespace(),
                                    "controller_pod",
                                    pod.name()));
            LivePeaks.Peak x =
                    new LivePeaks.Peak(
                            LivePeaks.instance(labels),
                            w.kind() + " " + w.namespace() + "/" + w.name(),
                            null,
                            pod.active().getAsDouble(),
                            0,
                            LivePeaks.selector(
                                    PodMetrics.NGINX_CONNECTIONS, Map.of("state", "active")),
                            labels);
            return new Judged(x, c.connections(), c.text(), c.location(), "ingress-nginx", pod);
        }
        return null;
    }

    /**
     * Whether a pod name is one the workload's controller gives: a Deployment's NAME-&lt;ReplicaSet
     * hash&gt;-&lt;5 characters&gt;, a DaemonSet's NAME-&lt;5 characters&gt;, a StatefulSet's
     * NAME-&lt;ordinal&gt;. Not a bare prefix: ingress-nginx-controller-internal-... is not a pod
     * of ingress-nginx-controller.
     */
    static boolean podOf(Workload w, String pod) {
        if (!pod.startsWith(w.name() + "-")) {
            return false;
        }
        String rest = pod.substring(w.name().length() + 1);
        return switch (w.kind()) {
            case "Deployment" -> rest.matches("[a-z0-9]{1,10}-[a-z0-9]{5}");
            case "DaemonSet" -> rest.matches("[a-z0-9]{5}");
            case "StatefulSet" -> rest.matches("\\d+");
            default -> false;
        };
    }
}
