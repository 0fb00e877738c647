package dev.deja.model.aws;

import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * One ELBv2 load balancer. {@code type} is the API's {@code Type} field (network, application,
 * gateway), never guessed from the ARN. {@code zones} are the enabled Availability Zone names.
 * {@code attributes} are exactly what DescribeLoadBalancerAttributes returned; {@link
 * #attribute(String)} applies AWS's documented defaults for missing keys. {@code attributesRead} is
 * false when that call was denied or failed: the attributes are then unknown, and rules that depend
 * on them say nothing rather than assume the defaults. {@code dnsName} is the load balancer's DNS
 * name, which a Kubernetes Service of type LoadBalancer shows in {@code
 * status.loadBalancer.ingress[].hostname}.
 */
public record LoadBalancerView(
        String arn,
        String name,
        String type,
        String scheme,
        String region,
        String vpcId,
        List<String> zones,
        Map<String, String> attributes,
        boolean attributesRead,
        Map<String, String> tags,
        String dnsName) {

    public static final String CROSS_ZONE = "load_balancing.cross_zone.enabled";
    public static final String ZONAL_SHIFT = "zonal_shift.config.enabled";

    public LoadBalancerView {
        zones = List.copyOf(zones);
        attributes = Collections.unmodifiableMap(new TreeMap<>(attributes));
        tags = Collections.unmodifiableMap(new TreeMap<>(tags));
    }

    public boolean isNetwork() {
        return "network".equalsIgnoreCase(type);
    }

    /**
     * The attribute as read, or AWS's documented default for this type of load balancer (null if
     * none known).
     */
    public String attribute(String key) {
        String v = attributes.get(key);
        return v != null ? v : AwsDefaults.loadBalancerAttribute(type, key);
    }

    /**
     * Whether the attribute was missing from the response and {@link #attribute(String)} gives the
     * default.
     */
    public boolean isDefault(String key) {
        return !attributes.containsKey(key);
    }

    public boolean crossZoneEnabled() {
        return "true".equalsIgnoreCase(attribute(CROSS_ZONE));
    }

    public boolean zonalShiftEnabled() {
        return "true".equalsIgnoreCase(attribute(ZONAL_SHIFT));
    }

    /** "network load balancer ingress-nlb". */
    public String label() {
        String t =
                type == null
                        ? "load balancer"
                        : switch (type.toLowerCase(Locale.ROOT)) {
                            case "network" -> "NLB";
                            case "application" -> "ALB";
                            case "gateway" -> "GWLB";
                            default -> type + " load balancer";
                        };
        return t + " " + name;
    }
}
