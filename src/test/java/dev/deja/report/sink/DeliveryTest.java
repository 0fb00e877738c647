package dev.deja.report.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.report.Baseline;
import dev.deja.report.JsonReporter;
import dev.deja.report.Report;
import dev.deja.report.ReportFixtures;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class DeliveryTest {
    @Test
    void failuresAreWordedAsHttpClientSendWordedThem() {
        assertEquals(
                "java.io.IOException: EOF reached",
                Delivery.shown(new java.io.EOFException("EOF reached")));
        assertEquals("java.io.IOException", Delivery.shown(new java.io.IOException()));
        assertEquals(
                "javax.net.ssl.SSLException: bad record",
                Delivery.shown(new javax.net.ssl.SSLProtocolException("bad record")));
        assertEquals(
                "javax.net.ssl.SSLHandshakeException: PKIX",
                Delivery.shown(new javax.net.ssl.SSLHandshakeException("PKIX")));
        assertEquals(
                "java.net.ProtocolException: bad header",
                Delivery.shown(new java.net.ProtocolException("bad header")));
    }

    @Test
    void pushesMetricsWithPutToTheDefaultGroup() throws Exception {
        try (LoopbackServer gw = new LoopbackServer()) {
            assertNull(
                    Pushgateway.push(
                            gw.url(),
                            ReportFixtures.report(ReportFixtures.typical()),
                            Duration.ofSeconds(5)));
            LoopbackServer.Request req = gw.requests.get(0);
            assertEquals("PUT", req.method());
            assertEquals("/metrics/job/deja", req.path());
            assertTrue(
                    req.contentType().startsWith("text/plain; version=0.0.4"), req.contentType());
            assertTrue(
                    req.body().contains("deja_findings{rule=\"aws-nlb-zone-health-hidden\""),
                    req.body());
            // plain http: HTTP/1.1 without 'Upgrade: h2c' (the loopback server, like kubectl proxy,
            // rejects upgrades)
            assertEquals(0, gw.upgradeRequests.get());
        }
    }

    @Test
    void keepsAGroupingTheUserGives() {
        assertEquals(
                "http://gw:9091/metrics/job/nightly/cluster/prod",
                Pushgateway.groupUrl("http://gw:9091/metrics/job/nightly/cluster/prod"));
        assertEquals("http://gw:9091/metrics/job/deja", Pushgateway.groupUrl("http://gw:9091/"));
    }

    @Test
    void failuresComeBackAsOneLine() throws Exception {
        Report r = ReportFixtures.report(ReportFixtures.typical());
        try (LoopbackServer gw = new LoopbackServer()) {
            gw.status = 500;
            String why = Pushgateway.push(gw.url() + "/secret-token", r, Duration.ofSeconds(5));
            assertTrue(why.contains("HTTP 500"), why);
            assertTrue(
                    !why.contains("secret-token"),
                    "URL paths (webhook tokens) are not printed: " + why);
            gw.status = 200;
            gw.delayMillis = 1500;
            why = Notifier.send(gw.url(), r, Duration.ofMillis(300));
            assertTrue(why.contains("timed out"), why);
        }
        String why = Notifier.send(LoopbackServer.refusedUrl(), r, Duration.ofSeconds(5));
        assertTrue(why.contains("cannot connect"), why);
        assertTrue(
                Notifier.send("ftp://x/y", r, Duration.ofSeconds(1))
                        .contains("not an http(s) URL"));
        assertEquals(1, why.lines().count());
    }

    @Test
    void notificationIsSlackCompatibleAndListsOnlyNewFindings() throws Exception {
        var now = ReportFixtures.typical();
        String before =
                ReportFixtures.render(
                        new JsonReporter(),
                        ReportFixtures.report(
                                ReportFixtures.result(List.of(ReportFixtures.aws()))));
        Report r =
                ReportFixtures.report(now)
                        .withBaseline(Baseline.parse(before, "b.json").compare(now.findings()));
        try (LoopbackServer hook = new LoopbackServer()) {
            assertNull(Notifier.send(hook.url() + "/hooks/x", r, Duration.ofSeconds(5)));
            LoopbackServer.Request req = hook.requests.get(0);
            assertEquals("POST", req.method());
            assertEquals("application/json", req.contentType());
            assertEquals(0, hook.upgradeRequests.get());
            JsonNode body = JsonMapper.builder().build().readTree(req.body());
            String text = body.path("text").asString();
            assertTrue(
                    text.startsWith(
                            "deja: 2 new findings since the baseline (1 unchanged, 0 fixed)"),
                    text);
            assertTrue(text.contains("IL-0495,IL-0081 kube-lb-pods-fail-together"), text);
            assertTrue(text.contains("IL-0264 haproxy-tarpit-holds-slots"), text);
            assertTrue(!text.contains("aws-nlb"), "unchanged findings are not notified: " + text);
            assertTrue(
                    text.contains("&lt;script&gt;alert(1)&lt;/script&gt; \"quoted\" &amp; done"),
                    "Slack control characters are escaped: " + text);
            assertEquals(2, body.path("findings").size());
            assertTrue(body.path("findings").get(0).path("new").asBoolean());
        }
    }

    @Test
    void nothingNewSendsNothing() throws Exception {
        var now = ReportFixtures.result(List.of(ReportFixtures.aws()));
        String before = ReportFixtures.render(new JsonReporter(), ReportFixtures.report(now));
        Report r =
                ReportFixtures.report(now)
                        .withBaseline(Baseline.parse(before, "b.json").compare(now.findings()));
        try (LoopbackServer hook = new LoopbackServer()) {
            assertNull(Notifier.send(hook.url(), r, Duration.ofSeconds(5)));
            assertEquals(0, hook.requests.size());
        }
    }
}
