package dev.deja.source.aws;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.collect.Collector;
import dev.deja.engine.Snapshot;
import dev.deja.model.aws.AwsInventory;
import dev.deja.model.aws.AwsK8sLink;
import dev.deja.model.aws.LoadBalancerView;
import dev.deja.snapshot.SnapshotFile;
import dev.deja.source.ScanRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** Tag links to Kubernetes, CIDR matching, AWS defaults and the snapshot codec. */
class AwsModelTest {
    @TempDir Path tmp;

    static LoadBalancerView lb(String type, Map<String, String> attrs, Map<String, String> tags) {
        return new LoadBalancerView(
                "arn:x",
                "x",
                type,
                "internal",
                "eu-west-2",
                null,
                List.of("eu-west-2a"),
                attrs,
                true,
                tags,
                "x-1.elb.eu-west-2.amazonaws.com");
    }

    @Test
    void tagsNameTheKubernetesObject() {
        LoadBalancerView lbc =
                lb(
                        "network",
                        Map.of(),
                        Map.of(
                                "service.k8s.aws/stack",
                                "ingress-nginx/ingress-nginx-controller",
                                "kubernetes.io/service-name",
                                "old/name",
                                "elbv2.k8s.aws/cluster",
                                "prod"));
        assertEquals(
                Optional.of("ingress-nginx/ingress-nginx-controller"), AwsK8sLink.serviceOf(lbc));
        assertEquals(
                List.of(
                        "Service ingress-nginx/ingress-nginx-controller",
                        "Kubernetes cluster \"prod\" (the load balancer's tag elbv2.k8s.aws/cluster)"),
                AwsK8sLink.related(lbc));
        LoadBalancerView intree =
                lb(
                        "network",
                        Map.of(),
                        Map.of(
                                "kubernetes.io/service-name",
                                "shop/web",
                                "kubernetes.io/cluster/live",
                                "owned"));
        assertEquals(Optional.of("shop/web"), AwsK8sLink.serviceOf(intree));
        assertEquals(
                List.of(
                        "Service shop/web",
                        "Kubernetes cluster \"live\" (the load balancer's tag kubernetes.io/cluster/live)"),
                AwsK8sLink.related(intree));
        LoadBalancerView ingress =
                lb("application", Map.of(), Map.of("ingress.k8s.aws/stack", "web-group"));
        assertEquals(List.of("IngressGroup web-group"), AwsK8sLink.related(ingress));
        assertEquals(" (Ingress web-group)", AwsK8sLink.behind(ingress));
        assertEquals(List.of(), AwsK8sLink.related(lb("network", Map.of(), Map.of("team", "a"))));
    }

    @Test
    void aServiceFindsItsLoadBalancersByTagOrHostname() {
        LoadBalancerView tagged =
                new LoadBalancerView(
                        "arn:1",
                        "one",
                        "network",
                        "internal",
                        "eu-west-2",
                        null,
                        List.of("eu-west-2a"),
                        Map.of(),
                        true,
                        Map.of("service.k8s.aws/stack", "ingress-nginx/controller"),
                        null);
        LoadBalancerView byHost =
                new LoadBalancerView(
                        "arn:2",
                        "two",
                        "network",
                        "internal",
                        "eu-west-2",
                        null,
                        List.of("eu-west-2a"),
                        Map.of(),
                        true,
                        Map.of(),
                        "two-abc.elb.eu-west-2.amazonaws.com");
        AwsInventory inv = new AwsInventory(List.of(tagged, byHost), List.of());
        assertEquals(
                List.of(tagged),
                AwsK8sLink.loadBalancersFor(inv, "ingress-nginx", "controller", List.of()));
        assertEquals(
                List.of(byHost),
                AwsK8sLink.loadBalancersFor(
                        inv, "shop", "web", List.of("TWO-abc.elb.eu-west-2.amazonaws.com")));
        assertEquals(List.of(), AwsK8sLink.loadBalancersFor(inv, "shop", "web", List.of()));
        assertEquals("NLB one (arn:1) [eu-west-2]", AwsK8sLink.relatedEntry(tagged));
    }

