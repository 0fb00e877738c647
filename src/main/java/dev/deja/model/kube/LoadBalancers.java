package dev.deja.model.kube;

import dev.deja.engine.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Decides which workloads are load balancers (ingress controllers, proxies, gateways) by what their
 * containers run: the pods that, like HubSpot's (IL-0495), take traffic for many services and fail
 * together when they share tight settings. In order:
 *
 * <ol>
 *   <li>the label or annotation {@code deja.dev/role} on the workload or its pod template: {@code
 *       load-balancer} makes it one, {@code none} rules it out whatever else matches;
 *   <li>a container image of a known proxy, matched on the last segments of the image's repository
 *       (never the registry host, so re-hosted images and test tags count): ingress-nginx, NGINX
 *       Inc's controller, HAProxy and its two ingress controllers, Envoy (plain, Contour's, Envoy
 *       Gateway's), Emissary/Ambassador, Istio's {@code proxyv2} started as a gateway (never a
 *       sidecar), Kong ({@code kong}, {@code kong-gateway}), Traefik, Caddy;
 *   <li>the program a container runs ({@code /nginx-ingress-controller}, {@code envoy -c ...},
 *       {@code traefik}, {@code haproxy -f ...}, {@code caddy run}, NGINX Inc's {@code
 *       -nginx-configmaps}), for custom images;
 *   <li>implementing an IngressClass whose controller is the proxy itself (ingress-nginx, NGINX
 *       Inc, HAProxy, Traefik): {@code --controller-class} / {@code --ingress-class} arguments.
 * </ol>
 *
 * Being selected by a Service of type LoadBalancer does not make a workload a load balancer (a web
 * app behind a cloud load balancer runs no proxy). Control planes (the Contour, Envoy Gateway and
 * Kong ingress controllers, istiod) are not counted; their proxies are. Only the proxy containers
 * are judged ({@link Lb#proxies()}), never their sidecars (Envoy Gateway's or Contour's
 * shutdown-manager, Kong's ingress-controller, an Istio sidecar).
 *
 * <p>The result is a view derived once per snapshot ({@link #of(Snapshot)}); nothing is cached
 * between snapshots.
 */
public final class LoadBalancers {
    public static final String ROLE = "deja.dev/role";

    /** Which Envoy-based product runs the proxy (its probes and admin ports differ), or NONE. */
    public enum Flavor {
        NONE,
        ENVOY,
        CONTOUR,
        ENVOY_GATEWAY,
        ISTIO,
        EMISSARY
    }

    /**
     * A workload judged to be a load balancer: its proxy containers, the product (when known),
     * which Envoy flavour (NONE when not Envoy-based), and why.
     */
    public record Lb(
            Workload workload, List<Container> proxies, String product, Flavor flavor, String why) {
        public Lb {
            proxies = List.copyOf(proxies);
        }

        public boolean envoy() {
            return flavor != Flavor.NONE;
        }

        /**
         * "(counted as a load balancer: image registry.k8s.io/ingress-nginx/controller:v1.12 is
         * ingress-nginx)".
         */
        public String because() {
            return "(counted as a load balancer: " + why + ")";
        }
    }

    private record Product(String name, Flavor flavor) {}

    private final List<Lb> all;

    private LoadBalancers(List<Lb> all) {
        this.all = List.copyOf(all);
    }

    /**
     * The load-balancer workloads of the snapshot's inventory, in inventory order; computed once
     * per snapshot.
     */
    public static List<Lb> of(Snapshot snapshot) {
        return snapshot.derived(
                        LoadBalancers.class,
                        s ->
                                new LoadBalancers(
                                        s.part(KubeInventory.class)
                                                .map(LoadBalancers::judgeAll)
                                                .orElse(List.of())))
                .all;
    }

    /** The load-balancer workloads of an inventory, computed afresh (a pure function). */
    public static List<Lb> of(KubeInventory inv) {
        return judgeAll(inv);
    }

    private static List<Lb> judgeAll(KubeInventory inv) {
        List<Lb> out = new ArrayList<>();
        for (Workload w : inv.workloads()) {
            Lb lb = judge(w, inv);
            if (lb != null) {
                out.add(lb);
            }
        }
        return out;
    }

    static Lb judge(Workload w, KubeInventory inv) {
        String role = role(w);
        if ("none".equals(role)) {
            return null;
        }
        List<Container> proxies = new ArrayList<>();
        Product product = null;
        String why = null;
        for (Container c : w.containers()) {
            Product p = byImage(c);
            if (p == null && istioInjectedGateway(c, w)) {
                p = new Product("Istio gateway", Flavor.ISTIO);
            }
            String reason = p == null ? null : "image " + c.image() + " is " + p.name();
            if (p == null) {
                p = byProgram(c);
                reason =
                        p == null
                                ? null
                                : "container "
                                        + c.name()
                                        + " runs "
                                        + program(c)
                                        + " ("
                                        + p.name()
                                        + ")";
            }
            if (p == null) {
                p = byIngressClass(c, w, inv);
                reason = p == null ? null : ingressClassReason(c, w, inv);
            }
            if (p != null) {
                proxies.add(c);
                if (product == null) {
                    product = p;
                    why = reason;
                }
            }
        }
        if (product != null) {
            product = refine(product, w);
        }
        if ("load-balancer".equals(role)) {
            return new Lb(
                    w,
                    proxies.isEmpty() ? w.containers() : proxies,
                    product == null ? null : product.name(),
                    product == null ? Flavor.NONE : product.flavor(),
                    "labelled " + ROLE + "=load-balancer");
        }
        if (product == null) {
            return null;
        }
        return new Lb(w, proxies, product.name(), product.flavor(), why);
    }

    /**
     * Envoy's flavour from the pod around it: Contour's or Envoy Gateway's shutdown-manager, their
     * labels.
     */
    private static Product refine(Product p, Workload w) {
        if (p.flavor() != Flavor.ENVOY) {
            return p;
        }
        for (Container c : w.containers()) {
            List<String> segs = segments(c.image());
            String last = segs.isEmpty() ? "" : segs.get(segs.size() - 1);
            if (last.equals("contour")) {
                return new Product("Contour's Envoy", Flavor.CONTOUR);
            }
            if (endsWith(segs, "envoyproxy", "gateway")) {
                return new Product("Envoy Gateway's Envoy", Flavor.ENVOY_GATEWAY);
            }
        }
        String managedBy = label(w, "app.kubernetes.io/managed-by");
        if ("envoy-gateway".equals(managedBy)
                || w.podLabels().containsKey("gateway.envoyproxy.io/owning-gateway-name")) {
            return new Product("Envoy Gateway's Envoy", Flavor.ENVOY_GATEWAY);
        }
        return p;
    }

    private static String role(Workload w) {
        for (Map<String, String> m :
                List.of(
                        w.meta().labels(),
                        w.meta().annotations(),
                        w.podLabels(),
                        w.podAnnotations())) {
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

    /**
     * Image without registry host, tag and digest: "ingress-nginx/controller",
     * "haproxytech/kubernetes-ingress".
     */
    public static String repo(String image) {
        return String.join("/", segments(image));
    }

    /**
     * The image reference with {@code tag} in place of its tag and digest, registry kept: {@code
     * withTag("registry.k8s.io/ingress-nginx/controller:v1.9.4@sha256:...", "v1.12.1")}.
     */
    public static String withTag(String image, String tag) {
        String s = image.strip();
        int at = s.indexOf('@');
        if (at >= 0) {
            s = s.substring(0, at);
        }
        int colon = s.lastIndexOf(':');
        if (colon > s.lastIndexOf('/')) {
            s = s.substring(0, colon);
        }
        return s + ":" + tag;
    }

    /**
     * The path segments of an image's repository, without registry host, tag and digest, lower
     * case.
     */
    static List<String> segments(String image) {
        if (image == null || image.isBlank()) {
            return List.of();
        }
        String s = image.strip().toLowerCase(Locale.ROOT);
        int at = s.indexOf('@');
        if (at >= 0) {
            s = s.substring(0, at);
        }
        int slash = s.lastIndexOf('/');
        int colon = s.lastIndexOf(':');
        if (colon > slash) {
            s = s.substring(0, colon);
        }
        List<String> parts = new ArrayList<>(List.of(s.split("/")));
        if (parts.size() > 1) {
            String first = parts.get(0);
            if (first.contains(".") || first.contains(":") || first.equals("localhost")) {
                parts.remove(0);
            }
        }
        return parts;
    }

    private static boolean endsWith(List<String> segs, String... tail) {
        if (segs.size() < tail.length) {
            return false;
        }
        for (int i = 0; i < tail.length; i++) {
            if (!segs.get(segs.size() - tail.length + i).equals(tail[i])) {
                return false;
            }
        }
        return true;
    }

    static Product byImage(Container c) {
        List<String> segs = segments(c.image());
        if (segs.isEmpty()) {
            return null;
        }
        String last = segs.get(segs.size() - 1);
        if (endsWith(segs, "ingress-nginx", "controller")
                || endsWith(segs, "ingress-nginx", "controller-chroot")
                || last.equals("nginx-ingress-controller")
                || last.equals("nginx-ingress-controller-chroot")) {
            return new Product("ingress-nginx", Flavor.NONE);
        }
        if (last.equals("nginx-ingress") || last.equals("nginx-plus-ingress")) {
            return new Product("NGINX Ingress Controller (NGINX Inc)", Flavor.NONE);
        }
        if (endsWith(segs, "haproxytech", "kubernetes-ingress")) {
            return new Product("HAProxy Kubernetes Ingress Controller", Flavor.NONE);
        }
        if (last.equals("haproxy-ingress")) {
            return new Product("HAProxy Ingress", Flavor.NONE);
        }
        if (last.equals("haproxy") || last.startsWith("haproxy-") && !last.contains("exporter")) {
            return new Product("HAProxy", Flavor.NONE);
        }
        if (last.equals("envoy")
                || last.startsWith("envoy-distroless")
                || last.equals("envoy-alpine")
                || last.equals("envoy-contrib")
                || last.equals("envoy-dev")) {
            return new Product("Envoy", Flavor.ENVOY);
        }
        if (last.equals("emissary")
                || last.equals("ambassador")
                || last.equals("aes") && segs.contains("datawire")) {
            return new Product("Emissary-ingress (Ambassador)", Flavor.EMISSARY);
        }
        if (last.equals("proxyv2") && istioGateway(c)) {
            return new Product("Istio gateway", Flavor.ISTIO);
        }
        if (last.equals("kong") || last.equals("kong-gateway")) {
            return new Product("Kong Gateway", Flavor.NONE);
        }
        if (last.equals("traefik")) {
            return new Product("Traefik", Flavor.NONE);
        }
        if (last.equals("caddy") || endsWith(segs, "caddy", "ingress")) {
            return new Product("Caddy", Flavor.NONE);
        }
        return null;
    }

    /**
     * istio/proxyv2 is also the sidecar image: only a proxy started as a router (a gateway) counts.
     */
    private static boolean istioGateway(Container c) {
        List<String> a = c.argv();
        return a.contains("router") && !a.contains("sidecar");
    }

    /**
     * A gateway deployed by injection: an istio-proxy container with image "auto" and the gateway
     * template.
     */
    private static boolean istioInjectedGateway(Container c, Workload w) {
        String t = w.podAnnotations().get("inject.istio.io/templates");
        return "istio-proxy".equals(c.name())
                && "auto".equals(c.image())
                && t != null
                && t.contains("gateway");
    }

    private static String program(Container c) {
        List<String> a = c.argv();
        return a.isEmpty() ? "" : a.get(0);
    }

    /**
     * Whether a container runs the ingress-nginx controller, by its image or by its program: the
     * one test every rule uses to recognise ingress-nginx.
     */
    public static boolean isIngressNginx(Container c) {
        Product p = byImage(c);
        if (p == null) {
            p = byProgram(c);
        }
        return p != null && p.name().equals("ingress-nginx");
    }

    /** The program a container runs, for images deja does not know by name. */
    static Product byProgram(Container c) {
        List<String> a = c.argv();
        if (a.isEmpty()) {
            return null;
        }
        String p = a.get(0);
        String base = p.substring(p.lastIndexOf('/') + 1);
        if (base.equals("nginx-ingress-controller")) {
            return new Product("ingress-nginx", Flavor.NONE);
        }
        if (base.equals("nginx-ingress")
                || a.stream().anyMatch(s -> s.startsWith("-nginx-configmaps"))) {
            return new Product("NGINX Ingress Controller (NGINX Inc)", Flavor.NONE);
        }
        if (base.equals("envoy")
                && (a.contains("-c")
                        || a.contains("--config-path")
                        || a.contains("--config-yaml")
                        || a.stream()
                                .anyMatch(
                                        s ->
                                                s.startsWith("--config-path=")
                                                        || s.startsWith("--config-yaml=")))) {
            return new Product("Envoy", Flavor.ENVOY);
        }
        if (base.equals("haproxy") && a.contains("-f")) {
            return new Product("HAProxy", Flavor.NONE);
        }
        if (base.equals("traefik")) {
            return new Product("Traefik", Flavor.NONE);
        }
        if (base.equals("caddy") && a.size() > 1 && a.get(1).equals("run")) {
            return new Product("Caddy", Flavor.NONE);
        }
        return null;
    }

    /**
     * Controllers whose controller process is the proxy (so implementing their IngressClass means
     * taking traffic).
     */
    static Product byController(String controller) {
        String c = controller.toLowerCase(Locale.ROOT);
        if (c.equals("k8s.io/ingress-nginx") || c.startsWith("k8s.io/ingress-nginx")) {
            return new Product("ingress-nginx", Flavor.NONE);
        }
        if (c.startsWith("nginx.org/")) {
            return new Product("NGINX Ingress Controller (NGINX Inc)", Flavor.NONE);
        }
        if (c.startsWith("haproxy.org/") || c.startsWith("haproxy-ingress.github.io/")) {
            return new Product("HAProxy", Flavor.NONE);
        }
        if (c.startsWith("traefik.io/")) {
            return new Product("Traefik", Flavor.NONE);
        }
        return null;
    }

    /**
     * The IngressClass this container implements, the nearest definition to the workload's
     * (KubeInventory#nearest).
     */
    private static IngressClass implemented(Container c, Workload w, KubeInventory inv) {
        String cc = c.flag("--controller-class");
        String icn =
                c.flag("--ingress-class") != null
                        ? c.flag("--ingress-class")
                        : c.flag("--ingress.class");
        List<IngressClass> found =
                inv.nearest(
                        w.meta(),
                        inv.ingressClasses().stream()
                                .filter(
                                        ic ->
                                                ic.controller() != null
                                                                && ic.controller().equals(cc)
                                                        || icn != null
                                                                && icn.equals(ic.meta().name()))
                                .toList(),
                        IngressClass::meta);
        return found.isEmpty() ? null : found.get(0);
    }

    private static Product byIngressClass(Container c, Workload w, KubeInventory inv) {
        IngressClass ic = implemented(c, w, inv);
        return ic == null || ic.controller() == null ? null : byController(ic.controller());
    }

    private static String ingressClassReason(Container c, Workload w, KubeInventory inv) {
        IngressClass ic = implemented(c, w, inv);
        return "container "
                + c.name()
                + " implements IngressClass "
                + ic.meta().name()
                + " (controller "
                + ic.controller()
                + ")";
    }
}
