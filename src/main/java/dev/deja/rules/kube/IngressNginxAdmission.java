package dev.deja.rules.kube;

import dev.deja.model.kube.ClusterRole;
import dev.deja.model.kube.ClusterRoleBinding;
import dev.deja.model.kube.Container;
import dev.deja.model.kube.IngressNginx;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.LoadBalancers;
import dev.deja.model.kube.NetworkPolicy;
import dev.deja.model.kube.Service;
import dev.deja.model.kube.WebhookConfiguration;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What the two IL-0053 rules share: which workloads run the ingress-nginx controller with its
 * validating admission webhook on, the controller version read from the image tag, the Service the
 * API server calls, whether any NetworkPolicy restricts who reaches the webhook port, and what the
 * controller's ServiceAccount may read of Secrets.
 *
 * <p>Facts (checked in the sources cited in {@code rules/k8s-ingress-nginx-admission-rce.yaml}):
 * CVE-2025-1974 affects every controller version up to v1.11.4 and v1.12.0; v1.11.5 and v1.12.1 are
 * fixed. The webhook server runs when the controller gets {@code --validating-webhook=<address>}
 * (e.g. {@code :8443}).
 */
final class IngressNginxAdmission {
    private IngressNginxAdmission() {}

    static final String FLAG = "--validating-webhook";

    /**
     * What finding the controllers, their webhook configurations and admission Services reads (each
     * IL-0053 rule's kinds, or the start of them).
     */
    static final Set<String> KINDS =
            Set.of(
                    "Deployment",
                    "StatefulSet",
                    "DaemonSet",
                    "Service",
                    "ValidatingWebhookConfiguration");

    /**
     * How a Service that is exposed outside the cluster is: "ns/name is of type LoadBalancer", or
     * "ns/name is given external IPs [..]".
     */
    static String exposure(Service s) {
        return s.meta().display()
                + " is "
                + (s.externalIPs().isEmpty()
                        ? "of type " + s.type()
                        : "given external IPs " + s.externalIPs());
    }

    /** A controller container with the webhook flag, and what is known of its version. */
    record Controller(
            Workload workload,
            Container container,
            String webhookAddress,
            int port,
            String portName,
            IngressNginx.Version version) {
        String display() {
            return workload.meta().display();
        }
    }

    /**
     * Whether the container runs the ingress-nginx controller, recognised as the load-balancer
     * detection recognises it ({@link LoadBalancers#isIngressNginx}): by its image, or by the
     * program it runs ({@code /nginx-ingress-controller}) on another image, such as the chart's
     * {@code ci/} builds ({@code ingress-controller/controller:1.0.0-dev}).
     */
    static boolean isIngressNginx(Container c) {
        return LoadBalancers.isIngressNginx(c);
    }

    /**
     * Every ingress-nginx controller container that runs the admission webhook, in inventory order.
     */
    static List<Controller> withWebhook(KubeInventory inv) {
        List<Controller> out = new ArrayList<>();
        for (Workload w : inv.workloads()) {
            for (Container c : w.containers()) {
                String addr = c.flag(FLAG);
                if (addr == null || addr.isBlank() || !isIngressNginx(c)) {
                    continue;
                }
                int port = port(addr);
                String name = null;
                for (Map.Entry<String, Integer> p : c.ports().entrySet()) {
                    if (p.getValue() == port && !p.getKey().equals(String.valueOf(port))) {
                        name = p.getKey();
                    }
                }
                out.add(new Controller(w, c, addr, port, name, IngressNginx.version(c)));
            }
        }
        return out;
    }

