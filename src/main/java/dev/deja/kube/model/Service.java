package dev.deja.kube.model;

import java.util.Map;

/** A Service: type, selector, annotations (cloud load-balancer settings) and loadBalancerClass. */
public record Service(Meta meta, String type, Map<String, String> selector, String loadBalancerClass,
                      String externalTrafficPolicy) {

    public Service {
        selector = selector == null ? Map.of() : Sorted.copyOf(selector);
    }

    public boolean isLoadBalancer() {
        return "LoadBalancer".equals(type);
    }
}
