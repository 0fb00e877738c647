package dev.deja.rules.aws;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.Catalog;
import dev.deja.engine.Finding;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Settings;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.model.aws.AwsInventory;
import dev.deja.model.aws.LoadBalancerView;
import dev.deja.model.aws.TargetGroupView;
import dev.deja.model.aws.TargetView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The AWS rules on hand-built inventories (a snapshot that holds only the inventory). */
class AwsRulesTest {
    static final String A = "eu-west-2a";
    static final String B = "eu-west-2b";
    static final String C = "eu-west-2c";

    static LoadBalancerView nlb(Map<String, String> attrs, boolean attrsRead, String... zones) {
        return new LoadBalancerView(
                "arn:aws:elasticloadbalancing:eu-west-2:1:loadbalancer/net/n/1",
                "n",
                "network",
                "internal",
                "eu-west-2",
                "vpc-1",
                List.of(zones),
                attrs,
                attrsRead,
                Map.of("service.k8s.aws/stack", "ingress-nginx/ingress-nginx-controller"),
                "n-1.elb.eu-west-2.amazonaws.com");
    }

    static TargetGroupView tg(
            LoadBalancerView lb,
            Map<String, String> attrs,
            List<TargetView> targets,
            int interval,
            int timeout,
            int unhealthy) {
        return new TargetGroupView(
                "arn:aws:elasticloadbalancing:eu-west-2:1:targetgroup/t/1",
                "t",
                "eu-west-2",
                "TCP",
                80,
                "ip",
                "vpc-1",
                new TargetGroupView.HealthCheck(
                        true, "TCP", "traffic-port", interval, timeout, 3, unhealthy),
                attrs,
                true,
                lb == null ? List.of() : List.of(lb.arn()),
                targets,
                null,
                null);
    }

