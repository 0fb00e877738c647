package dev.deja.rules.kube;

import dev.deja.kube.model.Container;
import dev.deja.kube.model.IngressClass;
import dev.deja.kube.model.KubeInventory;
import dev.deja.kube.model.Selector;
import dev.deja.kube.model.Service;
import dev.deja.kube.model.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Decides which workloads are load balancers (ingress controllers, proxies, gateways): the pods that, like
 * HubSpot's (IL-0495), take traffic for many services and fail together when they share tight settings. In order:
 * <ol>
 * <li>the label or annotation {@code deja.dev/role} on the workload or its pod template: {@code load-balancer} makes
 * it one, {@code none} rules it out whatever else matches;</li>
 * <li>a container image of a known proxy or controller: ingress-nginx, NGINX Inc's controller, HAProxy (haproxy,
 * haproxytech/kubernetes-ingress, haproxy-ingress), Envoy (envoyproxy/envoy, and the proxies of Contour, Envoy
 * Gateway), Emissary/Ambassador, Istio gateways ({@code istio/proxyv2} running as a gateway, not a sidecar),
 * Traefik;</li>
 * <li>the {@code app.kubernetes.io/name} or {@code app.kubernetes.io/component}/{@code part-of} labels of those
 * products;</li>
 * <li>an IngressClass whose controller the workload implements ({@code --controller-class} / {@code --ingress-class}
 * arguments);</li>
 * <li>being selected by a Service of type LoadBalancer: the pods take traffic straight from a cloud load
 * balancer.</li>
 * </ol>
 * Control planes that are not in the traffic path (the Contour and Envoy Gateway controllers) are not counted; their
 * Envoy pods are. Every finding quotes {@link Lb#why()}.
 */
public final class LoadBalancers {
    public static final String ROLE = "deja.dev/role";

    /** A workload judged to be a load balancer: the product (when known), whether it is Envoy-based, and why. */
    public record Lb(Workload workload, String product, boolean envoy, String why) {
        /** "(a load balancer: image registry.k8s.io/ingress-nginx/controller:v1.12 is ingress-nginx)". */
        public String because() {
            return "(counted as a load balancer: " + why + ")";
        }
    }

    private record Product(String name, boolean envoy) {
    }

    private LoadBalancers() {
    }

    private record Cached(KubeInventory inv, List<Lb> lbs) {
    }

    /** Several rules ask for the same snapshot in a row: the last answer is kept (by identity). */
    private static volatile Cached last;

    /** The load-balancer workloads of the inventory, in inventory order. */
    public static synchronized List<Lb> of(KubeInventory inv) {
        Cached c = last;
        if (c != null && c.inv() == inv) {
            return c.lbs();
        }
        List<Service> lbServices = inv.services().stream().filter(Service::isLoadBalancer).toList();
        List<Lb> out = new ArrayList<>();
        for (Workload w : inv.workloads()) {
            Lb lb = judge(w, inv, lbServices);
            if (lb != null) {
                out.add(lb);
            }
        }
        List<Lb> result = List.copyOf(out);
        last = new Cached(inv, result);
        return result;
    }

    static Lb judge(Workload w, KubeInventory inv, List<Service> lbServices) {
        String role = role(w);
        Product byImage = null;
        String image = null;
        for (Container c : w.containers()) {
            Product p = byImage(c, w);
            if (p != null) {
                byImage = p;
                image = c.image();
                break;
            }
        }
        if ("none".equals(role)) {
            return null;
        }
        if ("load-balancer".equals(role)) {
            return new Lb(w, byImage == null ? null : byImage.name(), byImage != null && byImage.envoy() || envoyImage(w),
                    "labelled " + ROLE + "=load-balancer");
        }
        if (byImage != null) {
            return new Lb(w, byImage.name(), byImage.envoy(), "image " + image + " is " + byImage.name());
        }
        for (String key : List.of("app.kubernetes.io/name", "app.kubernetes.io/component", "app.kubernetes.io/part-of")) {
            String v = label(w, key);
            Product p = v == null ? null : byName(v.toLowerCase(Locale.ROOT));
            if (p != null) {
                return new Lb(w, p.name(), p.envoy(), "label " + key + "=" + v);
            }
        }
        // related objects: those of this definition of the workload (KubeInventory#nearest)
        List<IngressClass> implemented = inv.nearest(w.meta(), inv.ingressClasses().stream()
                .filter(ic -> implementsClass(w, ic)).toList(), IngressClass::meta);
        if (!implemented.isEmpty()) {
            IngressClass ic = implemented.get(0);
            Product p = ic.controller() == null ? null : byController(ic.controller());
            return new Lb(w, p == null ? null : p.name(), p != null && p.envoy(),
                    "implements IngressClass " + ic.meta().name() + " (controller " + ic.controller() + ")");
        }
        List<Service> selecting = inv.nearest(w.meta(), lbServices.stream().filter(s -> s.meta().sameNamespace(w.meta())
                && Selector.of(s.selector()).matches(w.podLabels())).toList(), Service::meta);
        if (!selecting.isEmpty()) {
            return new Lb(w, null, envoyImage(w), "selected by " + selecting.get(0).meta().display() + " of type LoadBalancer");
        }
        return null;
    }

    private static boolean implementsClass(Workload w, IngressClass ic) {
        for (Container c : w.containers()) {
            String cc = c.flag("--controller-class");
            String icn = c.flag("--ingress-class") != null ? c.flag("--ingress-class") : c.flag("--ingress.class");
            if ((ic.controller() != null && ic.controller().equals(cc)) || (icn != null && icn.equals(ic.meta().name()))) {
                return true;
            }
        }
        return false;
    }

    private static String role(Workload w) {
        for (Map<String, String> m : List.of(w.meta().labels(), w.meta().annotations(), w.podLabels(), w.podAnnotations())) {
            String v = m.get(ROLE);
            if (v != null) {
                return v.strip().toLowerCase(Locale.ROOT);
            }
        }
        return null;
    }

    private static String label(Workload w, String key) {
        String v = w.meta().label(key);
        return v != null ? v : w.podLabels().get(key);
    }

    private static boolean envoyImage(Workload w) {
        for (Container c : w.containers()) {
            String r = repo(c.image());
            if (r.contains("envoy") && !r.endsWith("envoyproxy/gateway") || r.contains("emissary") || r.contains("ambassador")
                    || r.endsWith("istio/proxyv2")) {
                return true;
            }
        }
        return false;
    }

    /** Image without registry host, tag and digest: "ingress-nginx/controller", "haproxytech/kubernetes-ingress". */
    static String repo(String image) {
        if (image == null) {
            return "";
        }
        String s = image.toLowerCase(Locale.ROOT);
        int at = s.indexOf('@');
        if (at >= 0) {
            s = s.substring(0, at);
        }
        int slash = s.lastIndexOf('/');
        int colon = s.lastIndexOf(':');
        if (colon > slash) {
            s = s.substring(0, colon);
        }
        String[] parts = s.split("/");
        if (parts.length > 1 && (parts[0].contains(".") || parts[0].contains(":") || parts[0].equals("localhost"))) {
            s = s.substring(parts[0].length() + 1);
        }
        return s;
    }

    static Product byImage(Container c, Workload w) {
        String r = repo(c.image());
        if (r.isEmpty()) {
            return null;
        }
        String last = r.substring(r.lastIndexOf('/') + 1);
        if (r.endsWith("ingress-nginx/controller") || r.endsWith("ingress-nginx/controller-chroot")
                || last.equals("nginx-ingress-controller")) {
            return new Product("ingress-nginx", false);
        }
        if (last.equals("nginx-ingress") || last.equals("nginx-plus-ingress")) {
            return new Product("NGINX Ingress Controller (NGINX Inc)", false);
        }
        if (r.endsWith("haproxytech/kubernetes-ingress")) {
            return new Product("HAProxy Kubernetes Ingress Controller", false);
        }
        if (last.equals("haproxy-ingress")) {
            return new Product("HAProxy Ingress", false);
        }
        if (last.equals("haproxy") || last.startsWith("haproxy-") && !last.contains("exporter")) {
            return new Product("HAProxy", false);
        }
        if (r.startsWith("envoyproxy/envoy") || last.equals("envoy") || last.startsWith("envoy-distroless")) {
            return new Product("Envoy", true);
        }
        if (last.equals("emissary") || last.equals("ambassador") || last.equals("aes") && r.contains("datawire")) {
            return new Product("Emissary-ingress (Ambassador)", true);
        }
        if (r.endsWith("istio/proxyv2") && istioGateway(c, w)) {
            return new Product("Istio gateway", true);
        }
        if (last.equals("traefik")) {
            return new Product("Traefik", false);
        }
        return null;
    }

    /** istio/proxyv2 is also the sidecar image: only a proxy started as a router (a gateway) counts. */
    private static boolean istioGateway(Container c, Workload w) {
        if (c.argv().contains("router")) {
            return true;
        }
        String istio = w.podLabels().get("istio");
        return istio != null && istio.endsWith("gateway") || w.podLabels().containsKey("gateway.istio.io/managed")
                || w.podLabels().containsKey("gateway.networking.k8s.io/gateway-name");
    }

    private static final Set<String> NOT_TRAFFIC = Set.of("contour", "envoy-gateway", "gateway-helm");

    static Product byName(String v) {
        if (NOT_TRAFFIC.contains(v)) {
            return null;
        }
        return switch (v) {
            case "ingress-nginx" -> new Product("ingress-nginx", false);
            case "nginx-ingress" -> new Product("NGINX Ingress Controller (NGINX Inc)", false);
            case "haproxy", "haproxy-ingress", "kubernetes-ingress", "haproxy-kubernetes-ingress" -> new Product("HAProxy", false);
            case "envoy" -> new Product("Envoy", true);
            case "emissary-ingress", "emissary", "ambassador" -> new Product("Emissary-ingress (Ambassador)", true);
            case "istio-ingressgateway", "istio-egressgateway" -> new Product("Istio gateway", true);
            case "traefik" -> new Product("Traefik", false);
            default -> null;
        };
    }

    static Product byController(String controller) {
        String c = controller.toLowerCase(Locale.ROOT);
        if (c.contains("ingress-nginx")) {
            return new Product("ingress-nginx", false);
        }
        if (c.startsWith("nginx.org/")) {
            return new Product("NGINX Ingress Controller (NGINX Inc)", false);
        }
        if (c.contains("haproxy")) {
            return new Product("HAProxy", false);
        }
        if (c.contains("traefik")) {
            return new Product("Traefik", false);
        }
        if (c.contains("contour") || c.contains("envoy") || c.contains("ambassador") || c.contains("istio")) {
            return new Product("Envoy", true);
        }
        return null;
    }
}
