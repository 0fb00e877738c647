package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SourceKind;
import dev.deja.engine.Target;
import dev.deja.model.kube.FleetWorkloads;
import dev.deja.model.kube.KubeScope;
import dev.deja.model.kube.Meta;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * IL-0072 (Nordstrom, 2017: several Tier 1 services ran in one cluster, whose unstable etcd took
 * them all down; the fix was to deploy Tier 1 services to several clusters): in a fleet scan, a
 * workload marked critical that runs in only one of the clusters read. Marked critical: the label
 * or annotation {@value #MARKER} {@code "true"} on the workload or on its Namespace, or workload
 * labels that match the scan's critical selector ({@code --critical-selector}). The same workload
 * in two clusters: the same identity ({@code --fleet-identity}): namespace/kind/name by default,
 * namespace/name, or the value of a label. Reads only the fleet view the scan kept of each cluster
 * ({@link FleetWorkloads}); nothing when the run read fewer than two clusters.
 */
public final class CriticalInOneCluster implements Rule {
    /**
     * The label or annotation that marks a workload, or every workload of a Namespace, critical.
     */
    public static final String MARKER = "deja.dev/critical";

    /** Settings key of the critical selector (a label selector on the workloads' labels). */
    public static final String SELECTOR_KEY = "fleet.critical-selector";

    /** Settings key of the identity across clusters. */
    public static final String IDENTITY_KEY = "fleet.identity";

    public static final String DEFAULT_IDENTITY = "namespace/kind/name";

    @Override
    public String id() {
        return "k8s-critical-in-one-cluster";
    }

    @Override
    public SourceKind source() {
        return SourceKind.KUBERNETES;
    }

    /** The workloads; a fleet scan also lists each cluster's Namespaces for their marker. */
    @Override
    public Set<String> kubeKinds() {
        return FleetWorkloads.WORKLOAD_KINDS;
    }

    @Override
    public List<Class<?>> parts() {
        return List.of(FleetWorkloads.class);
    }

    /**
     * Whether an identity form is one this rule knows: namespace/kind/name, namespace/name, or
     * label:KEY.
     */
    public static boolean validIdentity(String form) {
        return form.equals(DEFAULT_IDENTITY)
                || form.equals("namespace/name")
                || form.startsWith("label:") && form.length() > 6 && !form.contains(" ");
    }

    /** The identity of a workload across clusters, as the form says. */
    static String identity(Meta w, String form) {
        if (form.startsWith("label:")) {
            String key = form.substring(6);
            String v = w.label(key);
            if (v != null) {
                return "label " + key + "=" + v;
            }
        } else if (form.equals("namespace/name")) {
            return w.namespace() + "/" + w.name();
        }
        return w.kind() + " " + w.namespace() + "/" + w.name();
    }

    /** Why the workload is critical in its cluster, or null when it is not. */
    static String critical(Meta w, Map<String, Meta> namespaces, KubeScope selector) {
        if ("true".equals(w.label(MARKER))) {
            return "label " + MARKER + "=true";
        }
        if ("true".equals(w.annotation(MARKER))) {
            return "annotation " + MARKER + ": \"true\"";
        }
        Meta ns = namespaces.get(w.namespace());
        if (ns != null && "true".equals(ns.label(MARKER))) {
            return "its Namespace " + ns.name() + " has the label " + MARKER + "=true";
        }
        if (ns != null && "true".equals(ns.annotation(MARKER))) {
            return "its Namespace " + ns.name() + " has the annotation " + MARKER + ": \"true\"";
        }
        if (selector != null && selector.selects(w.labels())) {
            return "its labels match the critical selector " + selector.selector();
        }
        return null;
    }

    private record Marked(FleetWorkloads.Cluster cluster, Meta workload, String why) {}

    @Override
    public List<Finding> check(Snapshot snapshot, RuleContext ctx) {
        FleetWorkloads fleet = snapshot.part(FleetWorkloads.class).orElse(null);
        if (fleet == null || fleet.clusters().size() < 2) {
            return List.of();
        }
        String form = ctx.settings().get(IDENTITY_KEY, DEFAULT_IDENTITY);
        String sel = ctx.settings().get(SELECTOR_KEY, "");
        KubeScope selector = sel.isBlank() ? null : new KubeScope(sel.strip());
        // identity -> the clusters it runs in; identity -> where it is marked critical
        Map<String, Set<String>> present = new TreeMap<>();
        Map<String, List<Marked>> marked = new TreeMap<>();
        List<String> names = new ArrayList<>();
        for (FleetWorkloads.Cluster c : fleet.clusters()) {
            names.add(c.name());
            Map<String, Meta> namespaces = new LinkedHashMap<>();
            for (Meta n : c.namespaces()) {
                namespaces.put(n.name(), n);
            }
            for (Meta w : c.workloads()) {
                String id = identity(w, form);
                present.computeIfAbsent(id, k -> new TreeSet<>()).add(c.name());
                String why = critical(w, namespaces, selector);
                if (why != null) {
                    marked.computeIfAbsent(id, k -> new ArrayList<>()).add(new Marked(c, w, why));
                }
            }
        }
        List<Finding> out = new ArrayList<>();
        for (Map.Entry<String, List<Marked>> e : marked.entrySet()) {
            Set<String> in = present.get(e.getKey());
            if (in.size() != 1) {
                continue;
            }
            Marked m = e.getValue().get(0);
            String only = m.cluster().name();
            List<String> others = new ArrayList<>(names);
            others.remove(only);
            List<String> unread = new ArrayList<>();
            for (FleetWorkloads.Cluster c : fleet.clusters()) {
                if (!c.name().equals(only) && c.notRead() != null) {
                    unread.add(c.name() + " (" + c.notRead() + ")");
                }
            }
            String what = m.workload().display();
            if (!unread.isEmpty()) {
                ctx.notChecked(
                        what + " in cluster " + only,
                        "it is marked critical ("
                                + m.why()
                                + ") and runs in cluster "
                                + only
                                + " only among the clusters read, but the workloads of "
                                + String.join(", ", unread)
                                + " are not all known: it may run there too");
                continue;
            }
            String msg =
                    what
                            + " is marked critical ("
                            + m.why()
                            + ") and runs in 1 of the "
                            + names.size()
                            + " clusters scanned: only in "
                            + only
                            + ", not in "
                            + String.join(", ", others)
                            + " (identified across clusters by "
                            + (form.equals(DEFAULT_IDENTITY) ? "namespace, kind and name" : form)
                            + ", --fleet-identity"
                            + "): that one cluster's control plane, etcd or a bad change to it"
                            + " takes the workload down with no other cluster to serve it";
            Finding f =
                    ctx.finding(m.workload().location(), msg)
                            .key("critical in one cluster")
                            .build();
            out.add(f.withTarget(Target.cluster(only)));
        }
        return out;
    }
}