    static List<TargetView> healthy(String zone, int n) {
        List<TargetView> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(
                    new TargetView(
                            "10.0." + zone.charAt(zone.length() - 1) + "." + i,
                            80,
                            zone,
                            "subnet",
                            "healthy",
                            null,
                            null));
        }
        return out;
    }

    @SafeVarargs
    static List<TargetView> concat(List<TargetView>... parts) {
        List<TargetView> out = new ArrayList<>();
        for (List<TargetView> p : parts) {
            out.addAll(p);
        }
        return out;
    }

    static List<Finding> run(
            Rule rule, Settings settings, LoadBalancerView lb, TargetGroupView... tgs) {
        Snapshot snap =
                Snapshot.of(new AwsInventory(lb == null ? List.of() : List.of(lb), List.of(tgs)));
        return rule.check(
                snap, new RuleContext(Catalog.packaged().rule(rule.id()).orElseThrow(), settings));
    }

    static List<Finding> run(Rule rule, LoadBalancerView lb, TargetGroupView... tgs) {
        return run(rule, Settings.EMPTY, lb, tgs);
    }

    @Test
    void unevenZonesShowTheRatio() {
        LoadBalancerView lb = nlb(Map.of(), true, A, B, C);
        TargetGroupView t =
                tg(lb, Map.of(), concat(healthy(A, 4), healthy(B, 1), healthy(C, 2)), 10, 5, 3);
        List<Finding> f = run(new NlbCrossZoneOffUneven(), lb, t);
        assertEquals(1, f.size());
        assertTrue(
                f.get(0)
                        .message()
                        .contains(
                                "(eu-west-2a 4, eu-west-2b 1, eu-west-2c 2): each target in eu-west-2b"
                                        + " takes 4x the load of one in eu-west-2a"),
                f.get(0).message());
        assertTrue(
                f.get(0)
                        .message()
                        .contains("load_balancing.cross_zone.enabled=false (AWS default)"),
                f.get(0).message());
        assertEquals(
                List.of(
                        "Service ingress-nginx/ingress-nginx-controller",
                        "target group t (arn:aws:elasticloadbalancing:eu-west-2:1:targetgroup/t/1)"),
                f.get(0).related());
        // exactly twice is still even enough
        TargetGroupView twice =
                tg(lb, Map.of(), concat(healthy(A, 4), healthy(B, 2), healthy(C, 3)), 10, 5, 3);
        assertEquals(List.of(), run(new NlbCrossZoneOffUneven(), lb, twice));
    }

    @Test
    void targetGroupOverrideDecidesCrossZone() {
        LoadBalancerView off = nlb(Map.of(), true, A, B);
        LoadBalancerView on = nlb(Map.of("load_balancing.cross_zone.enabled", "true"), true, A, B);
        List<TargetView> onlyA = healthy(A, 2);
        assertEquals(
                1,
                run(new NlbZoneWithoutHealthyTarget(), off, tg(off, Map.of(), onlyA, 10, 5, 3))
                        .size());
        assertEquals(
                0,
                run(
                                new NlbZoneWithoutHealthyTarget(),
                                off,
                                tg(
                                        off,
                                        Map.of("load_balancing.cross_zone.enabled", "true"),
                                        onlyA,
                                        10,
                                        5,
                                        3))
                        .size());
        assertEquals(
                0,
                run(new NlbZoneWithoutHealthyTarget(), on, tg(on, Map.of(), onlyA, 10, 5, 3))
                        .size());
        List<Finding> f =
                run(
                        new NlbZoneWithoutHealthyTarget(),
                        on,
                        tg(
                                on,
                                Map.of("load_balancing.cross_zone.enabled", "false"),
                                onlyA,
                                10,
                                5,
                                3));
        assertEquals(1, f.size());
        assertTrue(
                f.get(0)
                        .message()
                        .contains(
                                "zone eu-west-2b has no healthy target of target group t (no target"
                                        + " registered there) and cross-zone load balancing is off (target group t sets"
                                        + " load_balancing.cross_zone.enabled=false): clients that resolve the zone's address (1 of 2 zones,"
                                        + " about 50% of new connections) fail"),
                f.get(0).message());
        assertEquals(Severity.HIGH, f.get(0).severity());
    }

    @Test
    void unreadAttributesAreNotAssumedButAnExplicitOverrideStillCounts() {
        LoadBalancerView unknown = nlb(Map.of(), false, A, B);
        List<TargetView> onlyA = healthy(A, 2);
        assertEquals(
                0,
                run(
                                new NlbZoneWithoutHealthyTarget(),
                                unknown,
                                tg(unknown, Map.of(), onlyA, 10, 5, 3))
                        .size());
        assertEquals(0, run(new NlbZonalShiftDisabled(), unknown).size());
        assertEquals(
                1,
                run(
                                new NlbZoneWithoutHealthyTarget(),
                                unknown,
                                tg(
                                        unknown,
                                        Map.of("load_balancing.cross_zone.enabled", "false"),
                                        onlyA,
                                        10,
                                        5,
                                        3))
                        .size());
    }

    @Test
    void targetsOutsideTheVpcServeEveryZoneAndUnknownZonesAreSaidNotGuessed() {
        LoadBalancerView lb = nlb(Map.of(), true, A, B);
        TargetView all = new TargetView("192.168.9.9", 80, "all", "target", "healthy", null, null);
        assertEquals(
                0,
                run(new NlbZoneWithoutHealthyTarget(), lb, tg(lb, Map.of(), List.of(all), 10, 5, 3))
                        .size());
        TargetView unknown = new TargetView("i-0gone", 80, null, "unknown", "healthy", null, null);
        List<Finding> f =
                run(
                        new NlbZoneWithoutHealthyTarget(),
                        lb,
                        tg(lb, Map.of(), concat(healthy(A, 1), List.of(unknown)), 10, 5, 3));
        assertEquals(1, f.size());
        assertEquals(Severity.MEDIUM, f.get(0).severity());
        assertTrue(
                f.get(0)
                        .notes()
                        .get(0)
                        .startsWith(
                                "1 healthy target has no known zone (i-0gone:80): deja does not"
                                        + " guess"),
                f.get(0).notes().toString());
        TargetView unavailable =
                new TargetView(
                        "i-0x", 80, null, "unknown", "unavailable", "Elb.InternalError", null);
        List<Finding> u =
                run(
                        new NlbZoneHealthUnreported(),
                        lb,
                        tg(lb, Map.of(), List.of(unavailable), 10, 5, 3));
        assertEquals(1, u.size());
        assertTrue(
                u.get(0).message().contains("1 of 1 targets whose zone could not be read"),
                u.get(0).message());
    }

    @Test
    void zonalShiftNeedsTwoZonesAndANetworkLoadBalancer() {
        assertEquals(0, run(new NlbZonalShiftDisabled(), nlb(Map.of(), true, A)).size());
        assertEquals(
                0,
                run(
                                new NlbZonalShiftDisabled(),
                                nlb(Map.of("zonal_shift.config.enabled", "true"), true, A, B))
                        .size());
        LoadBalancerView alb =
                new LoadBalancerView(
                        "arn:alb",
                        "a",
                        "application",
                        "internal",
                        "eu-west-2",
                        "vpc-1",
                        List.of(A, B),
                        Map.of(),
                        true,
                        Map.of(),
                        null);
        assertEquals(0, run(new NlbZonalShiftDisabled(), alb).size());
        List<Finding> f =
                run(
                        new NlbZonalShiftDisabled(),
                        nlb(Map.of("load_balancing.cross_zone.enabled", "true"), true, A, B));
        assertEquals(1, f.size());
        assertTrue(
                f.get(0).message().contains("its targets keep receiving traffic from every zone"),
                f.get(0).message());
    }

    @Test
    void slowDetectionThresholdsAndSetting() {
        LoadBalancerView lb = nlb(Map.of(), true, A, B);
        List<TargetView> t = healthy(A, 1);
        assertEquals(
                0,
                run(new TgHealthCheckSlowDetection(), lb, tg(lb, Map.of(), t, 30, 10, 2))
                        .size()); // 60 s
        List<Finding> low =
                run(new TgHealthCheckSlowDetection(), lb, tg(lb, Map.of(), t, 31, 10, 2));
        assertEquals(List.of(Severity.LOW), low.stream().map(Finding::severity).toList());
        assertTrue(
                low.get(0).message().contains("31 x 2 = 62 s (limit 60 s)"), low.get(0).message());
        List<Finding> med =
                run(new TgHealthCheckSlowDetection(), lb, tg(lb, Map.of(), t, 30, 10, 6));
        assertEquals(List.of(Severity.MEDIUM), med.stream().map(Finding::severity).toList());
        // a team's own limit (deja.yaml rules: {aws-tg-health-check-slow-detection:
        // {maxDetectionSeconds: 20}})
        List<Finding> tuned =
                run(
                        new TgHealthCheckSlowDetection(),
                        new Settings(
                                Map.of(
                                        RuleContext.parameterKey(
                                                TgHealthCheckSlowDetection.ID,
                                                "maxDetectionSeconds"),
                                        "20")),
                        lb,
                        tg(lb, Map.of(), t, 10, 5, 3));
        assertEquals(1, tuned.size());
        assertTrue(tuned.get(0).message().contains("(limit 20 s)"), tuned.get(0).message());
        assertEquals(
                List.of(
                        "judged with maxDetectionSeconds 20 (default 60), as set in the configuration"),
                tuned.get(0).notes());
        List<Finding> timeout =
                run(new TgHealthCheckSlowDetection(), lb, tg(lb, Map.of(), t, 10, 10, 3));
        assertEquals(1, timeout.size());
        assertTrue(
                timeout.get(0)
                        .message()
                        .contains("waits 10 s for a health-check answer but checks every 10 s"));
        assertEquals(
                List.of(
                        "NLB n (arn:aws:elasticloadbalancing:eu-west-2:1:loadbalancer/net/n/1)",
                        "Service ingress-nginx/ingress-nginx-controller"),
                timeout.get(0).related());
    }

    @Test
    void healthUnavailableNamesEveryZone() {
        LoadBalancerView lb = nlb(Map.of(), true, A, B, C);
        TargetGroupView t =
                new TargetGroupView(
                        "arn:tg",
                        "t",
                        "eu-west-2",
                        "TCP",
                        80,
                        "ip",
                        "vpc-1",
                        null,
                        Map.of(),
                        true,
                        List.of(lb.arn()),
                        List.of(),
                        "HealthUnavailable",
                        "internal error");
        List<Finding> f = run(new NlbZoneHealthUnreported(), lb, t);
        assertEquals(1, f.size());
        assertTrue(
                f.get(0)
                        .message()
                        .contains(
                                "fails with HealthUnavailable (internal error): the load balancer reports"
                                        + " no health for its targets in any of its 3 zones (eu-west-2a, eu-west-2b, eu-west-2c)"),
                f.get(0).message());
        assertEquals(Severity.CRITICAL, f.get(0).severity());
        // other rules do not read an unknown target list as "no targets"
        assertEquals(0, run(new NlbZoneWithoutHealthyTarget(), lb, t).size());
        assertEquals(0, run(new NlbCrossZoneOffUneven(), lb, t).size());
    }
}
