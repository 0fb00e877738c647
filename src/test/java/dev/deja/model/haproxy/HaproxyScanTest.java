package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code deja scan} on HAProxy configs, end to end through the CLI. */
class HaproxyScanTest {
    @TempDir Path tmp;

    static final String TARPIT =
            "global\n  maxconn 800\ndefaults\n  mode http\n  timeout tarpit 1s\n"
                    + "  timeout client 10s\n  timeout http-request 5s\n  stats socket /tmp/s\n"
                    + "frontend fe\n  bind :80\n  http-request track-sc0 src\n"
                    + "  stick-table type ip size 1k store http_req_rate(1s)\n"
                    + "  http-request tarpit if { sc_http_req_rate(0) gt 20 }\n  default_backend be\n"
                    + "backend be\n  server s 127.0.0.1:1\n";

    Path write(String name, String text) throws IOException {
        Path p = tmp.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    static void assertInputError(TestSupport.Run r, String expected) {
        assertEquals(2, r.code(), r.out() + r.err());
        String err = r.err().strip();
        assertFalse(err.contains("\n"), "one line: " + err);
        assertTrue(err.contains(expected), err);
        assertFalse(err.contains("Exception") || err.contains("\tat "), err);
    }

    @Test
    void badInputsGiveOneLineAndExit2() throws IOException {
        assertInputError(
                TestSupport.run("scan", tmp.resolve("missing.cfg").toString()),
                "missing.cfg: no such file");
        Files.createDirectories(tmp.resolve("empty"));
        Files.writeString(tmp.resolve("empty/readme.txt"), "hello");
        assertInputError(
                TestSupport.run("scan", tmp.resolve("empty").toString()),
                "folder holds no HAProxy configuration");
        Path bin = tmp.resolve("bin.cfg");
        Files.write(bin, new byte[] {'g', 'l', 'o', 'b', 'a', 'l', '\n', 0, 1, 2, (byte) 0xff});
        assertInputError(TestSupport.run("scan", bin.toString()), "bin.cfg:2: binary file");
        Path nul = write("nul.cfg", "global\n  maxconn 10\n  log x\u0000y\n");
        assertInputError(
                TestSupport.run("scan", nul.toString()), "nul.cfg:3: binary file (NUL byte)");
        Path q = write("quote.cfg", "global\n  maxconn 10\nfrontend fe\n  bind \"127.0.0.1:80\n");
        assertInputError(
                TestSupport.run("scan", q.toString()), "quote.cfg:4: unterminated double quote");
        Path cond = write("cond.cfg", "global\n.if defined(X)\n  maxconn 10\n");
        assertInputError(
                TestSupport.run("scan", cond.toString()),
                "cond.cfg:2: .if without matching .endif");
    }

    @Test
    void secretsNeverAppearInAnyFormat() throws IOException {
        Path p =
                write(
                        "secret.cfg",
                        "userlist admins\n  user admin password $6$SECRETHASH\n"
                                + "  user bob insecure-password HUNTER2\n"
                                + "defaults\n  mode http\n  timeout tarpit 1s\n  stats auth admin:TOPSECRET\n"
                                + "frontend fe\n  bind :80\n  stats auth ops:OTHERSECRET\n"
                                + "  http-request auth realm x if !{ http_auth(admins) }\n"
                                + "  http-request tarpit if { hdr(x-key) -m str KEYSECRET }\n  default_backend be\n"
                                + "backend be\n  server s 127.0.0.1:1\n");
        for (String fmt : new String[] {"text", "json", "sarif", "junit"}) {
            TestSupport.Run r = TestSupport.run("scan", "--format", fmt, "--verbose", p.toString());
            assertEquals(1, r.code(), fmt + ": " + r.err());
            String all = r.out() + r.err();
            for (String secret :
                    new String[] {"SECRETHASH", "HUNTER2", "TOPSECRET", "OTHERSECRET"}) {
                assertFalse(all.contains(secret), fmt + " printed " + secret);
            }
            assertTrue(r.out().contains("haproxy-tarpit-holds-slots"), fmt);
        }
    }

    @Test
    void inlineSuppressionMovesTheFindingToSuppressed() throws IOException {
        Path p =
                write(
                        "s.cfg",
                        TARPIT.replace(
                                "  http-request tarpit",
                                "  # deja:ignore haproxy-tarpit-holds-slots only internal clients reach this\n  http-request tarpit"));
        // the rule it is about only: another rule firing on this config is not what this test
        // checks
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--format",
                        "json",
                        "--rules",
                        "haproxy-tarpit-holds-slots",
                        p.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(
                r.out().contains("\"suppressionReason\" : \"only internal clients reach this\""),
                r.out());
        TestSupport.Run plain =
                TestSupport.run(
                        "scan",
                        "--rules",
                        "haproxy-tarpit-holds-slots",
                        write("p.cfg", TARPIT).toString());
        assertEquals(1, plain.code());
        assertTrue(
                plain.out().contains("one client at 300 req/s holds 300 of 800 slots (38%"),
                plain.out());
    }

    @Test
    void aDanglingOrUnknownIgnoreIsReported() throws IOException {
        Path p =
                write(
                        "d.cfg",
                        TARPIT
                                + "# deja:ignore haproxy-nonexistent-rule typo in the id\n  log global\n"
                                + "# deja:ignore haproxy-tarpit-holds-slots nothing follows\n");
        TestSupport.Run r = TestSupport.run("scan", p.toString());
        assertTrue(
                r.err()
                        .contains(
                                "d.cfg:17: deja:ignore names unknown rule 'haproxy-nonexistent-rule'"),
                r.err());
        assertTrue(
                r.err()
                        .contains(
                                "d.cfg:19: deja:ignore haproxy-tarpit-holds-slots is followed by no directive"),
                r.err());
    }

    @Test
    void assumedClientRateChangesTheArithmetic() throws IOException {
        Path p = write("p.cfg", TARPIT);
        TestSupport.Run r = TestSupport.run("scan", "--assume-client-rps", "100", p.toString());
        assertTrue(
                r.out().contains("one client at 100 req/s holds 100 of 800 slots (13%"), r.out());
        assertTrue(r.out().contains("MEDIUM    haproxy-tarpit-holds-slots"), r.out());
    }

    @Test
    void eachFileIsItsOwnInstanceUnlessAskedOtherwise() throws IOException {
        Path a =
                write(
                        "conf.d/10-global.cfg",
                        "global\n  maxconn 500\n  stats socket /tmp/x\n"
                                + "defaults\n  mode http\n  timeout client 5s\n  timeout http-request 5s\n");
        Path b =
                write(
                        "conf.d/20-fe.cfg",
                        "frontend fe\n  bind :80\n  maxconn 400\n  default_backend be\n"
                                + "backend be\n  server s 127.0.0.1:1\n");
        // the rules whose verdict depends on what the other file sets (global maxconn, stats,
        // defaults)
        String rules =
                "haproxy-no-saturation-visibility,haproxy-maxconn-headroom,haproxy-missing-http-request-timeout";
        TestSupport.Run separate =
                TestSupport.run("scan", "--rules", rules, tmp.resolve("conf.d").toString());
        // alone, 20-fe.cfg is a tcp frontend with no maxconn above it and no stats
        assertTrue(separate.out().contains("haproxy-no-saturation-visibility"), separate.out());
        TestSupport.Run one =
                TestSupport.run(
                        "scan",
                        "--rules",
                        rules,
                        "--haproxy-one-instance",
                        tmp.resolve("conf.d").toString());
        assertEquals(0, one.code(), one.out() + one.err());
        assertTrue(one.out().contains("No findings."), one.out());
        TestSupport.Run order =
                TestSupport.run(
                        "scan",
                        "--rules",
                        rules,
                        "--haproxy-one-instance",
                        "--format",
                        "json",
                        b.toString(),
                        a.toString());
        // in this order the defaults come after the frontend: it is mode tcp and has no
        // http-request timeout to miss
        assertEquals(0, order.json().path("summary").path("total").asInt(), order.out());
    }

    @Test
    void envAndVersionDecideConditions() throws IOException {
        Path p =
                write(
                        "c.cfg",
                        "global\n  maxconn 1000\n  stats socket /tmp/x\n"
                                + "defaults\n  mode http\n  timeout client 10s\n"
                                + ".if defined(SLOW_CLIENTS_OK)\n.else\n  timeout http-request 5s\n.endif\n"
                                + ".if version_before(2.0)\n  timeout http-request 0\n.endif\n"
                                + "frontend fe\n  bind :80\n  maxconn \"$FE_MAXCONN\"\n  default_backend be\n"
                                + "backend be\n  server s 127.0.0.1:1\n");
        TestSupport.Run undecided =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of(),
                        "scan",
                        "--format",
                        "json",
                        p.toString());
        assertTrue(
                undecided.out().contains("haproxy-missing-http-request-timeout"), undecided.out());
        assertTrue(
                undecided.out().contains("on the path where .if defined(SLOW_CLIENTS_OK)"),
                undecided.out());
        TestSupport.Run decided =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of("FE_MAXCONN", "900"),
                        "scan",
                        "--env",
                        "SLOW_CLIENTS_OK=",
                        "--format",
                        "json",
                        p.toString());
        assertTrue(decided.out().contains("haproxy-missing-http-request-timeout"), decided.out());
        TestSupport.Run old =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of("FE_MAXCONN", "900"),
                        "scan",
                        "--haproxy-version",
                        "1.8",
                        "--format",
                        "json",
                        p.toString());
        assertTrue(old.out().contains("it is 0 at"), old.out());
        TestSupport.Run fromEnv =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of("FE_MAXCONN", "9000"),
                        "scan",
                        "--format",
                        "json",
                        "--rules",
                        "haproxy-maxconn-headroom",
                        p.toString());
        assertTrue(fromEnv.out().contains("maxconn 9000"), fromEnv.out());
    }

    @Test
    void stdinIsReadAsAConfig() {
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(TARPIT.getBytes(StandardCharsets.UTF_8)),
                        Map.of(),
                        "scan",
                        "--format",
                        "sarif",
                        "-");
        assertEquals(1, r.code(), r.err());
        assertTrue(r.out().contains("haproxy-tarpit-holds-slots"), r.out());
    }
}
