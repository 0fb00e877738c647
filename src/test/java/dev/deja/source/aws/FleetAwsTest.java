package dev.deja.source.aws;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.ByteArrayInputStream;
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

/**
 * Several AWS accounts in one run through one loopback endpoint speaking STS and ELBv2 (the fake
 * answers requests signed with an assumed role's credentials as that role's account), with the real
 * SDK clients: each account is assumed with AssumeRole (session "deja", the external id, the base
 * credentials of the environment), read on its own, and named by its account id in the report.
 */
class FleetAwsTest {
    static final String REGION = "eu-west-2";
    static final String OTHER = "210987654321";
    static final String ROLE_A = "arn:aws:iam::" + FakeAws.ACCOUNT + ":role/deja-audit";
    static final String ROLE_B = "arn:aws:iam::" + OTHER + ":role/deja-audit";
    static final String ROLE_DENIED = "arn:aws:iam::333333333333:role/deja-audit";

    @TempDir Path tmp;
    FakeAws a;
    FakeAws b;

    @BeforeEach
    void start() throws Exception {
        a = FakeAws.start(REGION);
        b = FakeAws.account(REGION, OTHER);
        a.assumable(ROLE_A, a);
        a.assumable(ROLE_B, b);
        a.lb("nlb-a", "network", "eu-west-2a", "eu-west-2b"); // zonal shift off: one finding each
        b.lb("nlb-b", "network", "eu-west-2a", "eu-west-2b");
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
    }

    Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put("AWS_ACCESS_KEY_ID", "AKIDDEJABASE");
        env.put("AWS_SECRET_ACCESS_KEY", "deja-test-secret");
        env.put("AWS_CONFIG_FILE", tmp.resolve("no-config").toString());
        env.put("AWS_SHARED_CREDENTIALS_FILE", tmp.resolve("no-credentials").toString());
        return env;
    }

    TestSupport.Run scan(String... extra) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "scan",
                                "--aws-endpoint",
                                a.url(),
                                "--region",
                                REGION,
                                "--format",
                                "json"));
        args.addAll(List.of(extra));
        return TestSupport.runWith(
                new ByteArrayInputStream(new byte[0]), env(), args.toArray(String[]::new));
    }

    @Test
    void twoAccountsByAssumedRoles() {
        TestSupport.Run r =
                scan("--role-arn", ROLE_A, "--role-arn", ROLE_B, "--external-id", "ext-42");
        assertEquals(1, r.code(), r.err());
        assertEquals(List.of(), a.problems());
        assertEquals(List.of(), b.problems());
        // AssumeRole per account, signed with the base credentials, session deja, the external id
        assertEquals(
                Set.of(ROLE_A + " deja ext-42 AKIDDEJABASE", ROLE_B + " deja ext-42 AKIDDEJABASE"),
                Set.copyOf(a.assumeRoleCalls()));
        // each account's load balancers were read with its own credentials, and only there
        assertEquals(1, a.calls("DescribeLoadBalancers"));
        assertEquals(1, b.calls("DescribeLoadBalancers"));
        JsonNode report = TestSupport.json(r.out());
        Map<String, String> accountOf = new TreeMap<>();
        for (JsonNode f : report.path("findings")) {
            accountOf.put(
                    f.path("location").path("name").asString(),
                    f.path("target").path("account").asString());
            assertFalse(f.path("target").has("cluster"), f.toString());
        }
        assertEquals(Map.of("nlb-a", FakeAws.ACCOUNT, "nlb-b", OTHER), accountOf);
        Set<String> targets = new TreeSet<>();
        report.path("targets")
                .forEach(
                        t ->
                                targets.add(
                                        t.path("account").asString()
                                                + " "
                                                + t.path("complete").asBoolean()));
        assertEquals(Set.of(FakeAws.ACCOUNT + " true", OTHER + " true"), targets);
        for (JsonNode e : report.path("coverage").path("entries")) {
            assertTrue(
                    Set.of(FakeAws.ACCOUNT, OTHER)
                            .contains(e.path("target").path("account").asString()),
                    e.toString());
        }
    }

    @Test
    void anAccountWhoseRoleCannotBeAssumedIsItsOwnCoverageEntry() {
        TestSupport.Run r = scan("--role-arn", ROLE_B, "--role-arn", ROLE_DENIED);
        assertEquals(3, r.code(), r.err());
        JsonNode report = TestSupport.json(r.out());
        JsonNode failed = null;
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (e.path("status").asString().equals("failed")) {
                failed = e;
            }
        }
        assertTrue(failed != null, report.path("coverage").toString());
        assertEquals(
                "333333333333",
                failed.path("target").path("account").asString(),
                failed.toString());
        assertTrue(
                failed.path("detail").asString().contains("cannot assume role " + ROLE_DENIED),
                failed.toString());
        assertTrue(r.err().contains("[aws 333333333333]"), r.err());
        // the other account was read in full
        Set<String> names = new TreeSet<>();
        report.path("findings")
                .forEach(
                        f ->
                                names.add(
                                        f.path("location").path("name").asString()
                                                + " "
                                                + f.path("target").path("account").asString()));
        assertEquals(Set.of("nlb-b " + OTHER), names);
    }

    @Test
    void roleOptionsAreChecked() {
        TestSupport.Run bad = scan("--role-arn", "arn:aws:iam::12:user/x");
        assertEquals(2, bad.code(), bad.err());
        assertTrue(bad.err().contains("not an IAM role ARN"), bad.err());
        TestSupport.Run ext = scan("--aws", "--external-id", "x");
        assertEquals(2, ext.code(), ext.err());
        assertTrue(ext.err().contains("--external-id: only with --role-arn"), ext.err());
    }
}