    /** ":8443", "0.0.0.0:8443", "[::]:8443" -> 8443; -1 when unreadable. */
    static int port(String address) {
        int colon = address.lastIndexOf(':');
        try {
            return Integer.parseInt(address.substring(colon + 1).strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * A webhook of a ValidatingWebhookConfiguration that calls a Service selecting the controller's
     * pods.
     */
    record Hook(
            WebhookConfiguration config, WebhookConfiguration.Webhook webhook, Service service) {}

    static List<Hook> hooks(KubeInventory inv, Workload w) {
        List<Service> mine =
                inv.servicesOf(
                        w); // this definition's Services (nearest, when a scan defines it twice)
        List<Hook> out = new ArrayList<>();
        for (WebhookConfiguration vwc :
                inv.nearest(w.meta(), inv.webhookConfigurations(), WebhookConfiguration::meta)) {
            for (WebhookConfiguration.Webhook h : vwc.webhooks()) {
                if (h.serviceName() == null) {
                    continue;
                }
                for (Service s : mine) {
                    if (h.serviceName().equals(s.meta().name())
                            && Objects.equals(s.meta().namespace(), h.serviceNamespace())) {
                        out.add(new Hook(vwc, h, s));
                    }
                }
            }
        }
        return out;
    }

    /**
     * The admission Services: those the webhooks call, else Services named "*-admission" that
     * select the pods.
     */
    static List<Service> admissionServices(KubeInventory inv, Workload w, List<Hook> hooks) {
        Set<Service> out = new LinkedHashSet<>();
        hooks.forEach(h -> out.add(h.service()));
        if (out.isEmpty()) {
            for (Service s : inv.servicesOf(w)) {
                if (s.meta().name() != null && s.meta().name().endsWith("-admission")) {
                    out.add(s);
                }
            }
        }
        return List.copyOf(out);
    }

    /**
     * Who may connect to the webhook port: {@code open} when every pod can, with the reason either
     * way.
     */
    /**
     * Whether the webhook port is open to every source, and why; {@code opener} is the policy whose
     * ingress rule number {@code rule} (from 0) opens it, when one does.
     */
    record Reach(boolean open, String why, NetworkPolicy opener, int rule) {
        Reach(boolean open, String why) {
            this(open, why, null, -1);
        }
    }

    /**
     * Evaluates the NetworkPolicies of the controller's namespace as Kubernetes does: pods selected
     * by no policy that governs ingress accept every source; otherwise a connection is allowed when
     * any ingress rule of any selecting policy allows it (a rule without ports allows every port,
     * one without {@code from} every source).
     */
    static Reach reach(KubeInventory inv, Controller ctl) {
        Workload w = ctl.workload();
        List<NetworkPolicy> selecting =
                inv.nearest(
                        w.meta(),
                        inv.networkPolicies().stream()
                                .filter(
                                        np ->
                                                np.governsIngress()
                                                        && np.selects(w.meta(), w.podLabels()))
                                .toList(),
                        NetworkPolicy::meta);
        String port = ctl.port() + (ctl.portName() == null ? "" : " (" + ctl.portName() + ")");
        if (selecting.isEmpty()) {
            return new Reach(
                    true,
                    "no NetworkPolicy that governs ingress selects its pods"
                            + (inv.networkPolicies().isEmpty()
                                    ? " (none among the objects read)"
                                    : ""));
        }
        List<String> limited = new ArrayList<>();
        for (NetworkPolicy np : selecting) {
            for (int i = 0; i < np.ingress().size(); i++) {
                NetworkPolicy.Rule r = np.ingress().get(i);
                boolean covers =
                        r.ports().isEmpty()
                                || r.ports().stream()
                                        .anyMatch(p -> p.admits(ctl.port(), ctl.portName()));
                if (!covers) {
                    continue;
                }
                if (r.from().isEmpty()) {
                    return new Reach(
                            true,
                            np.meta().display()
                                    + " admits port "
                                    + port
                                    + " from every source (an ingress"
                                    + " rule "
                                    + (r.ports().isEmpty()
                                            ? "with neither ports nor from"
                                            : "without from")
                                    + ")",
                            np,
                            i);
                }
                for (NetworkPolicy.Peer p : r.from()) {
                    if (p.everyPod() || p.everyAddress()) {
                        return new Reach(
                                true,
                                np.meta().display()
                                        + " admits port "
                                        + port
                                        + " from "
                                        + p.describe(),
                                np,
                                i);
                    }
                    limited.add(p.describe() + " (" + np.meta().name() + ")");
                }
            }
        }
        List<String> names = selecting.stream().map(np -> np.meta().name()).toList();
        return new Reach(
                false,
                limited.isEmpty()
                        ? "NetworkPolicy "
                                + String.join(", ", names)
                                + " admits no source on port "
                                + port
                        : "port "
                                + port
                                + " admits only "
                                + String.join("; ", new LinkedHashSet<>(limited)));
    }

    /**
     * What the controller's ServiceAccount may do with Secrets through ClusterRoleBindings: "can
     * list, watch secrets in every namespace (ClusterRole ingress-nginx via ClusterRoleBinding
     * ingress-nginx)".
     */
    static String secretsAccess(KubeInventory inv, Workload w) {
        String ns = w.namespace();
        String sa = w.effectiveServiceAccount();
        String who = "its ServiceAccount " + (ns == null ? "" : ns + "/") + sa;
        Set<String> grants = new LinkedHashSet<>();
        List<String> unread = new ArrayList<>();
        List<ClusterRoleBinding> bindings =
                inv.nearest(
                        w.meta(),
                        inv.clusterRoleBindings().stream()
                                .filter(b -> b.binds(ns, sa) && "ClusterRole".equals(b.roleKind()))
                                .toList(),
                        ClusterRoleBinding::meta);
        for (ClusterRoleBinding b : bindings) {
            ClusterRole role =
                    inv
                            .nearest(
                                    b.meta(),
                                    inv.clusterRoles().stream()
                                            .filter(
                                                    r ->
                                                            Objects.equals(
                                                                    r.meta().name(), b.roleName()))
                                            .toList(),
                                    ClusterRole::meta)
                            .stream()
                            .findFirst()
                            .orElse(null);
            if (role == null) {
                unread.add(
                        "ClusterRole "
                                + b.roleName()
                                + " (bound by "
                                + b.meta().name()
                                + ") is not among the objects read");
                continue;
            }
            Set<String> verbs = new LinkedHashSet<>();
            Set<String> names = new LinkedHashSet<>();
            for (ClusterRole.PolicyRule r : role.rules()) {
                if (r.coversCore("secrets")) {
                    verbs.addAll(r.verbsLower());
                    names.addAll(r.resourceNames());
                }
            }
            verbs.retainAll(Set.of("get", "list", "watch", "*"));
            if (!verbs.isEmpty()) {
                grants.add(
                        String.join(", ", verbs)
                                + " "
                                + (names.isEmpty()
                                        ? "secrets in every namespace"
                                        : "the secrets named "
                                                + String.join(", ", names)
                                                + " in every namespace")
                                + " (ClusterRole "
                                + role.meta().name()
                                + " via ClusterRoleBinding "
                                + b.meta().name()
                                + ")");
            }
        }
        if (!grants.isEmpty()) {
            return who
                    + " can "
                    + String.join("; and ", grants)
                    + ": whoever runs code in the controller can read them";
        }
        if (!unread.isEmpty()) {
            return who + "'s access to Secrets is unknown: " + String.join("; ", unread);
        }
        if (inv.clusterRoleBindings().isEmpty()) {
            return who
                    + "'s access to Secrets is unknown (no ClusterRoleBinding among the objects read; the default"
                    + " installation lets the controller read Secrets cluster-wide)";
        }
        return who
                + " gets no read access to Secrets from any ClusterRoleBinding read (namespace Roles are not read)";
    }

    /**
     * The image a fix runs: the controller's image at the fixed release of its line (v1.11.5 on
     * 1.11, else v1.12.1), or the upstream image when the controller runs from another repository
     * (a chart's ci/ build).
     */
    static String fixedImage(String image, IngressNginx.Version v) {
        String tag = v.known() && v.major() == 1 && v.minor() == 11 ? "v1.11.5" : "v1.12.1";
        boolean upstream =
                image != null && LoadBalancers.repo(image).equals("ingress-nginx/controller");
        return LoadBalancers.withTag(
                upstream ? image : "registry.k8s.io/ingress-nginx/controller", tag);
    }

    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
