package dev.deja.haproxy;

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
        TestSupport.Run bad = TestSupport.run("scan", SINGLE, "--haproxy-instances", "0");
        assertEquals(2, bad.code(), bad.err());
        assertTrue(bad.err().contains("--haproxy-instances: must be at least 1, not 0"), bad.err());
    }
}
