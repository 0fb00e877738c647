package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.Service;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * IL-0364 (UK Ministry of Justice): a Service of type LoadBalancer that becomes an AWS NLB (the
 * in-tree {@code aws-load-balancer-type: nlb}, the AWS Load Balancer Controller's {@code external},
 * or {@code loadBalancerClass: service.k8s.aws/nlb}) without cross-zone load balancing, or with
 * explicit health-check annotations that take more than {@code maxDetectionSeconds} (parameter,
 * default 60s) to mark a target down. Health-check defaults alone do not fire.
 */
public final class NlbServiceSingleZoneRisk extends KubeRule {
    static final String P = "service.beta.kubernetes.io/";
    static final String TYPE = P + "aws-load-balancer-type";
    static final String ATTRS = P + "aws-load-balancer-attributes";
    static final String CROSS_ZONE = P + "aws-load-balancer-cross-zone-load-balancing-enabled";
    static final String INTERVAL = P + "aws-load-balancer-healthcheck-interval";
    static final String UNHEALTHY = P + "aws-load-balancer-healthcheck-unhealthy-threshold";
    static final String MAX_DETECT = "maxDetectionSeconds";
    static final int DEFAULT_INTERVAL = 10;
    static final int DEFAULT_UNHEALTHY = 3;

    @Override
    public String id() {
        return "k8s-nlb-service-single-zone-risk";
    }

