package dev.deja.engine;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which Kubernetes kinds a snapshot read from a cluster lacks: listed but denied or failed, or
 * never listed (a snapshot taken with other {@code --rules}). A rule that needs such a kind is not
 * run, since its findings would rest on objects that are missing rather than absent (e.g. "no
 * PodDisruptionBudget selects its pods" when the PodDisruptionBudgets could not be read). Manifests
 * are not concerned: what a file does not hold, it does not have.
 */
public final class UnreadKinds {
    /**
     * The scopes of the live Kubernetes source: "Deployment in all namespaces", "IngressClass
     * (cluster-scoped)".
     */
    private static final Pattern LIVE =
            Pattern.compile(
                    "([A-Z][A-Za-z]+) (?:in all namespaces|in namespace \\S+|\\(cluster-scoped\\))(?: \\(saved in .+\\))?");

    /**
     * A list of a saved snapshot that could not be used (deja scan --allow-partial s.json):
     * "workloads (Deployment, StatefulSet, DaemonSet) of snapshot s.json"; the whole Kubernetes
     * part: "kubernetes part of snapshot s.json" (dev.deja.snapshot.KubeSnapshotCodec,
     * dev.deja.snapshot.SnapshotFile).
     */
    private static final Pattern SNAPSHOT_LIST =
            Pattern.compile("\\S+ \\(((?:[A-Z][A-Za-z]+, )*[A-Z][A-Za-z]+)\\) of snapshot .+");

    private static final Pattern SNAPSHOT_PART = Pattern.compile("kubernetes part of snapshot .+");

    private final boolean live;

    /**
     * Why every kind is unread (the snapshot's whole Kubernetes part could not be used), or null.
     */
    private String allUnread;

    /** Manifests were read too: a kind the cluster part never listed may come from them. */
    private final boolean manifests;

    private final Set<String> listed = new LinkedHashSet<>();
    private final Map<String, String> unread = new TreeMap<>();

    /**
     * Namespaces given with -n that could not be read (404: "namespace X does not exist"): nothing
     * was listed there.
     */
    private final Set<String> unreadNamespaces = new LinkedHashSet<>();

    private static final Pattern NAMESPACE = Pattern.compile("namespace (\\S+)");

    UnreadKinds(Coverage coverage) {
        boolean any = false;
        boolean manifests = false;
        for (Coverage.Entry e : coverage.entries()) {
            Matcher m = LIVE.matcher(e.scope());
            if (!e.source().equals("kubernetes")) {
                continue;
            }
            boolean unusable =
                    e.status() == Coverage.Status.DENIED || e.status() == Coverage.Status.FAILED;
            if (unusable && e.scope().equals(Coverage.whole("kubernetes"))) {
                // the source failed as a whole (the API server unreachable, the kubeconfig
                // refused): no kind was read, whatever the rules selected
                if (allUnread == null) {
                    allUnread = "the cluster could not be read";
                }
                continue;
            }
            Matcher list = SNAPSHOT_LIST.matcher(e.scope());
            if (list.matches()) { // never read, so it says nothing of what the cluster holds
                if (unusable) {
                    for (String kind : list.group(1).split(", ")) {
                        unread.putIfAbsent(kind, e.scope() + " could not be read");
                    }
                }
                continue;
            }
            if (SNAPSHOT_PART.matcher(e.scope()).matches()) {
                if (unusable && allUnread == null) {
                    allUnread = e.scope() + " could not be read";
                }
                continue;
            }
            if (!m.matches()) {
                Matcher ns = NAMESPACE.matcher(e.scope());
                if (ns.matches()
                        && (e.status() == Coverage.Status.DENIED
                                || e.status() == Coverage.Status.FAILED)) {
                    unreadNamespaces.add(ns.group(1));
                    any = true;
                    continue;
                }
                manifests |=
                        e.status() == Coverage.Status.READ; // a manifest file: it may hold any kind
                continue;
            }
            any = true;
            listed.add(m.group(1));
            if (e.status() == Coverage.Status.DENIED || e.status() == Coverage.Status.FAILED) {
                unread.putIfAbsent(m.group(1), e.scope() + " could not be read");
            }
        }
        live = any;
        this.manifests = manifests;
    }

    /**
     * Why a view of these kinds built from a snapshot with this coverage would rest on missing
     * objects ("not run: it needs Deployment and Deployment in all namespaces could not be read"),
     * or null when they were read (or come from manifests). For views kept past their snapshot (a
     * fleet scan's per-cluster workloads).
     */
    public static String whyNotRead(Coverage coverage, Set<String> kinds) {
        return new UnreadKinds(coverage).whyNot(kinds);
    }

    /** Why the rule cannot run on this snapshot, or null when it can. */
    String whyNot(Rule rule) {
        return whyNot(rule.kubeKinds());
    }

    private String whyNot(Set<String> kinds) {
        if (!live && unread.isEmpty() && allUnread == null) {
            return null;
        }
        for (String kind : new TreeSet<>(kinds)) {
            if (allUnread != null) {
                return "not run: it needs " + kind + " and " + allUnread;
            }
            if (unread.containsKey(kind)) {
                return "not run: it needs " + kind + " and " + unread.get(kind);
            }
            if (!live) {
                continue;
            }
            if (!listed.contains(kind) && !manifests && !unreadNamespaces.isEmpty()) {
                return "not run: it needs "
                        + kind
                        + ", and none was listed (namespace "
                        + String.join(", ", unreadNamespaces)
                        + " could not be read)";
            }
            if (!listed.contains(kind) && !manifests) {
                return "not run: it needs "
                        + kind
                        + ", which this snapshot of the cluster does not hold (taken with"
                        + " other rules selected)";
            }
        }
        return null;
    }
}
