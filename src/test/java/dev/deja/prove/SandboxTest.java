package dev.deja.prove;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.HaproxyConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pure parts of a proof, without haproxy: how the abuser is recognised, the sandbox copy, the
 * remedies.
 */
class SandboxTest {
    static final String HEAD =
            "defaults\n  mode http\n  timeout tarpit 1s\nbackend st\n"
                    + "  stick-table type string len 64 size 1k store http_req_rate(1s)\nfrontend fe\n  bind :80\n";

    static Frontends.Frontend fe(String text) {
        HaproxyConfig c = Prover.parse("t.cfg", text);
        return Prover.target(c, "fe");
    }

    static AbuserPlan plan(String text) {
        Frontends.Frontend f = fe(text);
        return AbuserPlan.of(f, Prover.abuserRule(f));
    }

    @Test
    void theTrackedKeyDecidesHowTheAbuserIsRecognised() {
        AbuserPlan path =
                plan(
                        HEAD
                                + "  http-request track-sc0 path table st\n"
                                + "  http-request tarpit if { sc_http_req_rate(0) gt 5 } { path_beg /ping/ }\n");
        assertEquals(AbuserPlan.Kind.PATH, path.kind());
        assertTrue(
                path.request(true, 0).startsWith("GET /ping/abuser HTTP/1.1"),
                path.request(true, 0));
        assertTrue(
                path.request(false, 3).startsWith("GET /ping/legit-3 HTTP/1.1"),
                path.request(false, 3));

        AbuserPlan param =
                plan(
                        HEAD
                                + "  http-request track-sc2 url_param(uuid) table st\n"
                                + "  http-request deny if { sc2_http_req_rate gt 5 }\n");
        assertEquals(AbuserPlan.Kind.URL_PARAM, param.kind());
        assertTrue(param.request(true, 0).startsWith("GET /?uuid=abuser "), param.request(true, 0));

        AbuserPlan host =
                plan(
                        HEAD
                                + "  http-request track-sc0 req.hdr(x-forwarded-for) table st\n"
                                + "  http-request tarpit if { hdr(host) -i hc-ping.com } { sc_http_req_rate(0) gt 5 }\n");
        assertEquals(AbuserPlan.Kind.HEADER, host.kind());
        assertTrue(
                host.request(true, 0).contains("\r\nHost: hc-ping.com\r\n"), host.request(true, 0));
        assertTrue(
                host.request(true, 0).contains("\r\nx-forwarded-for: 203.0.113.7\r\n"),
                host.request(true, 0));
    }

    @Test
    void conditionsTheAbuserDoesNotMeetAreSaid() {
        AbuserPlan p =
                plan(
                        HEAD
                                + "  acl api path_beg /api\n  http-request track-sc0 src table st\n"
                                + "  http-request tarpit if METH_POST api { sc_http_req_rate(0) gt 5 }\n");
        assertEquals("/api", p.pathPrefix());
        assertTrue(
                p.notes().stream().anyMatch(n -> n.contains("also reads METH_POST")),
                p.notes().toString());
        assertTrue(
                plan(HEAD
                                + "  http-request track-sc0 src table st\n"
                                + "  http-request tarpit if { sc_http_req_rate(0) gt 5 }\n")
                        .notes()
                        .isEmpty());
    }

    @Test
    void anAbuserNamedByAddressIsMappedToLoopbackAndSaidSo() {
        AbuserPlan p =
                plan(
                        HEAD
                                + "  acl abuser src 192.0.2.0/24 198.51.100.7\n  http-request tarpit if abuser\n");
        assertEquals(AbuserPlan.Kind.SRC, p.kind());
        assertEquals(Map.of(8, List.of("acl", "abuser", "src", "127.0.0.2")), p.aclRewrites());
        assertTrue(p.notes().get(0).contains("names the abuser by address"), p.notes().toString());
    }

