package dev.deja.model.aws;

import dev.deja.engine.Location;
import dev.deja.engine.Snapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Shared traversal for the AWS rules: every network load balancer with each target group it serves,
 * targets counted per enabled zone, the effective cross-zone setting, and how findings name the
 * load balancer and the Kubernetes object behind it.
 */
public final class NlbViews {
    private NlbViews() {}

    /** One network load balancer and one target group that serves it. */
    public record Pair(AwsInventory inventory, LoadBalancerView lb, TargetGroupView tg) {
        /**
         * Cross-zone load balancing as it applies: the group's override, else the load balancer's
         * attribute. Empty when the attributes that decide it could not be read (never assume a
         * default over a denied call).
         */
        public Optional<Boolean> crossZone() {
            String s = tg.crossZoneSetting();
            boolean explicit = "true".equalsIgnoreCase(s) || "false".equalsIgnoreCase(s);
            if (!explicit && (!tg.attributesRead() || !lb.attributesRead())) {
                return Optional.empty();
            }
            return Optional.of(tg.crossZoneEnabled(lb));
        }

        /**
         * Healthy targets per enabled zone of the load balancer, in zone order (zero where none).
         */
        public Map<String, Integer> healthyByZone() {
            Map<String, Integer> m = new LinkedHashMap<>();
            for (String z : lb.zones()) {
                m.put(
                        z,
                        (int)
                                tg.targets().stream()
                                        .filter(t -> t.healthy() && t.inZone(z))
                                        .count());
            }
            return m;
        }

        /** Targets registered in the zone ("all" included), whatever their state. */
        public int registeredIn(String zone) {
            return (int) tg.targets().stream().filter(t -> t.inZone(zone)).count();
        }

        /** Targets in the zone ("all" included), counted by state: "1 unhealthy, 2 unavailable". */
        public String statesIn(String zone) {
            Map<String, Integer> by = new TreeMap<>();
            for (TargetView t : tg.targets()) {
                if (t.inZone(zone)) {
                    by.merge(t.state() == null ? "unknown" : t.state(), 1, Integer::sum);
                }
            }
            if (by.isEmpty()) {
                return "no target registered there";
            }
            List<String> parts = new ArrayList<>();
            by.forEach((k, v) -> parts.add(v + " " + k));
            return String.join(", ", parts);
        }

        public List<TargetView> healthyWithUnknownZone() {
            return tg.targets().stream().filter(t -> t.healthy() && !t.zoneKnown()).toList();
        }

        /**
         * Related entries: the Kubernetes object behind the load balancer, then the target group.
         */
        public List<String> related() {
            List<String> r = new ArrayList<>(AwsK8sLink.related(lb));
            r.add("target group " + tg.name() + " (" + tg.arn() + ")");
            return r;
        }
    }

    public static AwsInventory inventory(Snapshot s) {
        return s.part(AwsInventory.class).orElse(AwsInventory.EMPTY);
    }

    /** Every network load balancer of the snapshot. */
    public static List<LoadBalancerView> networkLoadBalancers(Snapshot s) {
        return inventory(s).loadBalancers().stream().filter(LoadBalancerView::isNetwork).toList();
    }

    /** Every (network load balancer, target group serving it) pair. */
    public static void forEachPair(Snapshot s, Consumer<Pair> each) {
        AwsInventory inv = inventory(s);
        for (LoadBalancerView lb : inv.loadBalancers()) {
            if (!lb.isNetwork()) {
                continue;
            }
            for (TargetGroupView tg : inv.targetGroupsOf(lb)) {
                each.accept(new Pair(inv, lb, tg));
            }
        }
    }

    public static Location location(LoadBalancerView lb) {
        return Location.aws(lb.arn(), lb.name(), lb.region());
    }

    public static Location location(TargetGroupView tg) {
        return Location.aws(tg.arn(), tg.name(), tg.region());
    }

    /** "NLB ingress-nlb (Service ingress-nginx/ingress-nginx-controller)". */
    public static String name(LoadBalancerView lb) {
        return lb.label() + AwsK8sLink.behind(lb);
    }

    /** "1 of 3 zones, about 33% of new connections". */
    public static String share(int zones) {
        return "1 of "
                + zones
                + " zone"
                + (zones == 1 ? "" : "s")
                + ", about "
                + Math.round(100.0 / zones)
                + "% of new connections";
    }

    /** "eu-west-2a 4, eu-west-2b 1, eu-west-2c 0". */
    public static String perZone(Map<String, Integer> m) {
        List<String> parts = new ArrayList<>();
        m.forEach((z, n) -> parts.add(z + " " + n));
        return String.join(", ", parts);
    }

    public static String unknownZoneNote(List<TargetView> targets) {
        List<String> ids = targets.stream().limit(5).map(TargetView::display).toList();
        return targets.size()
                + " healthy target"
                + (targets.size() == 1 ? " has" : "s have")
                + " no known zone ("
                + String.join(", ", ids)
                + (targets.size() > 5 ? ", ..." : "")
                + "): deja does not guess; if one of them is in the zone, that zone is served";
    }
}
