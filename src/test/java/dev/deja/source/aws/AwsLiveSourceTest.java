package dev.deja.source.aws;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code deja scan --aws} end to end: the real CLI, the real SDK clients (URLConnection client,
 * adaptive retry) and a fake ELBv2/EC2 endpoint on loopback speaking the Query protocol. Static
 * test credentials come from the scan's environment; the shared config files point into a temporary
 * folder, so ~/.aws is never read.
 */
class AwsLiveSourceTest {
    static final String REGION = "eu-west-2";
    static final String A = "eu-west-2a";
    static final String B = "eu-west-2b";
    static final String C = "eu-west-2c";
    static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir Path tmp;
    FakeAws fake;

    @BeforeEach
    void start() throws Exception {
        fake = FakeAws.start(REGION);
    }

    @AfterEach
    void stop() {
        fake.close();
    }

    Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put("AWS_ACCESS_KEY_ID", "AKIDDEJATEST");
        env.put("AWS_SECRET_ACCESS_KEY", "deja-test-secret");
        env.put("AWS_CONFIG_FILE", tmp.resolve("no-config").toString());
        env.put("AWS_SHARED_CREDENTIALS_FILE", tmp.resolve("no-credentials").toString());
        return env;
    }

    TestSupport.Run scan(Map<String, String> env, String... extra) {
        List<String> args =
                new ArrayList<>(
                        List.of("scan", "--aws", "--aws-endpoint", fake.url(), "--region", REGION));
        args.addAll(List.of(extra));
        return TestSupport.runWith(
                new ByteArrayInputStream(new byte[0]), env, args.toArray(String[]::new));
    }

    /**
     * IL-0364 in a fake account: NLB ingress-nlb in three zones (cross-zone attribute not returned:
     * AWS default off, zonal shift off) with an ip target group whose zone-c targets are
     * unavailable and an instance target group with one target in every other state; a second NLB
     * whose group's health call fails with HealthUnavailable; an ALB with a slow health check; a
     * target group that serves nothing.
     */
    void il0364() {
        String nlb = fake.lb("ingress-nlb", "network", A, B, C);
        fake.attribute(nlb, "deletion_protection.enabled", "false");
        fake.tag(nlb, "service.k8s.aws/stack", "ingress-nginx/ingress-nginx-controller");
        fake.tag(nlb, "elbv2.k8s.aws/cluster", "prod");
        String nlb2 = fake.lb("nlb-shop", "network", A, B);
        fake.attribute(nlb2, "load_balancing.cross_zone.enabled", "true");
        fake.attribute(nlb2, "zonal_shift.config.enabled", "true");
        fake.tag(nlb2, "kubernetes.io/service-name", "shop/web");
        String alb = fake.lb("alb-web", "application", A, B);

        String http = fake.tg("ingress-http", "ip", 10, 5, 3, nlb);
        fake.target(http, "10.0.1.10", 80, null, "healthy", null, null);
        fake.target(http, "10.0.2.10", 80, null, "healthy", null, null);
        fake.target(
                http,
                "10.0.3.10",
                80,
                null,
                "unavailable",
                "Elb.InternalError",
                "Health checks failed due to an internal error");
        fake.target(
                http,
                "10.0.3.11",
                80,
                null,
                "unavailable",
                "Elb.InternalError",
                "Health checks failed due to an internal error");
        String https = fake.tg("ingress-https", "instance", 10, 5, 3, nlb);
        fake.target(https, "i-0aaa", 443, null, "healthy", null, null);
        fake.target(
                https,
                "i-0bbb",
                443,
                null,
                "initial",
                "Elb.RegistrationInProgress",
                "Target registration is in progress");
        fake.target(
                https,
                "i-0ccc",
                443,
                null,
                "unhealthy",
                "Target.FailedHealthChecks",
                "Health checks failed");
        fake.target(
                https,
                "i-0ddd",
                443,
                null,
                "draining",
                "Target.DeregistrationInProgress",
                "Target deregistration is in progress");
        fake.target(https, "i-0gone", 443, null, "healthy", null, null);
        String shop = fake.tg("shop-web", "ip", 10, 5, 2, nlb2);
        fake.healthUnavailable(shop);
        String slow = fake.tg("web-slow", "instance", 30, 5, 10, alb);
        fake.target(slow, "i-0aaa", 80, null, "healthy", null, null);
        String orphan = fake.tg("orphan", "ip", 10, 5, 3);
        fake.target(
                orphan,
                "10.0.1.99",
                80,
                A,
                "unused",
                "Target.NotInUse",
                "Target group is not configured to receive traffic from the load balancer");

        fake.subnet("subnet-a", "vpc-1", "10.0.1.0/24", A);
        fake.subnet("subnet-b", "vpc-1", "10.0.2.0/24", B);
        fake.subnet("subnet-c", "vpc-1", "10.0.3.0/24", C);
        fake.subnet(
                "subnet-x",
                "vpc-2",
                "10.0.1.0/24",
                C); // same CIDR in another VPC: must not be used
        fake.instance("i-0aaa", A);
        fake.instance("i-0bbb", B);
        fake.instance("i-0ccc", C);
        fake.instance("i-0ddd", C);
        // i-0gone: not returned by DescribeInstances, so its zone stays unknown
        fake.maxPageSize(2); // 3 load balancers -> 2 pages, 5 target groups -> 3 pages
    }

    static JsonNode json(TestSupport.Run r) {
        return JSON.readTree(r.out());
    }

    static List<JsonNode> findings(JsonNode report, String rule) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode f : report.path("findings")) {
            if (f.path("ruleId").asString().equals(rule)) {
                out.add(f);
            }
        }
        return out;
    }

    static List<String> texts(JsonNode arr) {
        List<String> out = new ArrayList<>();
        arr.forEach(n -> out.add(n.asString()));
        return out;
    }

    @Test
    void cleanScanMakesExactlyTheMinimumCallsAndNamesZonesAndServices() {
        il0364();
        TestSupport.Run r =
                scan(
                        env(),
                        "--format",
                        "json",
                        "--rules",
                        "aws-nlb-zone-health-unreported,aws-nlb-zone-without-healthy-target,aws-nlb-cross-zone-off-uneven,"
                                + "aws-nlb-zonal-shift-disabled,aws-tg-health-check-slow-detection");
        assertEquals(List.of(), fake.problems());
        // minimum: LB pages ceil(3/2) + TG pages ceil(5/2) + 3 LB attributes + ceil(3/20) tag calls
        // + 5 TG attributes
        // + 5 target health (+3 SDK retries of the HealthUnavailable 500: 4 attempts, as for
        // Kubernetes) + 1 DescribeSubnets + ceil(5/200) DescribeInstances
        Map<String, Integer> expected =
                new TreeMap<>(
                        Map.of(
                                "DescribeLoadBalancers",
                                2,
                                "DescribeTargetGroups",
                                3,
                                "DescribeLoadBalancerAttributes",
                                3,
                                "DescribeTags",
                                1,
                                "DescribeTargetGroupAttributes",
                                5,
                                "DescribeTargetHealth",
                                5 + 3,
                                "DescribeSubnets",
                                1,
                                "DescribeInstances",
                                1));
        expected.put("GetCallerIdentity", 1); // the account id of the report's target
        assertEquals(expected, fake.callsByAction());
        assertEquals(2 + 3 + 3 + 1 + 5 + 8 + 1 + 1 + 1, fake.totalCalls());
        assertEquals(Set.of("AKIDDEJATEST"), fake.accessKeys());
        assertEquals(1, r.code(), r.err()); // critical findings, complete scan
        assertEquals("", r.err()); // nothing from the SDK's own logging

        JsonNode rep = json(r);
        assertTrue(
                rep.path("coverage").path("complete").asBoolean(), rep.path("coverage").toString());
        List<JsonNode> unreported = findings(rep, "aws-nlb-zone-health-unreported");
        assertEquals(2, unreported.size(), unreported.toString());
        JsonNode zoneC =
                unreported.stream()
                        .filter(f -> f.path("message").asString().contains("ingress-http"))
                        .findFirst()
                        .orElseThrow();
        assertTrue(
                zoneC.path("message").asString().contains("2 of 2 targets in eu-west-2c"),
                zoneC.toString());
        assertTrue(
                zoneC.path("message").asString().contains("Elb.InternalError"), zoneC.toString());
        assertEquals(
                "ingress-nlb", zoneC.path("location").path("name").asString(), zoneC.toString());
        assertEquals(REGION, zoneC.path("location").path("region").asString());
        assertTrue(
                texts(zoneC.path("related"))
                        .contains("Service ingress-nginx/ingress-nginx-controller"),
                zoneC.toString());
        assertTrue(
                texts(zoneC.path("related"))
                        .contains(
                                "Kubernetes cluster \"prod\" (the load balancer's tag elbv2.k8s.aws/cluster)"),
                zoneC.toString());
        JsonNode hu =
                unreported.stream()
                        .filter(f -> f.path("message").asString().contains("HealthUnavailable"))
                        .findFirst()
                        .orElseThrow();
        assertTrue(hu.path("message").asString().contains("shop-web"), hu.toString());
        assertTrue(texts(hu.path("related")).contains("Service shop/web"), hu.toString());

        // zone without healthy target: ingress-http in c (high); ingress-https in b and c, but one
        // healthy target's
        // zone is unknown (i-0gone), so those say so and are medium
        List<String> noHealthy =
                findings(rep, "aws-nlb-zone-without-healthy-target").stream()
                        .map(
                                f ->
                                        f.path("severity").asString()
                                                + " "
                                                + f.path("message")
                                                        .asString()
                                                        .replaceAll(
                                                                ".*zone (eu-west-2.) has no healthy target of target group (\\S+).*",
                                                                "$1 $2"))
                        .sorted()
                        .toList();
        assertEquals(
                List.of(
                        "high eu-west-2c ingress-http",
                        "medium eu-west-2b ingress-https",
                        "medium eu-west-2c ingress-https"),
                noHealthy);
        JsonNode withNote =
                findings(rep, "aws-nlb-zone-without-healthy-target").stream()
                        .filter(f -> f.path("severity").asString().equals("medium"))
                        .findFirst()
                        .orElseThrow();
        assertTrue(
                texts(withNote.path("notes")).get(0).contains("i-0gone:443"), withNote.toString());
        assertTrue(
                withNote.path("message").asString().contains("(AWS default)"), withNote.toString());

        List<JsonNode> shift = findings(rep, "aws-nlb-zonal-shift-disabled");
        assertEquals(
                List.of("ingress-nlb"),
                shift.stream().map(f -> f.path("location").path("name").asString()).toList());
        List<JsonNode> slow = findings(rep, "aws-tg-health-check-slow-detection");
        assertEquals(1, slow.size(), slow.toString());
        assertTrue(
                slow.get(0).path("message").asString().contains("30 x 10 = 300 s"),
                slow.toString());
        assertEquals("medium", slow.get(0).path("severity").asString());
    }

    @Test
    void targetsWithTheirZoneInTheResponseNeedNoEc2Call() {
        String lb = fake.lb("nlb", "network", A, B);
        String tg = fake.tg("tg", "ip", 10, 5, 3, lb);
        fake.target(tg, "10.0.1.10", 80, A, "healthy", null, null);
        fake.target(tg, "10.0.2.10", 80, B, "healthy", null, null);
        TestSupport.Run r = scan(env(), "--format", "json");
        assertEquals(1, r.code(), r.err()); // zonal shift off
        assertEquals(
                Map.of(
                        "DescribeLoadBalancers",
                        1,
                        "DescribeTargetGroups",
                        1,
                        "DescribeLoadBalancerAttributes",
                        1,
                        "DescribeTags",
                        1,
                        "DescribeTargetGroupAttributes",
                        1,
                        "DescribeTargetHealth",
                        1,
                        "GetCallerIdentity",
                        1),
                fake.callsByAction());
        assertEquals(
                List.of("aws-nlb-zonal-shift-disabled"),
                findings(json(r), "aws-nlb-zonal-shift-disabled").stream()
                        .map(f -> f.path("ruleId").asString())
                        .toList());
        assertEquals(List.of(), findings(json(r), "aws-nlb-zone-without-healthy-target"));
    }

    @Test
    void throttlingIsRetriedFourTimesLikeKubernetes() {
        il0364();
        fake.throttle(
                "DescribeLoadBalancers",
                3); // 3 throttles, then answers: the 4th attempt gets through
        TestSupport.Run r = scan(env(), "--format", "json");
        assertEquals(List.of(), fake.problems());
        assertEquals(1, r.code(), r.err());
        assertEquals(2 + 3, fake.calls("DescribeLoadBalancers"));
    }

    @Test
    void throttlingIsRetriedAndAccessDeniedIsCoverageNotAnError() {
        il0364();
        fake.throttle("DescribeLoadBalancers", 1);
        fake.deny("DescribeTags");
        Path snap = tmp.resolve("out/snap.json");
        TestSupport.Run r = scan(env(), "--format", "json", "--snapshot-out", snap.toString());
        assertEquals(List.of(), fake.problems());
        assertEquals(3, r.code(), r.err());
        assertTrue(r.err().contains("scan incomplete"), r.err());
        assertEquals(
                2 + 1, fake.calls("DescribeLoadBalancers")); // one Throttling, retried by the SDK
        assertEquals(1, fake.calls("DescribeTags")); // AccessDenied is not retried
        JsonNode rep = json(r);
        List<JsonNode> denied = new ArrayList<>();
        rep.path("coverage")
                .path("entries")
                .forEach(
                        e -> {
                            if (!e.path("status").asString().equals("read")) {
                                denied.add(e);
                            }
                        });
        assertEquals(1, denied.size(), denied.toString());
        assertEquals("denied", denied.get(0).path("status").asString());
        assertEquals("DescribeTags eu-west-2", denied.get(0).path("scope").asString());
        String detail = denied.get(0).path("detail").asString();
        assertTrue(
                detail.startsWith(
                        "AccessDenied: User: arn:aws:iam::123456789012:user/deja is not authorized"),
                detail);
        assertTrue(
                detail.contains(
                        "Kubernetes objects behind these load balancers not named: alb-web, ingress-nlb, nlb-shop"),
                detail);
        // the rest of the scan went on: all three load balancers were listed across the throttled
        // pages
        assertEquals(2, findings(rep, "aws-nlb-zone-health-unreported").size());
        assertEquals(1, findings(rep, "aws-nlb-zonal-shift-disabled").size());

        // the saved snapshot keeps what was not checked: scanning it offline is still incomplete
        int calls = fake.totalCalls();
        TestSupport.Run offline = TestSupport.run("scan", snap.toString());
        assertEquals(3, offline.code(), offline.err());
        assertTrue(
                offline.out().contains("DescribeTags eu-west-2 (saved in " + snap + ")"),
                offline.out());
        assertEquals(calls, fake.totalCalls());

        // the same scan accepted as partial: exit 1 for the findings
        TestSupport.Run partial = scan(env(), "--allow-partial", "--format", "json");
        assertEquals(1, partial.code(), partial.err());
    }

    @Test
    void everyTargetStateAndEveryZoneSourceReachesTheSnapshot() throws Exception {
        il0364();
        Path snap = tmp.resolve("snap.json");
        TestSupport.Run r = scan(env(), "--snapshot-out", snap.toString());
        assertEquals(1, r.code(), r.err());
        JsonNode aws = JSON.readTree(Files.readString(snap)).path("parts").path("aws");
        Set<String> states = new TreeSet<>();
        Map<String, String> zoneOf = new HashMap<>();
        Map<String, String> sourceOf = new HashMap<>();
        for (JsonNode tg : aws.path("targetGroups")) {
            for (JsonNode t : tg.path("targets")) {
                states.add(t.path("state").asString());
                zoneOf.put(t.path("id").asString(), t.path("zone").asString(null));
                sourceOf.put(t.path("id").asString(), t.path("zoneSource").asString());
            }
        }
        assertEquals(
                new TreeSet<>(
                        List.of(
                                "initial",
                                "healthy",
                                "unhealthy",
                                "unused",
                                "draining",
                                "unavailable")),
                states);
        assertEquals(
                A,
                zoneOf.get("10.0.1.10")); // vpc-1's subnet, not vpc-2's subnet-x with the same CIDR
        assertEquals(C, zoneOf.get("10.0.3.11"));
        assertEquals("subnet", sourceOf.get("10.0.3.11"));
        assertEquals(B, zoneOf.get("i-0bbb"));
        assertEquals("instance", sourceOf.get("i-0bbb"));
        assertEquals(A, zoneOf.get("10.0.1.99"));
        assertEquals("target", sourceOf.get("10.0.1.99"));
        assertEquals(null, zoneOf.get("i-0gone"));
        assertEquals("unknown", sourceOf.get("i-0gone"));
        JsonNode shop = null;
        for (JsonNode tg : aws.path("targetGroups")) {
            if (tg.path("name").asString().equals("shop-web")) {
                shop = tg;
            }
        }
        assertEquals("HealthUnavailable", shop.path("healthError").path("code").asString());
        JsonNode ingress = null;
        for (JsonNode lb : aws.path("loadBalancers")) {
            if (lb.path("name").asString().equals("ingress-nlb")) {
                ingress = lb;
            }
        }
        assertEquals("network", ingress.path("type").asString());
        assertEquals(
                "ingress-nlb-1234567890.elb.amazonaws.com", ingress.path("dnsName").asString());
        assertFalse(
                ingress.path("attributes")
                        .has("load_balancing.cross_zone.enabled")); // kept as returned

        // offline re-scan of the saved snapshot: the same findings as a live scan, and no AWS call
        TestSupport.Run live = scan(env(), "--format", "json");
        int before = fake.totalCalls();
        TestSupport.Run offline = TestSupport.run("scan", snap.toString(), "--format", "json");
        assertEquals(1, offline.code(), offline.err());
        assertEquals(messages(json(live)), messages(json(offline)));
        assertEquals(before, fake.totalCalls());
    }

    static List<String> messages(JsonNode rep) {
        List<String> out = new ArrayList<>();
        rep.path("findings")
                .forEach(
                        f ->
                                out.add(
                                        f.path("ruleId").asString()
                                                + " "
                                                + f.path("message").asString()));
        return out;
    }

    @Test
    void deniedAttributesAreNotReplacedByDefaults() {
        il0364();
        fake.deny("DescribeLoadBalancerAttributes");
        TestSupport.Run r = scan(env(), "--format", "json");
        assertEquals(3, r.code(), r.err());
        JsonNode rep = json(r);
        // without the attributes deja does not know whether zonal shift or cross-zone is on: it
        // says nothing
        assertEquals(List.of(), findings(rep, "aws-nlb-zonal-shift-disabled"));
        assertEquals(List.of(), findings(rep, "aws-nlb-zone-without-healthy-target"));
        assertEquals(2, findings(rep, "aws-nlb-zone-health-unreported").size());
        String detail = null;
        for (JsonNode e : rep.path("coverage").path("entries")) {
            if (e.path("scope").asString().equals("DescribeLoadBalancerAttributes eu-west-2")) {
                detail = e.path("status").asString() + ": " + e.path("detail").asString();
            }
        }
        assertTrue(
                detail != null
                        && detail.startsWith("denied: AccessDenied")
                        && detail.endsWith(
                                "cross-zone and zonal-shift settings not checked for load balancers alb-web, ingress-nlb, nlb-shop"),
                detail);
    }

    @Test
    void deniedTargetHealthIsCoverageAndNoZoneIsCalledEmpty() {
        il0364();
        fake.deny("DescribeTargetHealth");
        TestSupport.Run r = scan(env(), "--format", "json");
        assertEquals(3, r.code(), r.err());
        JsonNode rep = json(r);
        assertEquals(List.of(), findings(rep, "aws-nlb-zone-without-healthy-target"));
        assertEquals(List.of(), findings(rep, "aws-nlb-cross-zone-off-uneven"));
        assertEquals(0, fake.calls("DescribeSubnets") + fake.calls("DescribeInstances"));
        assertTrue(
                rep.path("coverage")
                        .toString()
                        .contains(
                                "target health not checked for target groups ingress-http,"
                                        + " ingress-https, orphan, shop-web, web-slow"),
                rep.path("coverage").toString());
    }

    @Test
    void aHealthCallFailingToTheEndIsAFailedScopeNamingTheGroup() {
        il0364();
        String tg =
                fake.tgs.stream()
                        .filter(t -> t.name().equals("ingress-http"))
                        .findFirst()
                        .orElseThrow()
                        .arn();
        fake.healthError(tg, 503, "ServiceUnavailable", "Service is unavailable, try again later");
        TestSupport.Run r = scan(env(), "--format", "json");
        assertEquals(3, r.code(), r.err());
        assertEquals(
                5 + 3 + 3,
                fake.calls("DescribeTargetHealth")); // 4 attempts each for the 503 and the
        // HealthUnavailable
        JsonNode rep = json(r);
        String detail = null;
        for (JsonNode e : rep.path("coverage").path("entries")) {
            if (e.path("status").asString().equals("failed")) {
                detail = e.path("scope").asString() + ": " + e.path("detail").asString();
            }
        }
        assertEquals(
                "DescribeTargetHealth eu-west-2: ServiceUnavailable: Service is unavailable, try again later;"
                        + " target health not checked for target groups ingress-http",
                detail);
        // ingress-http's zone c is no longer reported (its health is unknown); ingress-https still
        // is
        assertTrue(
                findings(rep, "aws-nlb-zone-without-healthy-target").stream()
                        .noneMatch(f -> f.path("message").asString().contains("ingress-http ")),
                rep.toString());
    }

    @Test
    void everyRegionIsReadWithItsOwnSigningScope() {
        String lb = fake.lb("nlb", "network", A, B);
        String tg = fake.tg("tg", "ip", 10, 5, 3, lb);
        fake.target(tg, "10.0.1.10", 80, A, "healthy", null, null);
        TestSupport.Run r = scan(env(), "--region", "eu-west-1", "--format", "json");
        assertEquals(1, r.code(), r.err());
        // and one STS GetCallerIdentity (the report's target.account)
        assertEquals(
                Set.of(
                        "eu-west-1/elasticloadbalancing",
                        "eu-west-2/elasticloadbalancing",
                        "eu-west-2/sts"),
                fake.signingScopes());
        assertEquals(2, fake.calls("DescribeLoadBalancers"));
        List<String> regions = new ArrayList<>();
        findings(json(r), "aws-nlb-zonal-shift-disabled")
                .forEach(f -> regions.add(f.path("location").path("region").asString()));
        assertEquals(List.of("eu-west-1", "eu-west-2"), regions.stream().sorted().toList());
    }

    static String readString(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void regionsAreReadAtTheSameTime() {
        String lb = fake.lb("nlb", "network", A, B);
        String tg = fake.tg("tg", "ip", 10, 5, 3, lb);
        fake.target(tg, "10.0.1.10", 80, A, "healthy", null, null);
        // each region's first call waits for the other region's: met only when both are in flight
        // together
        fake.rendezvous("DescribeLoadBalancers", 3, 5_000);
        TestSupport.Run r =
                scan(env(), "--region", "eu-west-1", "--region", "us-east-1", "--format", "json");
        assertEquals(1, r.code(), r.err());
        assertTrue(
                fake.rendezvousMet(),
                "the three regions' DescribeLoadBalancers calls were in flight together");
        List<String> regions = new ArrayList<>();
        findings(json(r), "aws-nlb-zonal-shift-disabled")
                .forEach(f -> regions.add(f.path("location").path("region").asString()));
        assertEquals(
                List.of("eu-west-1", "eu-west-2", "us-east-1"), regions.stream().sorted().toList());
        // whatever order the regions finish in, the inventory is sorted by region (and ARN)
        Path snap = tmp.resolve("regions.json");
        TestSupport.Run saved =
                scan(
                        env(),
                        "--region",
                        "eu-west-1",
                        "--region",
                        "us-east-1",
                        "--snapshot-out",
                        snap.toString());
        assertEquals(1, saved.code(), saved.err());
        List<String> order = new ArrayList<>();
        for (JsonNode lbNode :
                JsonMapper.builder()
                        .build()
                        .readTree(readString(snap))
                        .path("parts")
                        .path("aws")
                        .path("loadBalancers")) {
            order.add(lbNode.path("region").asString());
        }
        assertEquals(List.of("eu-west-1", "eu-west-2", "us-east-1"), order, readString(snap));
    }

    @Test
    void expiredCredentialsAreOneLineAndExit3() {
        il0364();
        fake.expiredCredentials();
        TestSupport.Run r = scan(env());
        assertEquals(3, r.code(), r.err());
        List<String> lines = r.err().lines().filter(l -> l.contains("aws")).toList();
        assertEquals(1, lines.size(), r.err());
        assertEquals(
                "deja: aws: AWS rejected the credentials (ExpiredToken: The security token included in the"
                        + " request is expired)",
                lines.get(0));
        assertFalse(r.err().contains("\tat "), r.err());
    }

    @Test
    void missingProfileIsOneLineAndExit3() throws Exception {
        Path cfg = tmp.resolve("config");
        Files.writeString(cfg, "[profile other]\nregion = eu-west-1\n");
        Map<String, String> env = new HashMap<>();
        env.put("AWS_CONFIG_FILE", cfg.toString());
        env.put("AWS_SHARED_CREDENTIALS_FILE", tmp.resolve("none").toString());
        TestSupport.Run r = scan(env, "--profile", "ghost");
        assertEquals(3, r.code(), r.err());
        assertTrue(
                r.err().startsWith("deja: aws: --profile ghost: no such profile in " + cfg),
                r.err());
        assertEquals(0, fake.totalCalls());
    }

    @Test
    void aProfileWithoutCredentialsIsOneLineAndExit3() throws Exception {
        Path cfg = tmp.resolve("config");
        Files.writeString(cfg, "[profile empty]\nregion = " + REGION + "\n");
        Map<String, String> env =
                Map.of(
                        "AWS_CONFIG_FILE",
                        cfg.toString(),
                        "AWS_SHARED_CREDENTIALS_FILE",
                        tmp.resolve("none").toString());
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        env,
                        "scan",
                        "--aws",
                        "--aws-endpoint",
                        fake.url(),
                        "--profile",
                        "empty");
        assertEquals(3, r.code(), r.err());
        List<String> lines = r.err().lines().toList();
        assertEquals(2, lines.size(), r.err()); // the reason, then "scan incomplete"
        assertTrue(
                lines.get(0).startsWith("deja: aws: no usable AWS credentials for profile empty: "),
                r.err());
        assertTrue(
                lines.get(0)
                        .endsWith(
                                "(use --profile NAME, AWS_PROFILE, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY"
                                        + " or 'aws sso login')"),
                r.err());
        assertEquals(0, fake.totalCalls());
    }

    @Test
    void profileCredentialsAndRegionComeFromTheProfile() throws Exception {
        il0364();
        Path cfg = tmp.resolve("config");
        Files.writeString(cfg, "[profile ci]\nregion = " + REGION + "\n");
        Path cred = tmp.resolve("credentials");
        Files.writeString(
                cred, "[ci]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = s3cret\n");
        Map<String, String> env =
                Map.of(
                        "AWS_CONFIG_FILE",
                        cfg.toString(),
                        "AWS_SHARED_CREDENTIALS_FILE",
                        cred.toString());
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        env,
                        "scan",
                        "--aws",
                        "--aws-endpoint",
                        fake.url(),
                        "--profile",
                        "ci");
        assertEquals(1, r.code(), r.err());
        assertEquals(Set.of("AKIDPROFILE"), fake.accessKeys());
    }

    @Test
    void noRegionIsOneLineAndExit3() {
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        env(),
                        "scan",
                        "--aws",
                        "--aws-endpoint",
                        fake.url());
        assertEquals(3, r.code(), r.err());
        assertTrue(r.err().startsWith("deja: aws: no AWS region: give --region REGION"), r.err());
        assertEquals(0, fake.totalCalls());
    }

    @Test
    void badRegionAndEndpointAreUsageErrors() {
        TestSupport.Run r = scan(env(), "--region", "Mars");
        assertEquals(2, r.code(), r.err());
        assertEquals("deja: --region Mars: not an AWS region name (e.g. eu-west-2)\n", r.err());
        TestSupport.Run e =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        env(),
                        "scan",
                        "--aws",
                        "--aws-endpoint",
                        "ftp://x",
                        "--region",
                        REGION);
        assertEquals(2, e.code(), e.err());
        assertEquals("deja: --aws-endpoint ftp://x: not an http(s) URL\n", e.err());
    }

    @Test
    void unreachableEndpointIsOneLineAndExit3() {
        String url = fake.url();
        fake.close();
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        env(),
                        "scan",
                        "--aws",
                        "--aws-endpoint",
                        url,
                        "--region",
                        REGION);
        assertEquals(3, r.code(), r.err());
        assertTrue(r.err().startsWith("deja: aws: cannot reach ELBv2 in eu-west-2: "), r.err());
        assertEquals(1, r.err().lines().filter(l -> l.startsWith("deja: aws")).count(), r.err());
    }

    @Test
    void podRoleThroughWebIdentityTokenIsExchangedWithStsAndUsed() throws Exception {
        il0364();
        Path token = tmp.resolve("token");
        Files.writeString(token, "eyJhbGciOiJSUzI1NiJ9.projected-service-account-token\n");
        Map<String, String> env = new HashMap<>();
        env.put("AWS_CONFIG_FILE", tmp.resolve("no-config").toString());
        env.put("AWS_SHARED_CREDENTIALS_FILE", tmp.resolve("no-credentials").toString());
        env.put("AWS_WEB_IDENTITY_TOKEN_FILE", token.toString());
        env.put("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/deja-readonly");
        TestSupport.Run r = scan(env, "--format", "json");
        assertEquals(1, r.code(), r.err());
        assertEquals(
                List.of(
                        "arn:aws:iam::123456789012:role/deja-readonly deja eyJhbGciOiJSUzI1NiJ9.projected-service-account-token"),
                fake.webIdentityCalls());
        assertEquals(
                Set.of(FakeAws.WEB_IDENTITY_KEY),
                fake.accessKeys(),
                "ELBv2 calls are signed with the role's credentials");
        assertEquals(List.of(), fake.problems());
        assertTrue(r.out().contains("aws-nlb-zone-health-unreported"), r.out());
    }
}