    @Test
    void documentedDefaultsApplyByTypeNotByArn() {
        LoadBalancerView nlb = lb("network", Map.of(), Map.of());
        assertFalse(nlb.crossZoneEnabled());
        assertTrue(nlb.isDefault("load_balancing.cross_zone.enabled"));
        assertFalse(nlb.zonalShiftEnabled());
        assertTrue(lb("application", Map.of(), Map.of()).crossZoneEnabled());
        assertTrue(
                lb("network", Map.of("load_balancing.cross_zone.enabled", "true"), Map.of())
                        .crossZoneEnabled());
    }

    @Test
    void cidrContainment() {
        assertTrue(Cidr.contains("10.0.1.0/24", "10.0.1.200"));
        assertFalse(Cidr.contains("10.0.1.0/24", "10.0.2.1"));
        assertTrue(Cidr.contains("10.0.0.0/17", "10.0.127.255"));
        assertFalse(Cidr.contains("10.0.0.0/17", "10.0.128.0"));
        assertTrue(Cidr.contains("2a05:d01c:0:1200::/56", "2a05:d01c:0:12ff::1"));
        assertFalse(Cidr.contains("10.0.0.0/8", "2a05:d01c::1"));
        assertFalse(Cidr.contains("10.0.0.0/8", "i-0abc")); // never resolved as a host name
        assertFalse(Cidr.contains("10.0.0.0/8", "example.com"));
    }

    @Test
    void exampleSnapshotRoundTripsThroughTheCodec() throws Exception {
        Path example = Path.of("examples/aws/il-0364-snapshot.json");
        ScanRequest.Builder b = ScanRequest.builder();
        b.paths = List.of(example.toString());
        b.processEnv = Map.of();
        ScanRequest req = b.build();
        Snapshot s = Collector.collect(req);
        AwsInventory inv = s.part(AwsInventory.class).orElseThrow();
        assertEquals(1, inv.loadBalancers().size());
        assertEquals(
                List.of("eu-west-2a", "eu-west-2b", "eu-west-2c"),
                inv.loadBalancers().get(0).zones());
        Path out = tmp.resolve("again.json");
        SnapshotFile.write(s, out);
        JsonNode written =
                SnapshotFile.mapper().readTree(Files.readString(out)).path("parts").path("aws");
        JsonNode original =
                SnapshotFile.mapper().readTree(Files.readString(example)).path("parts").path("aws");
        assertEquals(original, written);
    }

    @Test
    void malformedSnapshotNamesTheFileAndPath() throws Exception {
        Path bad = tmp.resolve("bad.json");
        Files.writeString(
                bad,
                "{\"format\": \"deja-snapshot\", \"version\": 1, \"parts\": {\"aws\": {\"loadBalancers\":"
                        + " [{\"arn\": \"a\", \"name\": \"n\", \"region\": \"eu-west-2\"}]}}}");
        TestSupport.Run r = TestSupport.run("scan", bad.toString());
        assertEquals(2, r.code(), r.err());
        assertEquals(
                "deja: snapshot malformed: "
                        + bad
                        + ": parts.aws.loadBalancers[0] has no \"type\"\n",
                r.err());
        Files.writeString(
                bad,
                "{\"format\": \"deja-snapshot\", \"version\": 1, \"parts\": {\"aws\": {\"targetGroups\":"
                        + " [{\"arn\": \"a\", \"name\": \"n\", \"region\": \"r\", \"healthCheck\": {\"intervalSeconds\": \"often\"}}]}}}");
        TestSupport.Run r2 = TestSupport.run("scan", bad.toString());
        assertEquals(2, r2.code(), r2.err());
        assertEquals(
                "deja: snapshot malformed: "
                        + bad
                        + ": parts.aws.targetGroups[0].healthCheck.intervalSeconds is not an integer\n",
                r2.err());
    }

    @Test
    void examplesFolderShowsAwsFindingsWithoutAnAccount() {
        TestSupport.Run r =
                TestSupport.run(
                        "scan", "examples/aws", "--rules", "aws-nlb-zone-health-unreported");
        assertEquals(1, r.code(), r.err());
        assertTrue(r.out().contains("reports no health for 2 of 2 targets in eu-west-2c"), r.out());
        assertTrue(
                r.out().contains("Service ingress-controllers/nginx-ingress-default-controller"),
                r.out());
    }
}
