package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import org.junit.jupiter.api.Test;

/**
 * haproxy-roundrobin-same-start judges a configuration without a peers section only when the user
 * says how many instances run it ({@code --haproxy-instances}); one instance, or no word at all,
 * stays silent.
 */
class RoundRobinFleetTest {
    static final String SINGLE =
            "src/test/resources/fixtures/haproxy-roundrobin-same-start/single-instance_ok.cfg";

    @Test
    void aDeclaredFleetIsJudgedAndOneInstanceIsNot() {
        TestSupport.Run silent =
                TestSupport.run("scan", SINGLE, "--rules", "haproxy-roundrobin-same-start");
        assertEquals(0, silent.code(), silent.out() + silent.err());
        TestSupport.Run one =
                TestSupport.run(
                        "scan",
                        SINGLE,
                        "--rules",
                        "haproxy-roundrobin-same-start",
                        "--haproxy-instances",
                        "1");
        assertEquals(0, one.code(), one.out() + one.err());
        TestSupport.Run fleet =
                TestSupport.run(
                        "scan",
                        SINGLE,
                        "--rules",
                        "haproxy-roundrobin-same-start",
                        "--haproxy-instances",
                        "12");
        assertEquals(1, fleet.code(), fleet.out() + fleet.err());
        assertTrue(
                fleet.out()
                        .contains(
                                "backend be_api balances round robin (no balance line: HAProxy's default is"
                                        + " roundrobin) over 3 servers listed in ascending address order (10.2.0.11:8080 ... 10.2.0.13:8080), and"
                                        + " --haproxy-instances says 12 HAProxy instances run this configuration"),
                fleet.out());
        assertTrue(
                fleet.out().contains("up to 3x its share while they restart together"),
                fleet.out());
        TestSupport.Run bad = TestSupport.run("scan", SINGLE, "--haproxy-instances", "0");
        assertEquals(2, bad.code(), bad.err());
        assertTrue(bad.err().contains("--haproxy-instances: must be at least 1, not 0"), bad.err());
    }

    /**
     * Two instances (a keepalived pair, often one active) put at most twice its share on the first
     * server: a low finding that says so, not the Skyscanner claim (medium from 3 instances).
     */
    @Test
    void aPairIsALesserRiskThanAFleet() {
        TestSupport.Run pair =
                TestSupport.run(
                        "scan",
                        SINGLE,
                        "--rules",
                        "haproxy-roundrobin-same-start",
                        "--haproxy-instances=2",
                        "--format",
                        "json");
        assertEquals(0, pair.code(), pair.out() + pair.err()); // low is under --fail-on medium
        assertTrue(
                pair.out().contains("\"severity\" : \"low\"")
                        || pair.out().contains("\"severity\":\"low\""),
                pair.out());
        assertTrue(
                pair.out()
                        .contains(
                                "2 instances in step send their first 2 requests to that one server"
                                        + " where round robin from different starts would spread them over 2 of"
                                        + " the 3 servers: up to 2x its share while they restart together"
                                        + " (under 3x: a lesser risk"),
                pair.out());
        assertTrue(!pair.out().contains("as Skyscanner's ingress fleet did"), pair.out());
        TestSupport.Run three =
                TestSupport.run(
                        "scan",
                        SINGLE,
                        "--rules",
                        "haproxy-roundrobin-same-start",
                        "--haproxy-instances=3");
        assertEquals(1, three.code(), three.out() + three.err());
        assertTrue(three.out().contains("as Skyscanner's ingress fleet did"), three.out());
    }
}
