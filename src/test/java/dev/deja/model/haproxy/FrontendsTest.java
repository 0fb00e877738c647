package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Effective settings of frontends and listens. */
class FrontendsTest {
    static List<Frontends.Frontend> of(String text) {
        return Frontends.of(HaproxyParserTest.parse(text));
    }

    @Test
    void inheritsModeAndTimeoutsWithHaproxyDefaults() {
        List<Frontends.Frontend> fs =
                of(
                        "defaults\n  timeout connect 2s\n  timeout client 1m\n"
                                + "frontend raw\n  bind :1\n"
                                + "defaults web\n  mode http\n  timeout tarpit 500ms\n  timeout http-keep-alive 3s\n"
                                + "listen app from web\n  bind :2\n  timeout http-request 5\n");
        Frontends.Frontend raw = fs.get(0);
        assertEquals("tcp", raw.mode(), "HAProxy's default mode");
        assertEquals(60_000, raw.client().millis());
        assertEquals(
                0,
                raw.tarpitHoldMillis(),
                "a frontend has no timeout connect for an unset tarpit to fall back to");
        assertTrue(
                raw.tarpitHoldSource().contains("HAProxy answers at once"), raw.tarpitHoldSource());
        Frontends.Frontend app = fs.get(1);
        assertTrue(app.http());
        assertEquals(5, app.httpRequest().millis(), "a bare number is milliseconds");
        assertEquals(3000, app.keepAlive().millis());
        assertEquals(500, app.tarpitHoldMillis());
        Frontends.Frontend zero =
                of("defaults\n  timeout connect 3s\n  timeout tarpit 0\nlisten f\n  bind :1\n")
                        .get(0);
        assertEquals(
                3000,
                zero.tarpitHoldMillis(),
                "HAProxy copies timeout connect into a tarpit timeout of 0");
        assertTrue(
                zero.tarpitHoldSource().contains("as timeout tarpit is 0 at"),
                zero.tarpitHoldSource());
        assertFalse(app.connect().set(), "named defaults 'web' does not inherit the anonymous one");
        assertEquals(List.of("app"), app.backends(), "a listen is its own backend");
    }

    @Test
    void tarpitHoldOfABackendIsItsOwnTimeoutElseItsDefaultsElseItsConnect() {
        // measured with HAProxy 2.6: 2s, 3s (defaults), 1s (connect); the frontend's own timeout
        // tarpit does not count
        HaproxyConfig c =
                HaproxyParserTest.parse(
                        "defaults\n  timeout connect 1s\n  timeout tarpit 3s\n"
                                + "frontend fe\n  bind :1\n  timeout tarpit 9s\n"
                                + "backend own\n  timeout tarpit 2s\nbackend inherited\n"
                                + "defaults plain\n  timeout connect 1s\nbackend conn from plain\n");
        assertEquals(2000, Frontends.tarpitHoldMillis(c.backend("own").orElseThrow()));
        assertEquals(3000, Frontends.tarpitHoldMillis(c.backend("inherited").orElseThrow()));
        assertEquals(1000, Frontends.tarpitHoldMillis(c.backend("conn").orElseThrow()));
        assertTrue(
                Frontends.tarpitHoldSource(c.backend("conn").orElseThrow())
                        .startsWith("timeout connect at"));
    }

    @Test
    void maxconnLevels() {
        List<Frontends.Frontend> fs =
                of(
                        "global\n  maxconn 1000\ndefaults\n  maxconn 300\n"
                                + "frontend a\n  bind :1 maxconn 50\nfrontend b\n  bind :2\n  maxconn 5000\n");
        assertEquals(300, fs.get(0).maxconn().effective(), "from defaults");
        assertEquals(50, fs.get(0).maxconn().binds().get(0).maxconn());
        assertEquals(
                -1, fs.get(1).maxconn().binds().get(0).maxconn(), "bind defaults to the frontend");
        assertEquals(1000, fs.get(1).maxconn().effective(), "capped by global");
        assertTrue(
                fs.get(1).maxconn().explain().contains("silently capped"),
                fs.get(1).maxconn().explain());
        Frontends.Frontend implicit = of("frontend x\n  bind :1\n").get(0);
        assertTrue(implicit.maxconn().globalImplicit());
        assertEquals(-1, implicit.maxconn().effective());
        assertTrue(implicit.maxconn().explain().startsWith("implicit"));
        Frontends.Frontend unknown = of("global\n  maxconn \"$M\"\nfrontend x\n  bind :1\n").get(0);
        assertEquals(-1, unknown.maxconn().global(), "an unset variable is unknown, not a number");
    }

    @Test
    void rateLimitsStickTablesAndBackends() {
        List<Frontends.Frontend> fs =
                of(
                        "backend rates\n  stick-table type ip size 1m store http_req_rate(10s)\n"
                                + "frontend a\n  bind :80\n  mode http\n  acl too_fast sc_http_req_rate(0) gt 10\n"
                                + "  http-request track-sc0 src table rates\n  http-request deny if too_fast\n"
                                + "  http-request deny if { path /admin }\n  use_backend be_%[req.hdr(host)]\n"
                                + "  use_backend api if { path_beg /api }\n  default_backend web\n"
                                + "frontend b\n  bind :81\n  mode http\n  stick-table type ip size 1m store conn_rate(3s)\n"
                                + "  tcp-request connection track-sc1 src\n"
                                + "  tcp-request connection reject if { sc1_conn_rate gt 20 }\n  default_backend web\n");
        Frontends.Frontend a = fs.get(0);
        assertEquals(1, a.rateRules().size(), "only the rule whose condition reads a rate");
        assertEquals(1, a.trackers().size());
        assertEquals(
                2, a.stickTables().get(0).line(), "the table named by track-sc0 ... table rates");
        assertEquals(1, a.stickTables().size());
        assertEquals(List.of("web", "api"), a.backends());
        assertTrue(a.dynamicBackends());
        Frontends.Frontend b = fs.get(1);
        assertTrue(b.rateLimited());
        assertEquals(1, b.stickTables().size());
    }

    @Test
    void saturationVisibilitySources() {
        assertEquals(
                1,
                Frontends.saturationVisibility(
                                HaproxyParserTest.parse("global\n  stats socket /s\n"))
                        .size());
        assertEquals(
                1,
                Frontends.saturationVisibility(
                                HaproxyParserTest.parse("listen s\n  stats uri /st\n"))
                        .size());
        assertEquals(
                0,
                Frontends.saturationVisibility(
                                HaproxyParserTest.parse("listen s\n  stats auth a:b\n"))
                        .size());
        assertEquals(
                1,
                Frontends.saturationVisibility(
                                HaproxyParserTest.parse(
                                        "frontend m\n  http-request use-service prometheus-exporter if { path /metrics }\n"))
                        .size());
    }
}
