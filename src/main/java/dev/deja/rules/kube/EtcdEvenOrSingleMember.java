package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.Container;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.Pod;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * IL-0072 (Nordstrom's control plane lost its etcd): an etcd cluster of an even number of members,
 * or of a single one, where deja sees its size. Static pods (kubeadm's {@code
 * /etc/kubernetes/manifests/etcd.yaml} as a file, or their mirror pods in a live cluster's
 * kube-system): the members named by {@code --initial-cluster} across the etcd pods of the scan,
 * pods whose lists share a member counted as one cluster (kubeadm's first control-plane node lists
 * itself only; each node that joins later lists the members up to itself). A StatefulSet running
 * etcd: its replicas (Kubernetes' default 1 when unset). etcd's FAQ: a majority of n members is
 * n/2+1, so an even size tolerates no more failures than one member fewer, and one member tolerates
 * none.
 */
public final class EtcdEvenOrSingleMember extends KubeRule {
    /** At most this many members read from one --initial-cluster (etcd advises at most 7). */
    static final int MAX_MEMBERS = 1000;

    @Override
    public String id() {
        return "k8s-etcd-even-or-single-member";
    }

    /**
     * StatefulSets, and Pods: static pod manifests given as files, or in a live cluster etcd's
     * static pods (their mirror pods), which the collector lists in kube-system only, by kubeadm's
     * labels component=etcd, tier=control-plane.
     */
    @Override
    public Set<String> kubeKinds() {
        return Set.of("StatefulSet", "Pod");
    }

    /** One etcd cluster seen through static pods: its member names and the pods naming them. */
    private record Group(TreeSet<String> members, List<Pod> pods, List<String> states) {}

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (Group g : groups(inv)) {
            Finding f = staticPods(g, ctx);
            if (f != null) {
                out.add(f);
            }
        }
        statefulSets(inv, ctx, out);
        return out;
    }

    /**
     * The static etcd pods of the scan grouped by the members they list: pods whose
     * --initial-cluster share a member are one cluster.
     */
    private static List<Group> groups(KubeInventory inv) {
        List<Group> groups = new ArrayList<>();
        for (Pod p : inv.pods()) {
            for (Container c : p.containers()) {
                if (!isEtcd(c)) {
                    continue;
                }
                TreeSet<String> names = members(c.flag("--initial-cluster"));
                if (names.isEmpty()) {
                    continue; // no --initial-cluster deja can read (unset, or from an env var)
                }
                String state = c.flag("--initial-cluster-state");
                Group merged =
                        new Group(
                                names,
                                new ArrayList<>(List.of(p)),
                                new ArrayList<>(List.of(state == null ? "new" : state)));
                for (int i = groups.size() - 1; i >= 0; i--) {
                    Group g = groups.get(i);
                    if (g.members().stream().anyMatch(names::contains)) {
                        merged.members().addAll(g.members());
                        merged.pods().addAll(0, g.pods());
                        merged.states().addAll(0, g.states());
                        groups.remove(i);
                    }
                }
                groups.add(merged);
                break;
            }
        }
        return groups;
    }

    /** The finding on one cluster of static pods, or null when its member count is odd. */
    private static Finding staticPods(Group g, RuleContext ctx) {
        int n = g.members().size();
        if (n % 2 == 1 && n > 1) {
            return null;
        }
        Pod at = g.pods().get(0);
        String seen =
                g.pods().size() == 1
                        ? "the static pod "
                                + (at.meta().namespace() == null ? "" : at.meta().namespace() + "/")
                                + at.meta().name()
                        : "the " + g.pods().size() + " static pods of the scan";
        String msg =
                (n == 1
                                ? "etcd runs a single member ("
                                        + g.members().first()
                                        + " in --initial-cluster of "
                                        + seen
                                        + ")"
                                : "etcd has an even number of members, "
                                        + n
                                        + " ("
                                        + String.join(", ", g.members())
                                        + " in --initial-cluster of "
                                        + seen
                                        + ")")
                        + ": "
                        + quorum(n)
                        + (n == 1 && !g.states().contains("existing")
                                ? "; if other members joined it later (kubeadm join"
                                        + " --control-plane), scan their manifests with it:"
                                        + " each lists the members up to itself"
                                : "");
        return ctx.finding(at.meta().location(), msg)
                .key(n == 1 ? "single member" : "even members")
                .build();
    }

    /** Findings on StatefulSets that run etcd with an even number (or one) of replicas. */
    private static void statefulSets(KubeInventory inv, RuleContext ctx, List<Finding> out) {
        for (Workload w : inv.workloads()) {
            if (!w.kind().equals("StatefulSet")
                    || w.containers().stream().noneMatch(EtcdEvenOrSingleMember::isEtcd)) {
                continue;
            }
            int n = w.replicas() == null ? 1 : w.replicas();
            if (n < 1 || n % 2 == 1 && n > 1) {
                continue; // 0: scaled to nothing, not an etcd cluster to judge
            }
            String msg =
                    w.meta().display()
                            + " runs etcd with "
                            + (w.replicas() == null
                                    ? "1 replica (replicas unset: Kubernetes' default)"
                                    : n + (n == 1 ? " replica" : " replicas"))
                            + (n == 1 ? ", a single member" : ", an even number of members")
                            + ": "
                            + quorum(n);
            out.add(
                    ctx.finding(w.meta().at(w.replicasLine()), msg)
                            .key(n == 1 ? "single member" : "even members")
                            .fix("replicas", n < 3 ? 3L : n + 1L)
                            .build());
        }
    }

    /** What etcd's FAQ table gives for n members. */
    static String quorum(int n) {
        int majority = n / 2 + 1;
        int tolerance = n - majority;
        if (n == 1) {
            return "a majority of 1 member is 1, so it tolerates no failed member: one slow or lost"
                    + " disk or node stops every write of the cluster (etcd FAQ: failure tolerance"
                    + " 0 for 1 member; run 3 or 5)";
        }
        return "a majority of "
                + n
                + " members is "
                + majority
                + ", so it tolerates "
                + tolerance
                + " failed "
                + (tolerance == 1 ? "member" : "members")
                + ", no more than "
                + (n - 1)
                + (n - 1 == 1 ? " member" : " members")
                + " would, and a network split in halves leaves no side with a majority"
                + " (etcd FAQ: an odd number of members; run "
                + (n - 1 >= 3 ? (n - 1) + " or " + (n + 1) : String.valueOf(n + 1))
                + ")";
    }

    /**
     * Whether a container runs etcd: its command (or first argument) is etcd, or its image is an
     * etcd image (the last path segment of the repository is "etcd": registry.k8s.io/etcd,
     * quay.io/coreos/etcd, bitnami/etcd).
     */
    static boolean isEtcd(Container c) {
        List<String> argv = c.argv();
        if (!argv.isEmpty()) {
            String cmd = argv.get(0);
            String base = cmd.substring(cmd.lastIndexOf('/') + 1);
            if (base.equals("etcd")) {
                return true;
            }
        }
        String image = c.image() == null ? "" : c.image();
        int at = image.indexOf('@');
        String repo = at >= 0 ? image.substring(0, at) : image;
        int colon = repo.lastIndexOf(':');
        if (colon > repo.lastIndexOf('/')) {
            repo = repo.substring(0, colon);
        }
        return repo.substring(repo.lastIndexOf('/') + 1).equals("etcd");
    }

    /**
     * The member names of an --initial-cluster value ("cp1=https://10.0.0.1:2380,cp2=..."; a name
     * may appear with several URLs); empty when unset or not a literal (an environment variable).
     */
    static TreeSet<String> members(String initialCluster) {
        TreeSet<String> names = new TreeSet<>();
        if (initialCluster == null || initialCluster.contains("$")) {
            return names;
        }
        String[] parts = initialCluster.split(",", MAX_MEMBERS + 1);
        for (int i = 0; i < Math.min(parts.length, MAX_MEMBERS); i++) {
            int eq = parts[i].indexOf('=');
            if (eq > 0) {
                names.add(parts[i].substring(0, eq).strip());
            }
        }
        return names;
    }
}
