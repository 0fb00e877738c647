package dev.deja.model.aws;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What deja read from AWS: the ELBv2 load balancers and target groups of every scanned region, with
 * target health and the zone of each target. Immutable views only, no AWS SDK types, so rules and
 * snapshots never load the SDK. Both lists are sorted by region then ARN, so a scan and its saved
 * snapshot give the same findings in the same order.
 */
public record AwsInventory(
        List<LoadBalancerView> loadBalancers, List<TargetGroupView> targetGroups) {

    public AwsInventory {
        List<LoadBalancerView> lbs = new ArrayList<>(loadBalancers);
        lbs.sort(
                Comparator.comparing(LoadBalancerView::region)
                        .thenComparing(LoadBalancerView::arn));
        List<TargetGroupView> tgs = new ArrayList<>(targetGroups);
        tgs.sort(Comparator.comparing(TargetGroupView::region).thenComparing(TargetGroupView::arn));
        loadBalancers = List.copyOf(lbs);
        targetGroups = List.copyOf(tgs);
    }

    public static final AwsInventory EMPTY = new AwsInventory(List.of(), List.of());

    public Optional<LoadBalancerView> loadBalancer(String arn) {
        return loadBalancers.stream().filter(l -> l.arn().equals(arn)).findFirst();
    }

    /** The target groups that serve the load balancer (their {@code LoadBalancerArns} name it). */
    public List<TargetGroupView> targetGroupsOf(LoadBalancerView lb) {
        return targetGroups.stream().filter(t -> t.loadBalancerArns().contains(lb.arn())).toList();
    }

    /** The load balancers a target group serves, as far as they were read. */
    public List<LoadBalancerView> loadBalancersOf(TargetGroupView tg) {
        Map<String, LoadBalancerView> byArn = new LinkedHashMap<>();
        loadBalancers.forEach(l -> byArn.put(l.arn(), l));
        List<LoadBalancerView> out = new ArrayList<>();
        for (String a : tg.loadBalancerArns()) {
            LoadBalancerView l = byArn.get(a);
            if (l != null) {
                out.add(l);
            }
        }
        return out;
    }

    /** Merges the inventories of several regions (or snapshot files). */
    public AwsInventory plus(AwsInventory other) {
        List<LoadBalancerView> lbs = new ArrayList<>(loadBalancers);
        lbs.addAll(other.loadBalancers);
        List<TargetGroupView> tgs = new ArrayList<>(targetGroups);
        tgs.addAll(other.targetGroups);
        return new AwsInventory(lbs, tgs);
    }
}
