package dev.deja.model.aws;

import java.util.Locale;
import java.util.Map;

/**
 * AWS's documented defaults for load balancer attributes that a response (or a hand-written
 * snapshot) leaves out. Sources: the ELBv2 API reference, LoadBalancerAttribute: {@code
 * load_balancing.cross_zone.enabled} defaults to false for Network and Gateway Load Balancers and
 * is always on (true) for Application Load Balancers; {@code zonal_shift.config.enabled} defaults
 * to false.
 */
public final class AwsDefaults {
    private static final Map<String, String> NETWORK =
            Map.of(
                    LoadBalancerView.CROSS_ZONE,
                    "false",
                    LoadBalancerView.ZONAL_SHIFT,
                    "false",
                    "deletion_protection.enabled",
                    "false",
                    "dns_record.client_routing_policy",
                    "any_availability_zone");
    private static final Map<String, String> APPLICATION =
            Map.of(
                    LoadBalancerView.CROSS_ZONE,
                    "true",
                    LoadBalancerView.ZONAL_SHIFT,
                    "false",
                    "deletion_protection.enabled",
                    "false");
    private static final Map<String, String> GATEWAY =
            Map.of(LoadBalancerView.CROSS_ZONE, "false", "deletion_protection.enabled", "false");

    private AwsDefaults() {}

    /**
     * The default value of {@code key} for a load balancer of {@code type}, or null when none is
     * documented.
     */
    public static String loadBalancerAttribute(String type, String key) {
        String t = type == null ? "" : type.toLowerCase(Locale.ROOT);
        return switch (t) {
            case "network" -> NETWORK.get(key);
            case "application" -> APPLICATION.get(key);
            case "gateway" -> GATEWAY.get(key);
            default -> null;
        };
    }
}
