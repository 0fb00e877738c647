package dev.deja.model.kube;

import java.util.List;
import java.util.Map;

/**
 * A Service: type, selector, annotations (cloud load-balancer settings), loadBalancerClass and
 * external IPs.
 */
public record Service(
        Meta meta,
        String type,
        Map<String, String> selector,
        String loadBalancerClass,
        String externalTrafficPolicy,
        List<String> externalIPs) {

    public Service {
        selector = selector == null ? Map.of() : Sorted.copyOf(selector);
        externalIPs = externalIPs == null ? List.of() : List.copyOf(externalIPs);
    }

    public Service(
            Meta meta,
            String type,
            Map<String, String> selector,
            String loadBalancerClass,
            String externalTrafficPolicy) {
        this(meta, type, selector, loadBalancerClass, externalTrafficPolicy, List.of());
    }

    /**
     * Reachable from outside the cluster network: type LoadBalancer or NodePort, or external IPs.
     */
    public boolean exposedOutside() {
        return isLoadBalancer() || "NodePort".equals(type) || !externalIPs.isEmpty();
    }

    public boolean isLoadBalancer() {
        return "LoadBalancer".equals(type);
    }
}
