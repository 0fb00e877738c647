package dev.deja.rules;

import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.Snapshot;
import dev.deja.engine.Target;
import dev.deja.model.aws.AwsInventory;
import dev.deja.model.aws.AwsK8sLink;
import dev.deja.model.aws.LoadBalancerView;
import dev.deja.model.aws.TargetGroupView;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.Service;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * When a scan holds both a Kubernetes and an AWS inventory ({@code --cluster --aws}, several
 * clusters and accounts, or a snapshot of both), the AWS findings about a load balancer and the
 * Kubernetes findings about the Service behind it (named by the load balancer's tags) and the
 * workloads that Service selects point at each other through {@code related}: the zone that lost
 * its healthy targets and the ingress Deployment that is not spread over zones are one story
 * (IL-0364).
 *
 * <p>With live targets, a load balancer is joined only with a Service of its own cluster: its
 * {@code elbv2.k8s.aws/cluster} tag (or the in-tree {@code kubernetes.io/cluster/NAME} tag) must
 * name the cluster (the context name or {@code --cluster-name}; an EKS context named by the
 * cluster's ARN matches the name after {@code :cluster/}). A load balancer without a cluster tag is
 * joined only when the run read one cluster. Pure: reads small views of the inventories, returns
 * new findings.
 */
public final class CrossLinks {
    private CrossLinks() {}

    /**
     * One snapshot holding both inventories (no targets: every load balancer may name any Service
     * in it).
     */
    public static List<Finding> apply(Snapshot s, List<Finding> findings) {
        AwsInventory aws = s.part(AwsInventory.class).orElse(null);
        KubeInventory kube = s.part(KubeInventory.class).orElse(null);
        if (aws == null || kube == null) {
            return findings;
        }
        return apply(List.of(KubeSide.of(null, kube)), List.of(AwsSide.of(null, aws)), findings);
    }

    /**
     * The Kubernetes side of one cluster, kept after its snapshot is dropped: Service
     * "namespace/name" -> the definitions of the Service and of the workloads it selects
     * ("Kind/ns/name[@file]").
     */
    public record KubeSide(Target target, Map<String, Set<String>> behindService) {
        public static KubeSide of(Target target, KubeInventory kube) {
            Map<String, List<Workload>> byNamespace = new HashMap<>();
            for (Workload w : kube.workloads()) {
                byNamespace.computeIfAbsent(w.namespace(), k -> new ArrayList<>()).add(w);
            }
            Map<String, Set<String>> behind = new HashMap<>();
            for (Service svc : kube.services()) {
                String ns = svc.meta().namespace();
                String name = svc.meta().name();
                Set<String> objs = behind.computeIfAbsent(ns + "/" + name, k -> new TreeSet<>());
                objs.add(key("Service", ns, name, svc.meta().file()));
                if (svc.selector().isEmpty()) {
                    continue;
                }
                // the workloads this definition of the Service selects (KubeInventory#nearest: a
                // workload defined in
                // several manifests relates to the Service of its own definition)
                for (Workload w : byNamespace.getOrDefault(ns, List.of())) {
                    if (w.podLabels().entrySet().containsAll(svc.selector().entrySet())
                            && kube.servicesOf(w).contains(svc)) {
                        objs.add(key(w.kind(), ns, w.name(), w.meta().file()));
                    }
                }
            }
            return new KubeSide(target, Map.copyOf(behind));
        }

        /**
         * Whether a load balancer tagged for {@code tagged} (null: no cluster tag) belongs to this
         * cluster.
         */
        boolean owns(String tagged, int clustersInRun) {
            if (target == null || target.cluster() == null) {
                return true; // a snapshot or manifests: no cluster name to compare
            }
            if (tagged == null) {
                return clustersInRun == 1;
            }
            String c = target.cluster();
            int i = c.lastIndexOf(":cluster/"); // arn:aws:eks:REGION:ACCOUNT:cluster/NAME
            return tagged.equals(c)
                    || c.startsWith("arn:") && i > 0 && tagged.equals(c.substring(i + 9));
        }
    }

    /**
     * The AWS side of one account: its load balancers (with their tags) and target group -> load
     * balancers.
     */
    public record AwsSide(
            Target target,
            List<LoadBalancerView> loadBalancers,
            Map<String, List<String>> lbsOfTargetGroup) {
        public static AwsSide of(Target target, AwsInventory aws) {
            Map<String, List<String>> tg = new HashMap<>();
            for (TargetGroupView t : aws.targetGroups()) {
                tg.put(
                        t.arn(),
                        aws.loadBalancersOf(t).stream().map(LoadBalancerView::arn).toList());
            }
            return new AwsSide(target, List.copyOf(aws.loadBalancers()), Map.copyOf(tg));
        }

        List<LoadBalancerView> loadBalancersOf(String arn) {
            List<LoadBalancerView> out = new ArrayList<>();
            for (LoadBalancerView lb : loadBalancers) {
                if (lb.arn().equals(arn)) {
                    return List.of(lb);
                }
            }
            for (String lbArn : lbsOfTargetGroup.getOrDefault(arn, List.of())) {
                for (LoadBalancerView lb : loadBalancers) {
                    if (lb.arn().equals(lbArn)) {
                        out.add(lb);
                    }
                }
            }
            return out;
        }
    }

    /**
     * Links across every (account, cluster) pair; a finding belongs to the side of its own target.
     */
    public static List<Finding> apply(
            List<KubeSide> clusters, List<AwsSide> accounts, List<Finding> findings) {
        if (clusters.isEmpty() || accounts.isEmpty()) {
            return findings;
        }
        Map<Finding, Set<String>> add = new LinkedHashMap<>();
        for (AwsSide acc : accounts) {
            // load balancer ARN -> the Kubernetes objects behind it, each with the cluster it is in
            Map<String, List<Map.Entry<KubeSide, Set<String>>>> behind = behind(acc, clusters);
            if (behind.isEmpty()) {
                continue;
            }
            for (Finding a : findings) {
                if (a.location().arn() == null || !Objects.equals(a.target(), acc.target())) {
                    continue;
                }
                for (LoadBalancerView lb : acc.loadBalancersOf(a.location().arn())) {
                    for (Map.Entry<KubeSide, Set<String>> side :
                            behind.getOrDefault(lb.arn(), List.of())) {
                        for (Finding k : findings) {
                            Location l = k.location();
                            if (l.arn() == null
                                    && l.kind() != null
                                    && Objects.equals(k.target(), side.getKey().target())
                                    && side.getValue()
                                            .contains(
                                                    key(
                                                            l.kind(),
                                                            l.namespace(),
                                                            l.name(),
                                                            l.file()))) {
                                link(add, a, k, lb);
                            }
                        }
                    }
                }
            }
        }
        return withLinks(findings, add);
    }

    /** Per load balancer ARN of the account, the Kubernetes objects behind it and their cluster. */
    private static Map<String, List<Map.Entry<KubeSide, Set<String>>>> behind(
            AwsSide acc, List<KubeSide> clusters) {
        Map<String, List<Map.Entry<KubeSide, Set<String>>>> behind = new LinkedHashMap<>();
        for (LoadBalancerView lb : acc.loadBalancers()) {
            String ref = AwsK8sLink.serviceOf(lb).orElse(null);
            if (ref == null || ref.indexOf('/') <= 0) {
                continue;
            }
            String tagged = AwsK8sLink.clusterOf(lb).orElse(null);
            for (KubeSide k : clusters) {
                Set<String> objs = k.behindService().get(ref);
                if (objs != null && k.owns(tagged, clusters.size())) {
                    behind.computeIfAbsent(lb.arn(), x -> new ArrayList<>())
                            .add(Map.entry(k, objs));
                }
            }
        }
        return behind;
    }

    /** Links AWS finding a and Kubernetes finding k, each naming the other, through lb. */
    private static void link(
            Map<Finding, Set<String>> add, Finding a, Finding k, LoadBalancerView lb) {
        Location l = k.location();
        String where =
                k.target() == null || k.target().cluster() == null
                        ? ""
                        : " in cluster " + k.target().cluster();
        add.computeIfAbsent(a, x -> new TreeSet<>())
                .add(
                        "Kubernetes finding "
                                + k.ruleId()
                                + " on "
                                + l.kind()
                                + " "
                                + l.namespace()
                                + "/"
                                + l.name()
                                + where);
        add.computeIfAbsent(k, x -> new TreeSet<>())
                .add(
                        "AWS finding "
                                + a.ruleId()
                                + " on "
                                + lb.label()
                                + " "
                                + lb.name()
                                + " ("
                                + lb.arn()
                                + ")");
    }

    /** The findings with the links of add appended to their related, in order; findings if none. */
    private static List<Finding> withLinks(List<Finding> findings, Map<Finding, Set<String>> add) {
        if (add.isEmpty()) {
            return findings;
        }
        List<Finding> out = new ArrayList<>(findings.size());
        for (Finding f : findings) {
            Set<String> extra = add.get(f);
            if (extra == null) {
                out.add(f);
            } else {
                List<String> rel = new ArrayList<>(f.related());
                extra.stream().filter(e -> !rel.contains(e)).forEach(rel::add);
                out.add(f.withRelated(rel));
            }
        }
        return out;
    }

    /**
     * One definition of an object: kind, namespace, name and the manifest it is in (null when read
     * live).
     */
    private static String key(String kind, String ns, String name, String file) {
        return kind + "/" + ns + "/" + name + (file == null ? "" : "@" + file);
    }
}
