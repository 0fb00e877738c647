package dev.deja.model.aws;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One ELBv2 target group with its health check, attributes, the load balancers it serves and the
 * health of its targets. {@code healthErrorCode}/{@code healthErrorMessage} are set when
 * DescribeTargetHealth failed for this group (e.g. {@code HealthUnavailable}); {@code targets} is
 * then empty and says nothing about the targets. {@code attributesRead} is false when
 * DescribeTargetGroupAttributes was denied or failed.
 */
public record TargetGroupView(
        String arn,
        String name,
        String region,
        String protocol,
        Integer port,
        String targetType,
        String vpcId,
        HealthCheck healthCheck,
        Map<String, String> attributes,
        boolean attributesRead,
        List<String> loadBalancerArns,
        List<TargetView> targets,
        String healthErrorCode,
        String healthErrorMessage) {

    public static final String CROSS_ZONE = "load_balancing.cross_zone.enabled";
    public static final String USE_LB = "use_load_balancer_configuration";

    public TargetGroupView {
        attributes = Collections.unmodifiableMap(new TreeMap<>(attributes));
        loadBalancerArns = List.copyOf(loadBalancerArns);
        targets = List.copyOf(targets);
    }

    /**
     * The health-check settings as returned by DescribeTargetGroups (null fields: not returned).
     */
    public record HealthCheck(
            Boolean enabled,
            String protocol,
            String port,
            Integer intervalSeconds,
            Integer timeoutSeconds,
            Integer healthyThreshold,
            Integer unhealthyThreshold) {}

    /** Whether target health was read (false when DescribeTargetHealth failed or was denied). */
    public boolean healthRead() {
        return healthErrorCode == null;
    }

    /**
     * The target group's cross-zone setting: true, false or use_load_balancer_configuration (the
     * default).
     */
    public String crossZoneSetting() {
        String v = attributes.get(CROSS_ZONE);
        return v == null ? USE_LB : v;
    }

    /**
     * Cross-zone load balancing as it applies to this group behind {@code lb}: the override, else
     * the LB's.
     */
    public boolean crossZoneEnabled(LoadBalancerView lb) {
        String s = crossZoneSetting();
        if ("true".equalsIgnoreCase(s)) {
            return true;
        }
        if ("false".equalsIgnoreCase(s)) {
            return false;
        }
        return lb.crossZoneEnabled();
    }

    /** Where the effective cross-zone value comes from, for messages. */
    public String crossZoneOrigin(LoadBalancerView lb) {
        String s = crossZoneSetting();
        if ("true".equalsIgnoreCase(s) || "false".equalsIgnoreCase(s)) {
            return "target group " + name + " sets " + CROSS_ZONE + "=" + s;
        }
        return lb.label()
                + " has "
                + LoadBalancerView.CROSS_ZONE
                + "="
                + lb.attribute(LoadBalancerView.CROSS_ZONE)
                + (lb.isDefault(LoadBalancerView.CROSS_ZONE) ? " (AWS default)" : "")
                + " and target group "
                + name
                + " uses the load balancer's setting";
    }
}
