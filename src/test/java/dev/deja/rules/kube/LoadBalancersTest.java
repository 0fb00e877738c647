package dev.deja.rules.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.deja.kube.model.Container;
import dev.deja.kube.model.IngressClass;
import dev.deja.kube.model.KubeInventory;
import dev.deja.kube.model.Meta;
import dev.deja.kube.model.Selector;
import dev.deja.kube.model.Service;
import dev.deja.kube.model.Workload;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The load-balancer detector: which workloads count, and the reason it gives. */
class LoadBalancersTest {
    static Workload workload(String image, List<String> args, Map<String, String> labels, Map<String, String> podLabels) {
        Container c = new Container("main", image, List.of(), args, Map.of(), null, null, null, null);
        return new Workload(new Meta("apps/v1", "Deployment", "ns", "w", labels, Map.of(), null, null), 2, null, null,
                Selector.EMPTY, podLabels, Map.of(), List.of(c), List.of(), List.of(), null, null);
    }

    static KubeInventory inv(Workload w, List<Service> services, List<IngressClass> classes) {
        return new KubeInventory(List.of(w), services, List.of(), List.of(), List.of(), classes, List.of(), List.of());
    }

    static String why(Workload w) {
        List<LoadBalancers.Lb> lbs = LoadBalancers.of(inv(w, List.of(), List.of()));
        return lbs.isEmpty() ? null : lbs.get(0).product() + " | " + lbs.get(0).why();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
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
        "localhost:5000/traefik:v3.1 | Traefik"})
    void knownImagesAreLoadBalancers(String image, String product) {
        assertEquals(product + " | image " + image + " is " + product, why(workload(image, List.of(), Map.of(), Map.of())));
    }

    @ParameterizedTest
    @CsvSource({"ghcr.io/projectcontour/contour:v1.30.0", "envoyproxy/gateway:v1.2.0", "nginx:1.27",
        "prom/haproxy-exporter:v0.15.0", "example.com/shop/api:1.0"})
    void controlPlanesAndOrdinaryAppsAreNot(String image) {
        assertNull(why(workload(image, List.of(), Map.of(), Map.of())));
    }

    @Test
    void istioProxyCountsOnlyAsAGateway() {
        assertNull(why(workload("docker.io/istio/proxyv2:1.23.0", List.of("proxy", "sidecar"), Map.of(), Map.of())));
        assertEquals("Istio gateway | image docker.io/istio/proxyv2:1.23.0 is Istio gateway",
                why(workload("docker.io/istio/proxyv2:1.23.0", List.of("proxy", "router"), Map.of(), Map.of())));
    }

    @Test
    void roleLabelOverridesEverything() {
        assertNull(why(workload("traefik:v3.1", List.of(), Map.of("deja.dev/role", "none"), Map.of())));
        assertEquals("null | labelled deja.dev/role=load-balancer",
                why(workload("example.com/gw:1", List.of(), Map.of(), Map.of("deja.dev/role", "load-balancer"))));
    }

    @Test
    void labelsIngressClassesAndLoadBalancerServices() {
        assertEquals("Traefik | label app.kubernetes.io/name=traefik",
                why(workload("mirror.example.com/tr:3", List.of(), Map.of("app.kubernetes.io/name", "traefik"), Map.of())));
        Workload byClass = workload("mirror.example.com/ctl:1", List.of("--controller-class=k8s.io/ingress-nginx"),
                Map.of(), Map.of());
        IngressClass ic = new IngressClass(new Meta("networking.k8s.io/v1", "IngressClass", null, "nginx", Map.of(),
                Map.of(), null, null), "k8s.io/ingress-nginx");
        assertEquals("implements IngressClass nginx (controller k8s.io/ingress-nginx)",
                LoadBalancers.of(inv(byClass, List.of(), List.of(ic))).get(0).why());
        Workload app = workload("example.com/edge:1", List.of(), Map.of(), Map.of("app", "edge"));
        Service lb = new Service(new Meta("v1", "Service", "ns", "edge", Map.of(), Map.of(), null, null), "LoadBalancer",
                Map.of("app", "edge"), null, null);
        Service clusterIp = new Service(lb.meta(), "ClusterIP", Map.of("app", "edge"), null, null);
        assertEquals("selected by Service ns/edge of type LoadBalancer",
                LoadBalancers.of(inv(app, List.of(lb), List.of())).get(0).why());
        assertEquals(List.of(), LoadBalancers.of(inv(app, List.of(clusterIp), List.of())));
    }
}
