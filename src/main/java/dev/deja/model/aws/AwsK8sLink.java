package dev.deja.model.aws;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Names the Kubernetes object behind an AWS load balancer from its tags, so an AWS finding can
 * point at the Service (and a Kubernetes finding at the load balancer):
 *
 * <ul>
 *   <li>AWS Load Balancer Controller: {@code service.k8s.aws/stack} = namespace/name of the
 *       Service, {@code ingress.k8s.aws/stack} = namespace/name of the Ingress (or the IngressGroup
 *       name), {@code elbv2.k8s.aws/cluster} = cluster name;
 *   <li>in-tree cloud provider: {@code kubernetes.io/service-name} = namespace/name, and {@code
 *       kubernetes.io/cluster/<name>} = owned|shared.
 * </ul>
 *
 * Pure functions over the tag map; no SDK or Fabric8 types.
 */
public final class AwsK8sLink {
    public static final String LBC_SERVICE = "service.k8s.aws/stack";
    public static final String LBC_INGRESS = "ingress.k8s.aws/stack";
    public static final String LBC_CLUSTER = "elbv2.k8s.aws/cluster";
    public static final String INTREE_SERVICE = "kubernetes.io/service-name";
    public static final String INTREE_CLUSTER_PREFIX = "kubernetes.io/cluster/";

    private AwsK8sLink() {}

    /** The Service behind the load balancer as "namespace/name", when its tags say. */
    public static Optional<String> serviceOf(LoadBalancerView lb) {
        return serviceOf(lb.tags());
    }

    public static Optional<String> serviceOf(Map<String, String> tags) {
        String v = tags.get(LBC_SERVICE);
        if (v == null || v.isBlank()) {
            v = tags.get(INTREE_SERVICE);
        }
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.strip());
    }

    /**
     * The Ingress ("namespace/name") or IngressGroup name behind the load balancer, when its tags
     * say.
     */
    public static Optional<String> ingressOf(LoadBalancerView lb) {
        String v = lb.tags().get(LBC_INGRESS);
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.strip());
    }

    /** The cluster that owns the load balancer, when its tags say. */
    public static Optional<String> clusterOf(LoadBalancerView lb) {
        String v = lb.tags().get(LBC_CLUSTER);
        if (v != null && !v.isBlank()) {
            return Optional.of(v.strip());
        }
        for (String k : lb.tags().keySet()) {
            if (k.startsWith(INTREE_CLUSTER_PREFIX)
                    && k.length() > INTREE_CLUSTER_PREFIX.length()) {
                return Optional.of(k.substring(INTREE_CLUSTER_PREFIX.length()));
            }
        }
        return Optional.empty();
    }

    /**
     * The {@code related} entries of a finding about this load balancer: "Service
     * ingress-nginx/ingress-nginx-controller", "Ingress shop/web", "Kubernetes cluster "prod-eu"
     * (the load balancer's tag elbv2.k8s.aws/cluster)" (only those the tags tell).
     */
    public static List<String> related(LoadBalancerView lb) {
        List<String> out = new ArrayList<>();
        serviceOf(lb).ifPresent(s -> out.add("Service " + s));
        ingressOf(lb)
                .ifPresent(s -> out.add(s.contains("/") ? "Ingress " + s : "IngressGroup " + s));
        // "cluster live" told a reader nothing: say what it is and where the name comes from
        clusterOf(lb)
                .ifPresent(
                        c ->
                                out.add(
                                        "Kubernetes cluster \""
                                                + c
                                                + "\" (the load balancer's tag "
                                                + (lb.tags().get(LBC_CLUSTER) != null
                                                                && !lb.tags()
                                                                        .get(LBC_CLUSTER)
                                                                        .isBlank()
                                                        ? LBC_CLUSTER
                                                        : INTREE_CLUSTER_PREFIX + c)
                                                + ")"));
        return out;
    }

    /**
     * The reverse link, for a Kubernetes finding about Service {@code namespace/name}: the load
     * balancers whose tags name that Service, or whose DNS name is one of the Service's {@code
     * status.loadBalancer.ingress[].hostname} values (case-insensitive). Empty when none was read.
     */
    public static List<LoadBalancerView> loadBalancersFor(
            AwsInventory inventory, String namespace, String name, Collection<String> hostnames) {
        String want = namespace + "/" + name;
        List<String> hosts =
                hostnames == null
                        ? List.of()
                        : hostnames.stream()
                                .filter(h -> h != null && !h.isBlank())
                                .map(h -> h.strip().toLowerCase(Locale.ROOT))
                                .toList();
        List<LoadBalancerView> out = new ArrayList<>();
        for (LoadBalancerView lb : inventory.loadBalancers()) {
            boolean tagged = serviceOf(lb).map(want::equals).orElse(false);
            boolean host =
                    lb.dnsName() != null && hosts.contains(lb.dnsName().toLowerCase(Locale.ROOT));
            if (tagged || host) {
                out.add(lb);
            }
        }
        return out;
    }

    /**
     * The {@code related} entry a Kubernetes finding gets for a load balancer: "NLB name (arn)
     * [region]".
     */
    public static String relatedEntry(LoadBalancerView lb) {
        return lb.label() + " (" + lb.arn() + ") [" + lb.region() + "]";
    }

    /** " (Service ns/name)" for messages, or "" when the tags name no Kubernetes object. */
    public static String behind(LoadBalancerView lb) {
        Optional<String> s = serviceOf(lb);
        if (s.isPresent()) {
            return " (Service " + s.get() + ")";
        }
        return ingressOf(lb).map(i -> " (Ingress " + i + ")").orElse("");
    }
}
