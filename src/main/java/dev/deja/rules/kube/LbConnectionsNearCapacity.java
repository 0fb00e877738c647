package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SourceKind;
import dev.deja.kube.model.ConfigMap;
import dev.deja.kube.model.Container;
import dev.deja.kube.model.KubeInventory;
import dev.deja.kube.model.Workload;
import dev.deja.prometheus.LivePeaks;
import dev.deja.prometheus.PrometheusPeaks;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * IL-0495 (HubSpot's follow-up: a metric of current against maximum allowed connections): a load-balancer proxy whose
 * peak connections over the Prometheus window reached warnPercent of its capacity, per instance or pod, with the
 * spread across the instances of its fleet. HAProxy: haproxy_process_current_connections against
 * haproxy_process_max_connections (global maxconn). ingress-nginx: active client connections
 * (nginx_ingress_controller_nginx_process_connections{state="active"}) against max-worker-connections x
 * worker-processes of the controller's ConfigMap, when the scan holds the controller and a numeric worker-processes.
 * A hot instance among idle ones is the IL-0011 hot-pod shape and the message says so.
 *
 * <p>Source kind {@code kubernetes}: the incident's load balancers ran on Kubernetes and ingress-nginx's capacity
 * comes from the Kubernetes inventory; the rule runs when Prometheus was read ({@link #part()}), with or without a
 * cluster or manifests.
 */
public final class LbConnectionsNearCapacity implements Rule {
    /** ingress-nginx's default max-worker-connections (docs/user-guide/nginx-configuration/configmap.md). */
    static final int DEFAULT_WORKER_CONNECTIONS = 16384;

    @Override
    public String id() {
        return "lb-connections-near-capacity";
    }

    @Override
    public SourceKind source() {
        return SourceKind.KUBERNETES;
    }

    @Override
    public String part() {
        return PrometheusPeaks.class.getName();
    }

    @Override
    public Set<String> kubeKinds() {
        return Set.of("Deployment", "StatefulSet", "DaemonSet", "ConfigMap");
    }

    /** One proxy instance judged: its peak, its capacity and how the capacity was found. */
    record Judged(LivePeaks.Peak peak, double capacity, String capacityText, Location location, String kind) {
        double percent() {
            return peak.peak() * 100.0 / capacity;
        }
    }

    @Override
    public List<Finding> check(Snapshot snapshot, RuleContext ctx) {
        PrometheusPeaks p = snapshot.part(PrometheusPeaks.class).orElse(null);
        if (p == null) {
            return List.of();
        }
        KubeInventory inv = snapshot.part(KubeInventory.class).orElse(KubeInventory.EMPTY);
        List<Judged> all = new ArrayList<>();
        for (LivePeaks.Peak x : LivePeaks.processes(p)) {
            if (x.limit() > 0) {
                all.add(new Judged(x, x.limit(), "haproxy_process_max_connections " + LivePeaks.num(x.limit())
                        + " (global maxconn)", new Location(x.instance(), null, "HAProxy process", null,
                        x.labels().getOrDefault("job", "haproxy"), null, null, null), "HAProxy"));
            }
        }
        for (LivePeaks.Peak x : LivePeaks.nginx(p)) {
            Judged j = nginx(x, inv);
            if (j != null) {
                all.add(j);
            }
        }
        int warn = ctx.intParameter("warnPercent");
        int high = ctx.intParameter("highPercent");
        Map<String, List<Judged>> fleets = new LinkedHashMap<>();
        all.forEach(j -> fleets.computeIfAbsent(j.kind() + " " + j.peak().fleet(), k -> new ArrayList<>()).add(j));
        List<Finding> out = new ArrayList<>();
        for (Judged j : all) {
            if (j.percent() < warn) {
                continue;
            }
            List<Judged> fleet = fleets.get(j.kind() + " " + j.peak().fleet());
            String spread = "";
            boolean hot = false;
            if (fleet.size() > 1) {
                List<Double> pcts = fleet.stream().map(Judged::percent).sorted(java.util.Comparator.reverseOrder()).toList();
                List<Double> others = fleet.stream().filter(o -> o != j).map(Judged::percent).sorted().toList();
                double median = others.get(others.size() / 2);
                hot = median < warn / 2.0;
                spread = "; across the " + fleet.size() + " instances of " + (j.peak().fleet().isEmpty() ? "this "
                        + j.kind() + " fleet" : j.peak().fleet()) + ": " + String.join(", ", pcts.stream().limit(10)
                        .map(d -> (long) Math.floor(d) + "%").toList()) + (pcts.size() > 10 ? ", ..." : "")
                        + (hot ? " (the others' median " + (long) Math.floor(median) + "%): one hot instance among idle"
                        + " ones, the IL-0011 hot-pod shape: look at how load is spread (the same server order and"
                        + " round robin on every instance, sticky or long-lived connections) before adding capacity"
                        : " (the fleet as a whole is loaded: add capacity)");
            }
            String msg = j.kind() + " " + j.peak().instance() + " reached " + LivePeaks.num(j.peak().peak())
                    + " connections in the last " + p.window() + ", " + (long) Math.floor(j.percent()) + "% of "
                    + j.capacityText() + spread + " (Prometheus " + p.url() + ": max_over_time of " + j.peak().series()
                    + ")";
            out.add(ctx.finding(j.location(), msg)
                    .severity(j.percent() >= high ? Severity.HIGH : ctx.metadata().severity())
                    .key("prometheus " + j.kind() + " " + j.peak().instance())
                    .build());
        }
        return out;
    }

    /**
     * An ingress-nginx pod's capacity: max-worker-connections (default 16384) x worker-processes of the ConfigMap its
     * controller's --configmap names, when the scan holds that controller (by pod name and namespace) and
     * worker-processes is a number ("auto", the default, is the node's CPU count, which deja does not know).
     */
    static Judged nginx(LivePeaks.Peak x, KubeInventory inv) {
        String pod = x.labels().getOrDefault("controller_pod", x.labels().getOrDefault("pod", ""));
        String ns = x.labels().getOrDefault("controller_namespace", x.labels().getOrDefault("namespace", ""));
        for (Workload w : inv.workloads()) {
            if (!w.namespace().equals(ns) || !podOf(w, pod)) {
                continue;
            }
            for (Container c : w.containers()) {
                String ref = c.flag("--configmap");
                if (ref == null) {
                    continue;
                }
                String cmNs = w.namespace();
                String cmName = ref;
                int slash = ref.indexOf('/');
                if (slash >= 0) {
                    cmNs = ref.substring(0, slash).startsWith("$(") ? w.namespace() : ref.substring(0, slash);
                    cmName = ref.substring(slash + 1);
                }
                for (ConfigMap cm : inv.configMapsFor(w.meta(), cmNs, cmName)) {
                    String wp = cm.data().get(ConfigMap.INGRESS_NGINX_WORKER_PROCESSES);
                    String mwc = cm.data().get(ConfigMap.INGRESS_NGINX_MAX_WORKER_CONNECTIONS);
                    Integer workers = positive(wp);
                    Integer perWorker = mwc == null ? Integer.valueOf(DEFAULT_WORKER_CONNECTIONS) : positive(mwc);
                    if (workers == null || perWorker == null) {
                        continue; // "auto" workers, or 0 connections (then max-worker-open-files): not known
                    }
                    String text = perWorker + " (max-worker-connections" + (mwc == null ? ", the default" : "")
                            + ") x " + workers + " worker processes = " + (long) perWorker * workers
                            + " connections (ConfigMap " + cm.meta().display() + " named by --configmap of "
                            + w.meta().display() + "; worker_connections counts upstream connections too)";
                    return new Judged(x, (double) perWorker * workers, text, w.meta().location(), "ingress-nginx");
                }
            }
        }
        return null;
    }

    /**
     * Whether a pod name is one the workload's controller gives: a Deployment's NAME-&lt;ReplicaSet hash&gt;-&lt;5
     * characters&gt;, a DaemonSet's NAME-&lt;5 characters&gt;, a StatefulSet's NAME-&lt;ordinal&gt;. Not a bare prefix:
     * ingress-nginx-controller-internal-... is not a pod of ingress-nginx-controller.
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

    private static Integer positive(String v) {
        if (v == null || !v.strip().matches("\\d{1,9}")) {
            return null;
        }
        int n = Integer.parseInt(v.strip());
        return n > 0 ? n : null;
    }
}