    @Test
    void aKeyALoopbackClientCannotSetIsSaidNotGuessed() {
        AbuserPlan p =
                plan(
                        HEAD
                                + "  http-request track-sc0 ssl_c_s_dn(cn) table st\n"
                                + "  http-request tarpit if { sc_http_req_rate(0) gt 5 }\n");
        assertNotNull(p.unsatisfiable());
        assertTrue(p.unsatisfiable().contains("'ssl_c_s_dn(cn)'"), p.unsatisfiable());
        assertNull(
                plan(HEAD
                                + "  http-request track-sc0 src table st\n"
                                + "  http-request tarpit if { sc_http_req_rate(0) gt 5 }\n")
                        .unsatisfiable());
    }

    @Test
    void theSandboxKeepsTheLimitsAndTakesAwayTheOutside(@TempDir Path dir) throws Exception {
        String text =
                "global\n  maxconn 500\n  chroot /var/empty\n  daemon\n  stats socket /run/h.sock\n"
                        + HEAD
                        + "  bind :443 ssl crt /nope.pem alpn h2 maxconn 300\n  maxconn 400\n  timeout client 30s\n"
                        + "  http-request track-sc0 src table st\n  http-request tarpit if { sc_http_req_rate(0) gt 5 }\n"
                        + "  default_backend app\nbackend app\n  server a 10.0.0.1:80 check ssl verify none weight 10\n";
        HaproxyConfig c = Prover.parse("t.cfg", text);
        Sandbox s = Sandbox.write(c, dir, 9999, Map.of(), 100_000, dir);
        String out = s.text();
        assertTrue(
                out.contains("    maxconn 500\n")
                        && out.contains("    maxconn 400\n")
                        && out.contains("timeout client 30s"),
                "limits and timeouts as written: " + out);
        assertTrue(out.contains("http-request tarpit if { sc_http_req_rate(0) gt 5 }"), out);
        assertFalse(
                out.contains("chroot /var/empty")
                        || out.contains("daemon")
                        || out.contains("/run/h.sock"),
                out);
        assertTrue(out.contains("stats socket " + dir.resolve("s.sock")), out);
        assertTrue(
                out.matches("(?s).*bind 127\\.0\\.0\\.1:\\d+ maxconn 300\n.*"),
                "TLS dropped, bind maxconn kept: " + out);
        assertTrue(out.contains("server a 127.0.0.1:9999 weight 10\n"), out);
        assertEquals(
                1, s.frontendPorts().size(), "one frontend, its first bind: " + s.frontendPorts());
        Sandbox capped = Sandbox.write(c, dir, 9999, Map.of(), 200, dir);
        assertTrue(capped.text().contains("    maxconn 200\n"), capped.text());
        assertTrue(
                capped.changes().stream()
                        .anyMatch(x -> x.startsWith("global maxconn 500 (t.cfg:2) lowered to 200")),
                capped.changes().toString());
    }

    @Test
    void remediesAreAppliedToTheUsersTextAsADiff() {
        String text =
                "global\n  maxconn 800\n"
                        + HEAD
                        + "  maxconn 800\n  http-request track-sc0 src table st\n"
                        + "  http-request tarpit deny_status 429 if { sc_http_req_rate(0) gt 5 }\n";
        Frontends.Frontend f = fe(text);
        Remedy deny = Remedy.of(Prover.TARPIT, text, f, Map.of());
        assertTrue(
                deny.text()
                        .contains(
                                "  http-request deny deny_status 429 if { sc_http_req_rate(0) gt 5 }"),
                deny.text());
        assertEquals(
                "-  http-request tarpit deny_status 429 if { sc_http_req_rate(0) gt 5 }",
                deny.diff().get(1));
        Remedy t = Remedy.of(Prover.TIMEOUT, text, f, Map.of());
        assertTrue(
                t.text().contains("frontend fe\n  timeout http-request 5s\n  bind :80"), t.text());
        Remedy m = Remedy.of(Prover.MAXCONN, text, f, Map.of("wantedMaxconn", "1200"));
        assertEquals(2, m.text().split("maxconn 1200", -1).length - 1, m.text());
    }

