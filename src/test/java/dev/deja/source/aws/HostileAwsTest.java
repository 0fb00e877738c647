package dev.deja.source.aws;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** Issue 17 (1, 9): an ELBv2 endpoint that pages forever, or fails half-way through a list. */
class HostileAwsTest {
    @TempDir Path tmp;
    FakeAws fake;

    @BeforeEach
    void start() throws Exception {
        fake = FakeAws.start(AwsLiveSourceTest.REGION);
    }

    @AfterEach
    void stop() {
        fake.close();
    }

    private Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put("AWS_ACCESS_KEY_ID", "AKIDDEJATEST");
        env.put("AWS_SECRET_ACCESS_KEY", "deja-test-secret");
        env.put("AWS_CONFIG_FILE", tmp.resolve("no-config").toString());
        env.put("AWS_SHARED_CREDENTIALS_FILE", tmp.resolve("no-credentials").toString());
        return env;
    }

    private TestSupport.Run scan(Map<String, String> env) {
        return TestSupport.runWith(
                new ByteArrayInputStream(new byte[0]),
                env,
                "scan",
                "--aws",
                "--aws-endpoint",
                fake.url(),
                "--region",
                AwsLiveSourceTest.REGION,
                "--format",
                "json");
    }

    private static String page(String marker) {
        return "    <LoadBalancers>\n    </LoadBalancers>\n"
                + (marker == null ? "" : "    <NextMarker>" + marker + "</NextMarker>\n");
    }

    private static List<JsonNode> notRead(JsonNode rep) {
        List<JsonNode> out = new ArrayList<>();
        rep.path("coverage")
                .path("entries")
                .forEach(
                        e -> {
                            if (!e.path("status").asString().equals("read")) {
                                out.add(e);
                            }
                        });
        return out;
    }

    @Test
    void aRepeatedMarkerStopsTheList() {
        fake.hostile(
                (action, p) ->
                        action.equals("DescribeLoadBalancers")
                                ? new Object[] {200, page("same")}
                                : null);
        TestSupport.Run r = scan(env());
        assertEquals(3, r.code(), r.err());
        assertEquals(
                2,
                fake.calls("DescribeLoadBalancers"),
                "the second answer repeats the marker of the first");
        List<JsonNode> bad = notRead(AwsLiveSourceTest.json(r));
        assertEquals(1, bad.size(), bad.toString());
        assertEquals("DescribeLoadBalancers eu-west-2", bad.get(0).path("scope").asString());
        assertEquals("failed", bad.get(0).path("status").asString());
        assertTrue(
                bad.get(0)
                        .path("detail")
                        .asString()
                        .startsWith("the endpoint sent the same NextMarker again (page 2)"),
                bad.get(0).toString());
    }

    @Test
    void newMarkersForeverStopAtThePageCap() {
        AtomicInteger n = new AtomicInteger();
        fake.hostile(
                (action, p) ->
                        action.equals("DescribeLoadBalancers")
                                ? new Object[] {200, page("m" + n.incrementAndGet())}
                                : null);
        TestSupport.Run r = scan(env());
        assertEquals(3, r.code(), r.err());
        assertEquals(RegionScan.MAX_PAGES, fake.calls("DescribeLoadBalancers"));
        String detail = notRead(AwsLiveSourceTest.json(r)).get(0).path("detail").asString();
        assertTrue(
                detail.startsWith("more than 1000 pages of 400 (the most deja reads for one list)"),
                detail);
    }

    @Test
    void aSlowEndlessListStopsAtItsDeadline() {
        AtomicInteger n = new AtomicInteger();
        fake.latency(200);
        fake.hostile(
                (action, p) ->
                        action.equals("DescribeLoadBalancers")
                                ? new Object[] {200, page("m" + n.incrementAndGet())}
                                : null);
        Map<String, String> env = env();
        env.put("DEJA_LIST_DEADLINE", "1");
        TestSupport.Run r = scan(env);
        assertEquals(3, r.code(), r.err());
        assertTrue(
                fake.calls("DescribeLoadBalancers") < RegionScan.MAX_PAGES,
                "stopped by the deadline");
        String detail = notRead(AwsLiveSourceTest.json(r)).get(0).path("detail").asString();
        assertTrue(
                detail.startsWith("the list did not end within 1 s (DEJA_LIST_DEADLINE, "), detail);
        TestSupport.Run bad =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of("DEJA_LIST_DEADLINE", "soon"),
                        "scan",
                        "--aws",
                        "--region",
                        "eu-west-2");
        assertEquals(2, bad.code(), bad.err());
        assertTrue(
                bad.err().startsWith("deja: DEJA_LIST_DEADLINE=soon: expected a number of seconds"),
                bad.err());
    }

    /**
     * Issue 17 (9): page 2 of DescribeTargetGroups fails: none of the target groups is used, as
     * coverage says.
     */
    @Test
    void aListThatFailsHalfWayIsNotUsedAtAll() {
        new AwsLiveSourceTest() {
            {
                fake = HostileAwsTest.this.fake;
                il0364(); // 5 target groups, pages of 2
            }
        };
        fake.hostile(
                (action, p) ->
                        action.equals("DescribeTargetGroups") && "2".equals(p.get("Marker"))
                                ? new Object[] {
                                    500,
                                    "<ErrorResponse xmlns=\""
                                            + FakeAws.ELB_NS
                                            + "\"><Error><Type>Receiver</Type>"
                                            + "<Code>InternalFailure</Code><Message>boom</Message></Error><RequestId>r</RequestId>"
                                            + "</ErrorResponse>"
                                }
                                : null);
        TestSupport.Run r = scan(env());
        assertEquals(3, r.code(), r.err());
        JsonNode rep = AwsLiveSourceTest.json(r);
        List<JsonNode> bad = notRead(rep);
        assertEquals(1, bad.size(), bad.toString());
        assertEquals("DescribeTargetGroups eu-west-2", bad.get(0).path("scope").asString());
        for (JsonNode f :
                rep.path("findings")) { // nothing from the groups of page 1 (ingress-http,
            // ingress-https)
            assertTrue(!f.toString().contains("targetgroup/"), f.toString());
        }
        assertEquals(
                0,
                fake.calls("DescribeTargetHealth"),
                "no target group of a partial list is read further");
    }

    /**
     * The EC2 lookups of target zones page with NextToken through the SDK's paginators too, with
     * the same guards: a DescribeSubnets that repeats its NextToken is stopped at page 2, failed in
     * the coverage, and its zones unused.
     */
    @Test
    void aRepeatedEc2NextTokenStopsTheZoneLookup() {
        new AwsLiveSourceTest() {
            {
                fake = HostileAwsTest.this.fake;
                il0364();
            }
        };
        fake.hostile(
                (action, p) ->
                        action.equals("DescribeSubnets")
                                ? new Object[] {
                                    200,
                                    "<DescribeSubnetsResponse xmlns=\""
                                            + FakeAws.EC2_NS
                                            + "\"><requestId>r</requestId><subnetSet/><nextToken>same</nextToken>"
                                            + "</DescribeSubnetsResponse>"
                                }
                                : null);
        TestSupport.Run r = scan(env());
        assertEquals(3, r.code(), r.err());
        assertEquals(
                2,
                fake.calls("DescribeSubnets"),
                "the second answer repeats the token of the first");
        List<JsonNode> bad = notRead(AwsLiveSourceTest.json(r));
        assertEquals(1, bad.size(), bad.toString());
        assertEquals("ec2:DescribeSubnets eu-west-2", bad.get(0).path("scope").asString());
        assertTrue(
                bad.get(0)
                        .path("detail")
                        .asString()
                        .startsWith("the endpoint sent the same NextToken again (page 2)"),
                bad.get(0).toString());
    }

    /**
     * Issue 17 (10): malformed XML is a failed call naming what was wrong, once in the coverage,
     * not "cannot reach".
     */
    @Test
    void malformedXmlIsAFailedCallNotAnUnreachableRegion() {
        fake.hostile(
                (action, p) ->
                        action.startsWith("Describe")
                                ? new Object[] {200, "<DescribeLoadBalancersResponse><oops"}
                                : null);
        TestSupport.Run r = scan(env());
        assertEquals(3, r.code(), r.err());
        List<JsonNode> bad = notRead(AwsLiveSourceTest.json(r));
        assertEquals(
                2,
                bad.size(),
                bad.toString()); // DescribeLoadBalancers and DescribeTargetGroups, once each
        for (JsonNode e : bad) {
            assertTrue(
                    e.path("detail")
                            .asString()
                            .startsWith("the endpoint's answer is not a valid Describe"),
                    e.toString());
        }
        assertTrue(
                !r.out().contains("cannot reach") && !r.err().contains("cannot reach"),
                r.out() + r.err());
    }
}
