package dev.deja.rules.kube;

import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.LoadBalancers;
import dev.deja.model.kube.Service;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * IL-0463: a Service of type LoadBalancer that asks its cloud for an internal load balancer, and
 * the workloads behind it, as the providers document it: GKE's {@code
 * networking.gke.io/load-balancer-type: "Internal"} (the older {@code
 * cloud.google.com/load-balancer-type} before 1.17) or {@code loadBalancerClass:
 * networking.gke.io/l4-regional-internal}; the AWS Load Balancer Controller's {@code
 * service.beta.kubernetes.io/aws-load-balancer-scheme: internal}, which is also its default (since
 * v2.2.0) when no scheme is given; the deprecated {@code aws-load-balancer-internal}.
 */
final class InternalLb {
    private InternalLb() {}

    static final String GKE = "networking.gke.io/load-balancer-type";
    static final String GKE_OLD = "cloud.google.com/load-balancer-type";
    static final String GKE_CLASS = "networking.gke.io/l4-regional-internal";
    static final String AWS_TYPE = "service.beta.kubernetes.io/aws-load-balancer-type";
    static final String AWS_SCHEME = "service.beta.kubernetes.io/aws-load-balancer-scheme";
    static final String AWS_INTERNAL = "service.beta.kubernetes.io/aws-load-balancer-internal";
    static final String AWS_TARGET_TYPE =
            "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type";

    /** The annotation that makes it internal, as written ("networking.gke.io/...: Internal"). */
    static String internalBy(Service s) {
        if (!s.isLoadBalancer()) {
            return null;
        }
        if (GKE_CLASS.equals(s.loadBalancerClass())) {
            return "loadBalancerClass: " + GKE_CLASS;
        }
        Map<String, String> a = s.meta().annotations();
        for (String k : List.of(GKE, GKE_OLD)) {
            String v = a.get(k);
            if (v != null && v.strip().equalsIgnoreCase("internal")) {
                return k + ": " + v.strip();
            }
        }
        String scheme = a.get(AWS_SCHEME);
        if (scheme != null && scheme.strip().equalsIgnoreCase("internal")) {
            return AWS_SCHEME + ": " + scheme.strip();
        }
        String internal = a.get(AWS_INTERNAL);
        // the in-tree provider makes the load balancer internal for any value but "false"
        if (internal != null
                && !internal.isBlank()
                && !internal.strip().toLowerCase(Locale.ROOT).equals("false")) {
            return AWS_INTERNAL + ": " + internal.strip();
        }
        if (scheme == null && internal == null && awsLbc(s)) {
            return "no " + AWS_SCHEME + ": the AWS Load Balancer Controller's default, internal";
        }
        return null;
    }

    /**
     * Whether the AWS Load Balancer Controller (not the in-tree provider) reconciles the Service:
     * {@code loadBalancerClass: service.k8s.aws/nlb}, or {@code aws-load-balancer-type} {@code
     * external} or {@code nlb-ip}.
     */
    static boolean awsLbc(Service s) {
        if ("service.k8s.aws/nlb".equals(s.loadBalancerClass())) {
            return true;
        }
        String t = s.meta().annotations().get(AWS_TYPE);
        return t != null
                && List.of("external", "nlb-ip").contains(t.strip().toLowerCase(Locale.ROOT));
    }

    /** Whether an AWS load balancer sends traffic to pod IPs directly (no node in the path). */
    static boolean ipTargets(Service s) {
        String t = s.meta().annotations().get(AWS_TARGET_TYPE);
        return t != null && t.strip().equalsIgnoreCase("ip");
    }

    /**
     * The Deployments and StatefulSets behind the Service (their pods match its selector, same
     * namespace), skipping the ones deja's detector counts as load balancers: the IL-0495 rules
     * judge those already (one root cause, one finding).
     */
    static List<Workload> backends(KubeInventory inv, Service s, Set<Workload> proxies) {
        List<Workload> out = new ArrayList<>();
        if (s.selector().isEmpty()) {
            return out;
        }
        for (Workload w : inv.workloads()) {
            if ("DaemonSet".equals(w.kind()) || proxies.contains(w)) {
                continue;
            }
            if (inv.servicesOf(w).contains(s)) {
                out.add(w);
            }
        }
        return out;
    }

    static Set<Workload> proxies(List<LoadBalancers.Lb> lbs) {
        Set<Workload> out = new HashSet<>();
        for (LoadBalancers.Lb lb : lbs) {
            out.add(lb.workload());
        }
        return out;
    }
}
