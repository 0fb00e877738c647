package dev.deja.model.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.Snapshot;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The load-balancer detector: which workloads count, and the reason it gives. */
class LoadBalancersTest {
    static Workload workload(
            String image,
            List<String> args,
            Map<String, String> labels,
            Map<String, String> podLabels) {
        Container c =
                new Container("main", image, List.of(), args, Map.of(), null, null, null, null);
        return new Workload(
                new Meta("apps/v1", "Deployment", "ns", "w", labels, Map.of(), null, null),
                2,
                null,
                null,
                Selector.EMPTY,
                podLabels,
                Map.of(),
                List.of(c),
                List.of(),
                List.of(),
                null,
                null);
    }

    static KubeInventory inv(Workload w, List<Service> services, List<IngressClass> classes) {
        return new KubeInventory(
                List.of(w),
                services,
                List.of(),
                List.of(),
                List.of(),
                classes,
                List.of(),
                List.of());
    }

    static String why(Workload w) {
        List<LoadBalancers.Lb> lbs = LoadBalancers.of(inv(w, List.of(), List.of()));
        return lbs.isEmpty() ? null : lbs.get(0).product() + " | " + lbs.get(0).why();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "registry.k8s.io/ingress-nginx/controller:v1.12.1@sha256:abc | ingress-nginx",
                "k8s.gcr.io/ingress-nginx/controller:v0.49.3 | ingress-nginx",
                "quay.io/kubernetes-ingress-controller/nginx-ingress-controller:0.26.1 | ingress-nginx",
                "nginx/nginx-ingress:3.7.0 | NGINX Ingress Controller (NGINX Inc)",
                "private-registry.nginx.com/nginx-ic/nginx-plus-ingress:3.7.0 | NGINX Ingress Controller (NGINX Inc)",
                "haproxytech/kubernetes-ingress:3.0 | HAProxy Kubernetes Ingress Controller",
                "quay.io/jcmoraisjr/haproxy-ingress:v0.14.7 | HAProxy Ingress",
                "haproxy:3.0-alpine | HAProxy",
                "docker.io/haproxytech/haproxy-alpine:3.0 | HAProxy",
                "envoyproxy/envoy:v1.31.2 | Envoy",
                "envoyproxy/envoy-distroless:v1.31.2 | Envoy",
                "docker.io/emissaryingress/emissary:3.9.1 | Emissary-ingress (Ambassador)",
                "docker.io/datawire/ambassador:1.14.4 | Emissary-ingress (Ambassador)",
                "traefik:v3.1 | Traefik",
                "localhost:5000/traefik:v3.1 | Traefik"
            })
    void knownImagesAreLoadBalancers(String image, String product) {
        assertEquals(
                product + " | image " + image + " is " + product,
                why(workload(image, List.of(), Map.of(), Map.of())));
    }

    @ParameterizedTest
    @CsvSource({
        "ghcr.io/projectcontour/contour:v1.30.0",
        "envoyproxy/gateway:v1.2.0",
        "nginx:1.27",
        "prom/haproxy-exporter:v0.15.0",
        "example.com/shop/api:1.0"
    })
    void controlPlanesAndOrdinaryAppsAreNot(String image) {
        assertNull(why(workload(image, List.of(), Map.of(), Map.of())));
    }

    @Test
    void istioProxyCountsOnlyAsAGateway() {
        assertNull(
                why(
                        workload(
                                "docker.io/istio/proxyv2:1.23.0",
                                List.of("proxy", "sidecar"),
                                Map.of(),
                                Map.of())));
        assertEquals(
                "Istio gateway | image docker.io/istio/proxyv2:1.23.0 is Istio gateway",
                why(
                        workload(
                                "docker.io/istio/proxyv2:1.23.0",
                                List.of("proxy", "router"),
                                Map.of(),
                                Map.of())));
    }

    @Test
    void roleLabelOverridesEverything() {
        // labelled, but no known proxy in it: every container is judged
        assertNull(
                why(
                        workload(
                                "traefik:v3.1",
                                List.of(),
                                Map.of("deja.dev/role", "none"),
                                Map.of())));
        assertEquals(
                "null | labelled deja.dev/role=load-balancer",
                why(
                        workload(
                                "example.com/gw:1",
                                List.of(),
                                Map.of(),
                                Map.of("deja.dev/role", "load-balancer"))));
    }

    @Test
    void ingressClassesCountOnlyWhenTheControllerIsTheProxy() {
        Workload byClass =
                workload(
                        "mirror.example.com/ctl:1",
                        List.of("--controller-class=k8s.io/ingress-nginx"),
                        Map.of(),
                        Map.of());
        IngressClass ic =
                new IngressClass(
                        new Meta(
                                "networking.k8s.io/v1",
                                "IngressClass",
                                null,
                                "nginx",
                                Map.of(),
                                Map.of(),
                                null,
                                null),
                        "k8s.io/ingress-nginx");
        assertEquals(
                "container main implements IngressClass nginx (controller k8s.io/ingress-nginx)",
                LoadBalancers.of(inv(byClass, List.of(), List.of(ic))).get(0).why());
        // Contour's controller implements its IngressClass but carries no traffic: its Envoy pods
        // do
        Workload contour =
                workload(
                        "mirror.example.com/ctl:1",
                        List.of("serve", "--ingress-class=contour"),
                        Map.of(),
                        Map.of());
        IngressClass cic =
                new IngressClass(
                        new Meta(
                                "networking.k8s.io/v1",
                                "IngressClass",
                                null,
                                "contour",
                                Map.of(),
                                Map.of(),
                                null,
                                null),
                        "projectcontour.io/contour");
        assertEquals(List.of(), LoadBalancers.of(inv(contour, List.of(), List.of(cic))));
    }

    /**
     * Issue #10 item 2: being behind a cloud load balancer does not make a web app a load balancer.
     */
    @Test
    void aPlainAppBehindALoadBalancerServiceIsNotALoadBalancer() {
        Workload app =
                workload(
                        "gcr.io/google-samples/microservices-demo/frontend:v0.10.1",
                        List.of(),
                        Map.of(),
                        Map.of("app", "frontend"));
        Service lb =
                new Service(
                        new Meta(
                                "v1",
                                "Service",
                                "ns",
                                "frontend-external",
                                Map.of(),
                                Map.of(),
                                null,
                                null),
                        "LoadBalancer",
                        Map.of("app", "frontend"),
                        null,
                        null);
        assertEquals(List.of(), LoadBalancers.of(inv(app, List.of(lb), List.of())));
        // labels naming a product are not what runs (ingress-nginx's chart labels its default
        // backend too)
        assertNull(
                why(
                        workload(
                                "registry.k8s.io/defaultbackend-amd64:1.5",
                                List.of(),
                                Map.of("app.kubernetes.io/name", "ingress-nginx"),
                                Map.of())));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "mirror.example.com/team/ingress-nginx/controller:v1.12.1 | ingress-nginx",
                "kong:3.7 | Kong Gateway",
                "docker.io/kong/kong-gateway:3.7.1.2 | Kong Gateway",
                "caddy:2.8 | Caddy",
                "ghcr.io/caddyserver/caddy/ingress:v0.2 | Caddy",
                "123456789012.dkr.ecr.eu-west-1.amazonaws.com/mirror/traefik:v3.1 | Traefik",
                "docker.io/envoyproxy/envoy:distroless-v1.35.8 | Envoy"
            })
    void reHostedAndOtherProxies(String image, String product) {
        assertEquals(
                product + " | image " + image + " is " + product,
                why(workload(image, List.of(), Map.of(), Map.of())));
    }

    @Test
    void istioTestImagesAndInjectedGatewaysCount() {
        assertEquals(
                "Istio gateway | image test/proxyv2:test is Istio gateway",
                why(workload("test/proxyv2:test", List.of("proxy", "router"), Map.of(), Map.of())));
        assertEquals(
                "Istio gateway | image gcr.io/istio-release/proxyv2:1.22.0 is Istio gateway",
                why(
                        workload(
                                "gcr.io/istio-release/proxyv2:1.22.0",
                                List.of("proxy", "router"),
                                Map.of(),
                                Map.of())));
        Container injected =
                new Container(
                        "istio-proxy",
                        "auto",
                        List.of(),
                        List.of(),
                        Map.of(),
                        null,
                        null,
                        null,
                        null);
        Workload gw =
                new Workload(
                        new Meta(
                                "apps/v1",
                                "Deployment",
                                "ns",
                                "gw",
                                Map.of(),
                                Map.of(),
                                null,
                                null),
                        2,
                        null,
                        null,
                        Selector.EMPTY,
                        Map.of(),
                        Map.of("inject.istio.io/templates", "gateway"),
                        List.of(injected),
                        List.of(),
                        List.of(),
                        null,
                        null);
        assertEquals(
                "Istio gateway", LoadBalancers.of(inv(gw, List.of(), List.of())).get(0).product());
    }

    @Test
    void customImagesByTheProgramTheyRun() {
        assertEquals(
                "ingress-nginx | container main runs /nginx-ingress-controller (ingress-nginx)",
                why(
                        workload(
                                "example.com/our-nginx:1",
                                List.of("/nginx-ingress-controller", "--election-id=x"),
                                Map.of(),
                                Map.of())));
        assertEquals(
                "Envoy | container main runs envoy (Envoy)",
                why(
                        workload(
                                "example.com/edge:1",
                                List.of("envoy", "-c", "/etc/envoy.yaml"),
                                Map.of(),
                                Map.of())));
    }

    /** Issue #10 item 3: the proxy container is judged, not the helpers beside it. */
    @Test
    void onlyTheProxyContainersAreJudged() {
        Container shutdown =
                new Container(
                        "shutdown-manager",
                        "docker.io/envoyproxy/gateway:v1.2.0",
                        List.of(),
                        List.of("envoy", "shutdown-manager"),
                        Map.of(),
                        null,
                        null,
                        null,
                        null);
        Container envoy =
                new Container(
                        "envoy",
                        "docker.io/envoyproxy/envoy:distroless-v1.32.0",
                        List.of("envoy"),
                        List.of("--service-cluster", "x"),
                        Map.of(),
                        null,
                        null,
                        null,
                        null);
        Workload eg =
                new Workload(
                        new Meta(
                                "apps/v1",
                                "Deployment",
                                "envoy-gateway-system",
                                "envoy-default-eg",
                                Map.of(),
                                Map.of(),
                                null,
                                null),
                        2,
                        null,
                        null,
                        Selector.EMPTY,
                        Map.of(),
                        Map.of(),
                        List.of(envoy, shutdown),
                        List.of(),
                        List.of(),
                        null,
                        null);
        LoadBalancers.Lb lb = LoadBalancers.of(inv(eg, List.of(), List.of())).get(0);
        assertEquals(List.of("envoy"), lb.proxies().stream().map(Container::name).toList());
        assertEquals(LoadBalancers.Flavor.ENVOY_GATEWAY, lb.flavor());
        Container kic =
                new Container(
                        "ingress-controller",
                        "kong/kubernetes-ingress-controller:3.2",
                        List.of(),
                        List.of(),
                        Map.of(),
                        null,
                        null,
                        null,
                        null);
        Container proxy =
                new Container(
                        "proxy",
                        "kong:3.7",
                        List.of(),
                        List.of(),
                        Map.of(),
                        null,
                        null,
                        null,
                        null);
        Workload kong =
                new Workload(
                        new Meta(
                                "apps/v1",
                                "Deployment",
                                "kong",
                                "kong-kong",
                                Map.of(),
                                Map.of(),
                                null,
                                null),
                        2,
                        null,
                        null,
                        Selector.EMPTY,
                        Map.of(),
                        Map.of(),
                        List.of(kic, proxy),
                        List.of(),
                        List.of(),
                        null,
                        null);
        assertEquals(
                List.of("proxy"),
                LoadBalancers.of(inv(kong, List.of(), List.of())).get(0).proxies().stream()
                        .map(Container::name)
                        .toList());
        Container contourSm =
                new Container(
                        "shutdown-manager",
                        "ghcr.io/projectcontour/contour:v1.30.0",
                        List.of(),
                        List.of("envoy", "shutdown-manager"),
                        Map.of(),
                        null,
                        null,
                        null,
                        null);
        Workload ct =
                new Workload(
                        new Meta(
                                "apps/v1",
                                "DaemonSet",
                                "projectcontour",
                                "envoy",
                                Map.of(),
                                Map.of(),
                                null,
                                null),
                        null,
                        null,
                        null,
                        Selector.EMPTY,
                        Map.of(),
                        Map.of(),
                        List.of(contourSm, envoy),
                        List.of(),
                        List.of(),
                        null,
                        null);
        assertEquals(
                LoadBalancers.Flavor.CONTOUR,
                LoadBalancers.of(inv(ct, List.of(), List.of())).get(0).flavor());
    }

    /**
     * Issue #11: the detector's answer is a view of one snapshot, never a static cache shared
     * between snapshots.
     */
    @Test
    void theViewBelongsToItsSnapshot() {
        Snapshot a =
                Snapshot.of(
                        inv(
                                workload("traefik:v3", List.of(), Map.of(), Map.of()),
                                List.of(),
                                List.of()));
        Snapshot b =
                Snapshot.of(
                        inv(
                                workload("nginx:1.27", List.of(), Map.of(), Map.of()),
                                List.of(),
                                List.of()));
        assertEquals(1, LoadBalancers.of(a).size());
        assertEquals(0, LoadBalancers.of(b).size());
        Assertions.assertSame(LoadBalancers.of(a), LoadBalancers.of(a));
        for (Field f : LoadBalancers.class.getDeclaredFields()) {
            assertTrue(
                    !Modifier.isStatic(f.getModifiers()) || Modifier.isFinal(f.getModifiers()),
                    "mutable static field " + f);
        }
    }

    @Test
    void withTagReplacesTagAndDigestAndKeepsTheRegistry() {
        assertEquals(
                "registry.k8s.io/ingress-nginx/controller:v1.12.1",
                LoadBalancers.withTag(
                        "registry.k8s.io/ingress-nginx/controller:v1.9.4@sha256:abc", "v1.12.1"));
        assertEquals(
                "localhost:5000/traefik:v2.11.0",
                LoadBalancers.withTag("localhost:5000/traefik", "v2.11.0"));
        assertEquals("traefik:v2.11.0", LoadBalancers.withTag("traefik:2.3", "v2.11.0"));
    }
}
