package dev.deja.rules;

import dev.deja.aws.model.AwsInventory;
import dev.deja.aws.model.AwsK8sLink;
import dev.deja.aws.model.LoadBalancerView;
import dev.deja.aws.model.TargetGroupView;
import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.Snapshot;
import dev.deja.kube.model.KubeInventory;
import dev.deja.kube.model.Service;
import dev.deja.kube.model.Workload;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * When one scan holds both a Kubernetes and an AWS inventory ({@code --cluster --aws}, or a snapshot of both), the
 * AWS findings about a load balancer and the Kubernetes findings about the Service behind it (named by the load
 * balancer's tags) and the workloads that Service selects point at each other through {@code related}: the zone
 * that lost its healthy targets and the ingress Deployment that is not spread over zones are one story (IL-0364).
 * Pure: reads the snapshot, returns new findings.
 */
public final class CrossLinks {
    private CrossLinks() {
    }

    public static List<Finding> apply(Snapshot s, List<Finding> findings) {
        AwsInventory aws = s.part(AwsInventory.class).orElse(null);
        KubeInventory kube = s.part(KubeInventory.class).orElse(null);
        if (aws == null || kube == null) {
            return findings;
        }
        // load balancer ARN -> the Kubernetes objects behind it ("Kind/ns/name")
        Map<String, Set<String>> behind = new LinkedHashMap<>();
        for (LoadBalancerView lb : aws.loadBalancers()) {
            AwsK8sLink.serviceOf(lb).ifPresent(ref -> {
                int slash = ref.indexOf('/');
                if (slash <= 0) {
                    return;
                }
                String ns = ref.substring(0, slash);
                String name = ref.substring(slash + 1);
                for (Service svc : kube.services()) {
                    if (ns.equals(svc.meta().namespace()) && name.equals(svc.meta().name())) {
                        Set<String> objs = behind.computeIfAbsent(lb.arn(), k -> new TreeSet<>());
                        objs.add(key("Service", ns, name, svc.meta().file()));
                        // the workloads this definition of the Service selects (KubeInventory#nearest: a workload
                        // defined in several manifests relates to the Service of its own definition)
                        for (Workload w : kube.workloads()) {
                            if (ns.equals(w.namespace()) && !svc.selector().isEmpty()
                                    && w.podLabels().entrySet().containsAll(svc.selector().entrySet())
                                    && kube.servicesOf(w).contains(svc)) {
                                objs.add(key(w.kind(), ns, w.name(), w.meta().file()));
                            }
                        }
                    }
                }
            });
        }
        if (behind.isEmpty()) {
            return findings;
        }
        Map<Finding, Set<String>> add = new LinkedHashMap<>();
        for (Finding a : findings) {
            if (a.location().arn() == null) {
                continue;
            }
            for (LoadBalancerView lb : loadBalancersOf(aws, a.location().arn())) {
                Set<String> objs = behind.getOrDefault(lb.arn(), Set.of());
                for (Finding k : findings) {
                    Location l = k.location();
                    if (l.arn() == null && l.kind() != null && objs.contains(key(l.kind(), l.namespace(), l.name(), l.file()))) {
                        add.computeIfAbsent(a, x -> new TreeSet<>()).add("Kubernetes finding " + k.ruleId() + " on "
                                + l.kind() + " " + l.namespace() + "/" + l.name());
                        add.computeIfAbsent(k, x -> new TreeSet<>()).add("AWS finding " + a.ruleId() + " on "
                                + lb.label() + " " + lb.name() + " (" + lb.arn() + ")");
                    }
                }
            }
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

    private static List<LoadBalancerView> loadBalancersOf(AwsInventory aws, String arn) {
        var lb = aws.loadBalancer(arn);
        if (lb.isPresent()) {
            return List.of(lb.get());
        }
        for (TargetGroupView tg : aws.targetGroups()) {
            if (tg.arn().equals(arn)) {
                return aws.loadBalancersOf(tg);
            }
        }
        return List.of();
    }

    /** One definition of an object: kind, namespace, name and the manifest it is in (null when read live). */
    private static String key(String kind, String ns, String name, String file) {
        return kind + "/" + ns + "/" + name + (file == null ? "" : "@" + file);
    }
}