    /**
     * The fix's set step rewrites the frontend's own line where it has one: an own {@code timeout
     * http-request 0} below the header would override a line added after it (HAProxy keeps the
     * last).
     */
    @Test
    void aSetStepRewritesTheFrontendsOwnLine() {
        String text = HEAD + "  timeout http-request 0\n  default_backend st\n";
        Frontends.Frontend f = fe(text);
        Remedy t = Remedy.of(Prover.TIMEOUT, text, f, Map.of());
        assertTrue(
                t.text().contains("  bind :80\n  timeout http-request 5s\n  default_backend st"),
                t.text());
        assertEquals(1, t.text().split("timeout http-request", -1).length - 1, t.text());
        assertEquals("-  timeout http-request 0", t.diff().get(1));
        assertEquals("timeout http-request 5s added to frontend fe", t.description());
    }

    /**
     * Every route out of the sandbox a config can name, as a pull request could bring it: what deja
     * writes has no address but 127.0.0.1, no socket or program of the config's, and the report
     * names each line left out.
     */
    @Test
    void noAddressOfTheConfigsReachesTheSandbox(@TempDir Path dir) throws Exception {
        String text =
                """
                global
                    maxconn 100
                    log 10.0.0.4:514 local0
                    stats socket ipv4@10.0.0.7:9999 level admin
                    unix-bind prefix /run/elsewhere
                    lua-load /tmp/evil.lua
                peers p
                    peer a 10.0.0.5:1024
                resolvers dns
                    nameserver n 10.0.0.53:53
                mailers m
                    mailer x 10.0.0.25:25
                program p
                    command /bin/sh -c id
                ring r
                    server r 10.0.0.6:514
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 5s
                    timeout server 5s
                    default-server addr 10.9.9.9 port 99 check
                frontend fe
                    bind 0.0.0.0:80
                    bind 10.1.2.3:443 ssl crt /etc/x.pem
                    bind unix@/run/x.sock
                    bind abns@foo
                    stick-table type ip size 1k store http_req_rate(1s) peers p
                    http-request track-sc0 src
                    http-request set-dst ipv4(10.1.1.1)
                    tcp-request content set-dst-port int(25)
                    http-request do-resolve(txn.x,dns) hdr(host)
                    http-request use-service lua.x
                    http-request tarpit if { sc_http_req_rate(0) gt 5 }
                    default_backend be
                backend be
                    option http_proxy
                    option transparent
                    http-check connect addr 10.0.0.8
                    source 10.0.0.1 usesrc clientip
                    dispatch 10.0.0.3:80
                    server s 10.0.0.9:80 source 10.0.0.1 usesrc clientip weight 5
                    server-template web 3 app.example:80 resolvers dns
                    email-alert to ops@example.com
                """;
        HaproxyConfig c = Prover.parse("hostile.cfg", text);
        Sandbox s = Sandbox.write(c, dir, 9999, Map.of(), 100_000, dir);
        String out = s.text();
        java.util.regex.Matcher ip =
                java.util.regex.Pattern.compile("\\b\\d{1,3}(\\.\\d{1,3}){3}\\b").matcher(out);
        while (ip.find()) {
            assertEquals("127.0.0.1", ip.group(), "only loopback in what haproxy runs:\n" + out);
        }
        for (String gone :
                List.of(
                        "unix@",
                        "abns@",
                        "ipv4@",
                        "/bin/sh",
                        "lua",
                        "peers",
                        "resolvers",
                        "mailer",
                        "ring",
                        "program",
                        "set-dst",
                        "do-resolve",
                        "use-service",
                        "http_proxy",
                        "transparent",
                        "dispatch",
                        "source",
                        "usesrc",
                        "app.example",
                        "/run/",
                        "email-alert",
                        "log ")) {
            assertFalse(out.contains(gone), gone + " in:\n" + out);
        }
        assertTrue(out.contains("server s 127.0.0.1:9999 weight 5"), out);
        assertTrue(out.contains("server-template web 3 127.0.0.1:9999"), out);
        assertEquals(4, out.split("bind 127\\.0\\.0\\.1:", -1).length - 1, out);
        String report = String.join("\n", s.changes());
        for (int line :
                List.of(3, 4, 5, 6, 7, 9, 11, 13, 15, 30, 31, 32, 33, 37, 38, 39, 40, 41, 44)) {
            assertTrue(
                    report.contains("hostile.cfg:" + line + " "),
                    "line " + line + " is named as left out:\n" + report);
        }
    }
}
