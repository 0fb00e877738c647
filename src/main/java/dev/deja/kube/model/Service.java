package dev.deja.kube.model;

import java.util.Map;

/** A Service: type, selector, annotations (cloud load-balancer settings), loadBalancerClass and external IPs. */
public record Service(Meta meta, String type, Map<String, String> selector, String loadBalancerClass,
                      String externalTrafficPolicy, java.util.List<String> externalIPs) {

    public Service {
        selector = selector == null ? Map.of() : Sorted.copyOf(selector);
        externalIPs = externalIPs == null ? java.util.List.of() : java.util.List.copyOf(externalIPs);
    }

    public Service(Meta meta, String type, Map<String, String> selector, String loadBalancerClass,
                   String externalTrafficPolicy) {
        this(meta, type, selector, loadBalancerClass, externalTrafficPolicy, java.util.List.of());
    }

    /** Reachable from outside the cluster network: type LoadBalancer or NodePort, or external IPs. */
    public boolean exposedOutside() {
        return isLoadBalancer() || "NodePort".equals(type) || !externalIPs.isEmpty();
    }

    public boolean isLoadBalancer() {
        return "LoadBalancer".equals(type);
    }
}