    @Override
    public Set<String> kubeKinds() {
        return Set.of("Service");
    }

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (Service s : inv.services()) {
            String how = nlb(s);
            if (how == null) {
                continue;
            }
            if (!crossZone(s)) {
                out.add(noCrossZone(s, how, ctx));
            }
            String iv = s.meta().annotation(INTERVAL);
            String ut = s.meta().annotation(UNHEALTHY);
            if (iv != null || ut != null) {
                Finding slow = slowHealthCheck(s, iv, ut, ctx);
                if (slow != null) {
                    out.add(slow);
                }
            }
        }
        return out;
    }

    /** The finding on NLB Service {@code s} (made one {@code how}) without cross-zone balancing. */
    private static Finding noCrossZone(Service s, String how, RuleContext ctx) {
        String msg =
                s.meta().display()
                        + " becomes an AWS NLB ("
                        + how
                        + ") without cross-zone"
                        + " load balancing: each zone's address sends only to targets in that zone, so when health"
                        + " checking in one zone goes wrong (as it did for the Ministry of Justice), every client"
                        + " resolving to that zone's address times out; neither "
                        + ATTRS
                        + ": load_balancing.cross_zone.enabled=true nor "
                        + CROSS_ZONE
                        + ": \"true\" is set";
        return ctx.finding(s.meta().location(), msg)
                .key("cross-zone")
                .remediation(
                        "Set `"
                                + ATTRS
                                + ": load_balancing.cross_zone.enabled=true` (added to the attributes"
                                + " already listed there, comma-separated).")
                .fix("attributes", crossZoneOn(s.meta().annotation(ATTRS)))
                .build();
    }

    /**
     * The finding on an NLB Service whose health-check annotations ({@code iv}, {@code ut}: the
     * interval's and the unhealthy threshold's, one of them set) take more than {@code
     * maxDetectionSeconds} to mark a target down; null when they do not, or one is not a number.
     */
    private static Finding slowHealthCheck(Service s, String iv, String ut, RuleContext ctx) {
        Integer interval = iv == null ? Integer.valueOf(DEFAULT_INTERVAL) : num(iv);
        Integer threshold = ut == null ? Integer.valueOf(DEFAULT_UNHEALTHY) : num(ut);
        int maxDetect = ctx.intParameter(MAX_DETECT);
        if (interval == null || threshold == null || interval * threshold <= maxDetect) {
            return null;
        }
        String msg =
                s.meta().display()
                        + ": health checks mark a target down only after "
                        + threshold
                        + " failures x "
                        + interval
                        + "s = "
                        + interval * threshold
                        + "s (over "
                        + maxDetect
                        + "s)"
                        + (iv == null ? "; interval " + DEFAULT_INTERVAL + "s is the default" : "")
                        + (ut == null ? "; threshold " + DEFAULT_UNHEALTHY + " is the default" : "")
                        + ": an impaired zone keeps receiving traffic that long";
        return ctx.finding(s.meta().location(), msg)
                .key("health-check")
                .remediation(healthCheckFix(interval, threshold, maxDetect))
                .fix("interval", String.valueOf(fixedInterval(interval, threshold, maxDetect)))
                .fix(
                        "unhealthyThreshold",
                        fixedThreshold(threshold, maxDetect) != threshold
                                ? String.valueOf(fixedThreshold(threshold, maxDetect))
                                : null)
                .build();
    }

    /**
     * Values that bring interval x unhealthy threshold to the limit or under (NLB intervals are 5
     * to 300 s).
     */
    static String healthCheckFix(int interval, int threshold, int maxDetect) {
        int t = fixedThreshold(threshold, maxDetect);
        int i = fixedInterval(interval, threshold, maxDetect);
        return "Set `"
                + INTERVAL
                + ": \""
                + i
                + "\"`"
                + (t != threshold ? " and `" + UNHEALTHY + ": \"" + t + "\"`" : "")
                + " ("
                + t
                + " failures x "
                + i
                + "s = "
                + t * i
                + "s, at most "
                + maxDetect
                + "s).";
    }

    /**
     * The unhealthy threshold the advice gives: at most the limit over the 5 s shortest interval.
     */
    static int fixedThreshold(int threshold, int maxDetect) {
        return Math.max(1, Math.min(threshold, maxDetect / 5));
    }

    /** The interval the advice gives, with {@link #fixedThreshold}. */
    static int fixedInterval(int interval, int threshold, int maxDetect) {
        return Math.max(5, Math.min(interval, maxDetect / fixedThreshold(threshold, maxDetect)));
    }

    /**
     * The attributes annotation with cross-zone load balancing on: the attributes already listed,
     * any cross-zone entry among them replaced.
     */
    static String crossZoneOn(String attrs) {
        StringBuilder sb = new StringBuilder();
        if (attrs != null) {
            for (String kv : attrs.split(",")) {
                String k = kv.split("=", 2)[0].strip();
                if (!k.isEmpty() && !k.equals("load_balancing.cross_zone.enabled")) {
                    sb.append(kv.strip()).append(',');
                }
            }
        }
        return sb.append("load_balancing.cross_zone.enabled=true").toString();
    }

    /** How the Service becomes an NLB, or null when it does not. */
    static String nlb(Service s) {
        if (!s.isLoadBalancer()) {
            return null;
        }
        if ("service.k8s.aws/nlb".equals(s.loadBalancerClass())) {
            return "loadBalancerClass service.k8s.aws/nlb";
        }
        String t = s.meta().annotation(TYPE);
        if (t != null) {
            String v = t.strip().toLowerCase(Locale.ROOT);
            if (v.equals("nlb") || v.equals("external") || v.equals("nlb-ip")) {
                return TYPE + ": " + t.strip();
            }
        }
        return null;
    }

    static boolean crossZone(Service s) {
        String attrs = s.meta().annotation(ATTRS);
        if (attrs != null) {
            for (String kv : attrs.split(",")) {
                String[] p = kv.split("=", 2);
                if (p.length == 2 && p[0].strip().equals("load_balancing.cross_zone.enabled")) {
                    return p[1].strip().equalsIgnoreCase("true");
                }
            }
        }
        String legacy = s.meta().annotation(CROSS_ZONE);
        return legacy != null && legacy.strip().equalsIgnoreCase("true");
    }

    private static Integer num(String s) {
        try {
            return Integer.valueOf(s.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
