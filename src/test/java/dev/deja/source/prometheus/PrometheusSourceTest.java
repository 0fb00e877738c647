package dev.deja.source.prometheus;

import static dev.deja.source.prometheus.FakePrometheus.error;
import static dev.deja.source.prometheus.FakePrometheus.vector;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.engine.Coverage;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.prometheus.PrometheusPeaks;
import dev.deja.source.ScanRequest;
import dev.deja.source.ScanTrace;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * --prometheus against loopback fakes: the figures of a fleet (a frontend at 790 of 800, one hot
 * HAProxy among idle ones), the credentials sent from files, a saved snapshot giving the same
 * findings, and every failure (400, 503, timeout, unreachable, 401, nothing found) as a coverage
 * entry naming the server and the query, exit 3.
 */
class PrometheusSourceTest {
    static Map<String, String> l(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    static String q(String name) {
        return PrometheusPeaks.promql(name, "7d");
    }

    /**
     * A fleet of four HAProxy instances scraped as job haproxy: 10.0.0.1 is hot, its fe_main at 790
     * of 800.
     */
    static FakePrometheus.Answer fleet(String promql) {
        if (promql.equals(q(PrometheusPeaks.FRONTEND_PEAK))) {
            return vector(
                    l("instance", "10.0.0.1:8405", "job", "haproxy", "proxy", "fe_main"),
                    790,
                    l("instance", "10.0.0.1:8405", "job", "haproxy", "proxy", "fe_admin"),
                    3,
                    l("instance", "10.0.0.2:8405", "job", "haproxy", "proxy", "fe_main"),
                    120);
        }
        if (promql.equals(q(PrometheusPeaks.FRONTEND_LIMIT))) {
            return vector(
                    l("instance", "10.0.0.1:8405", "job", "haproxy", "proxy", "fe_main"),
                    800,
                    l("instance", "10.0.0.1:8405", "job", "haproxy", "proxy", "fe_admin"),
                    100,
                    l("instance", "10.0.0.2:8405", "job", "haproxy", "proxy", "fe_main"),
                    800);
        }
        if (promql.equals(q(PrometheusPeaks.PROCESS_PEAK))) {
            return vector(
                    l("instance", "10.0.0.1:8405", "job", "haproxy"),
                    1950,
                    l("instance", "10.0.0.2:8405", "job", "haproxy"),
                    300,
                    l("instance", "10.0.0.3:8405", "job", "haproxy"),
                    250,
                    l("instance", "10.0.0.4:8405", "job", "haproxy"),
                    280);
        }
        if (promql.equals(q(PrometheusPeaks.PROCESS_LIMIT))) {
            return vector(
                    l("instance", "10.0.0.1:8405", "job", "haproxy"),
                    2000,
                    l("instance", "10.0.0.2:8405", "job", "haproxy"),
                    2000,
                    l("instance", "10.0.0.3:8405", "job", "haproxy"),
                    2000,
                    l("instance", "10.0.0.4:8405", "job", "haproxy"),
                    2000);
        }
        return vector();
    }

    static final String RULES = "haproxy-sessions-near-limit,lb-connections-near-capacity";

    @Test
    void aFleetFiresWithTheFiguresAndTheSeriesUsed(@TempDir Path dir) throws Exception {
        try (FakePrometheus p = new FakePrometheus(PrometheusSourceTest::fleet)) {
            Path saved = dir.resolve("snap.json");
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--prometheus",
                            p.url(),
                            "--rules",
                            RULES,
                            "--format",
                            "json",
                            "--snapshot-out",
                            saved.toString());
            assertEquals(1, r.code(), r.out() + r.err());
            assertEquals(
                    List.of(),
                    dev.deja.report.JsonReportSchemaTest.validate(r.json()),
                    "a report with Prometheus in its coverage is valid");
            assertTrue(
                    r.json().path("summary").path("sources").toString().contains("\"prometheus\""),
                    r.out());
            List<String> messages = messages(r.out());
            assertEquals(2, messages.size(), messages.toString());
            assertTrue(
                    messages.stream()
                            .anyMatch(
                                    m ->
                                            m.startsWith(
                                                    "frontend fe_main at instance 10.0.0.1:8405 reached"
                                                            + " 790 of 800 sessions in the last 7d (98%, Prometheus "
                                                            + p.url()
                                                            + ": max_over_time of"
                                                            + " haproxy_frontend_current_sessions{instance=\"10.0.0.1:8405\",job=\"haproxy\",proxy=\"fe_main\"}"
                                                            + " / haproxy_frontend_limit_sessions{")),
                    messages.toString());
            assertTrue(
                    messages.stream()
                            .anyMatch(
                                    m ->
                                            m.startsWith(
                                                    "HAProxy instance 10.0.0.1:8405 reached 1950"
                                                            + " connections in the last 7d, 97% of haproxy_process_max_connections 2000 (global maxconn);"
                                                            + " across the 4 instances of job haproxy: 97%, 15%, 14%, 12% (the others' median 14%): one hot"
                                                            + " instance among idle ones, the IL-0011 hot-pod shape")),
                    messages.toString());
            // every query was asked once, and said so in the coverage
            assertEquals(7, p.asked.size(), p.asked.toString());
            assertTrue(
                    r.out().contains("ingress-nginx controllers at " + p.url()),
                    "the absent kind is a note");

            // the saved snapshot gives the same findings offline
            TestSupport.Run again =
                    TestSupport.run("scan", saved.toString(), "--rules", RULES, "--format", "json");
            assertEquals(1, again.code(), again.out() + again.err());
            assertEquals(new TreeSet<>(messages), new TreeSet<>(messages(again.out())));
        }
    }

    @Test
    void deJaYamlNamesThePrometheusAndItsCredentials(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("token"), "from-the-config\n");
        try (FakePrometheus p = new FakePrometheus(PrometheusSourceTest::fleet)) {
            Path cfg =
                    Files.writeString(
                            dir.resolve("deja.yaml"),
                            String.join(
                                    "\n",
                                    "sources:",
                                    "  prometheus:",
                                    "    url: " + p.url(),
                                    "    window: 7d",
                                    "    bearerTokenFile: token", // relative to the file
                                    ""));
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--config",
                            cfg.toString(),
                            "--rules",
                            RULES,
                            "--format",
                            "json");
            assertEquals(1, r.code(), r.out() + r.err());
            assertEquals(2, messages(r.out()).size(), r.out());
            assertTrue(
                    p.authorizations.stream().allMatch(a -> a.equals("Bearer from-the-config")),
                    p.authorizations.toString());
        }
        Path bad =
                Files.writeString(
                        dir.resolve("bad.yaml"), "sources:\n  prometheus:\n    window: 7d\n");
        TestSupport.Run r = TestSupport.run("scan", "--config", bad.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("sources.prometheus needs url"), r.err());
    }

    static List<String> messages(String json) {
        List<String> out = new ArrayList<>();
        for (JsonNode f : TestSupport.json(json).path("findings")) {
            out.add(f.path("message").asString());
        }
        return out;
    }

    static Snapshot collect(String url, long timeoutMillis, Path token, Path basic) {
        ScanRequest.Builder b = ScanRequest.builder();
        b.prometheus = url;
        b.prometheusTimeoutMillis = timeoutMillis;
        b.prometheusBearerTokenFile = token;
        b.prometheusBasicAuthFile = basic;
        ScanRequest req = b.build();
        SnapshotBuilder out = new SnapshotBuilder();
        new PrometheusSource().collect(req, out, new ScanTrace());
        return out.build();
    }

    static List<Coverage.Entry> gaps(Snapshot s) {
        return s.coverage().notChecked();
    }

    @Test
    void aBadQueryAndA503AreGapsNamingTheQuery() throws Exception {
        Function<String, FakePrometheus.Answer> f =
                promql -> {
                    if (promql.equals(q(PrometheusPeaks.NGINX_PEAK))) {
                        return error(400, "bad_data", "1:1: parse error: unexpected character");
                    }
                    if (promql.equals(q(PrometheusPeaks.PROCESS_LIMIT))) {
                        return new FakePrometheus.Answer(503, "Service Unavailable");
                    }
                    return fleet(promql);
                };
        try (FakePrometheus p = new FakePrometheus(f)) {
            List<Coverage.Entry> g = gaps(collect(p.url(), 5000, null, null));
            assertEquals(2, g.size(), g.toString());
            Coverage.Entry bad =
                    g.stream()
                            .filter(e -> e.scope().contains("nginx_ingress_controller"))
                            .findFirst()
                            .orElseThrow();
            assertEquals("prometheus", bad.source());
            assertEquals("query " + q(PrometheusPeaks.NGINX_PEAK) + " at " + p.url(), bad.scope());
            assertEquals(
                    "HTTP 400: bad_data: 1:1: parse error: unexpected character", bad.detail());
            Coverage.Entry down =
                    g.stream()
                            .filter(e -> e.scope().contains("haproxy_process_max_connections"))
                            .findFirst()
                            .orElseThrow();
            assertEquals("HTTP 503: Service Unavailable", down.detail());

            TestSupport.Run r = TestSupport.run("scan", "--prometheus", p.url(), "--rules", RULES);
            assertEquals(3, r.code(), r.out() + r.err());
            assertTrue(r.out().contains("HTTP 400: bad_data"), r.out());
            TestSupport.Run partial =
                    TestSupport.run(
                            "scan", "--prometheus", p.url(), "--rules", RULES, "--allow-partial");
            assertEquals(
                    1,
                    partial.code(),
                    "the frontend still fires from the answered queries: " + partial.out());
        }
    }

    @Test
    void anEmptyAnswerEverywhereIsAGapNotASilentPass() throws Exception {
        try (FakePrometheus p = new FakePrometheus(promql -> vector())) {
            List<Coverage.Entry> g = gaps(collect(p.url(), 5000, null, null));
            assertEquals(1, g.size(), g.toString());
            assertEquals("HAProxy and ingress-nginx series at " + p.url(), g.get(0).scope());
            assertTrue(
                    g.get(0)
                            .detail()
                            .startsWith(
                                    "no series of haproxy_frontend_current_sessions,"
                                            + " haproxy_frontend_limit_sessions, haproxy_process_current_connections"),
                    g.get(0).detail());
            TestSupport.Run r = TestSupport.run("scan", "--prometheus", p.url(), "--rules", RULES);
            assertEquals(3, r.code(), r.out() + r.err());
        }
    }

    @Test
    void aQueryThatNeverAnswersCostsTheInjectedBound() throws Exception {
        try (FakePrometheus p =
                new FakePrometheus(
                        promql ->
                                promql.equals(q(PrometheusPeaks.PROCESS_PEAK))
                                        ? null
                                        : fleet(promql))) {
            // the bound is long enough for the answered queries on a loaded machine (300 ms was
            // not, at load 9): the one that never answers costs exactly it
            List<Coverage.Entry> g = gaps(collect(p.url(), 5000, null, null));
            assertEquals(1, g.size(), g.toString());
            assertEquals(
                    "query " + q(PrometheusPeaks.PROCESS_PEAK) + " at " + p.url(),
                    g.get(0).scope());
            assertEquals("no answer within 5 s", g.get(0).detail());
        }
    }

    @Test
    void anUnreachableServerIsOneGap() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String url = "http://127.0.0.1:" + port;
        Snapshot s = collect(url, 5000, null, null);
        List<Coverage.Entry> g = gaps(s);
        assertEquals(1, g.size(), g.toString());
        assertEquals("Prometheus API at " + url, g.get(0).scope());
        assertEquals(Coverage.Status.FAILED, g.get(0).status());
        assertTrue(g.get(0).detail().startsWith("cannot connect to " + url), g.get(0).detail());
        TestSupport.Run r = TestSupport.run("scan", "--prometheus", url);
        assertEquals(3, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("Prometheus API at " + url), r.out());
    }

    @Test
    void credentialsComeFromFilesAnd401IsDenied(@TempDir Path dir) throws Exception {
        Path token = Files.writeString(dir.resolve("token"), "s3cr3t-token\n");
        Path basic = Files.writeString(dir.resolve("basic"), "deja:pa:ss\n");
        try (FakePrometheus p = new FakePrometheus(PrometheusSourceTest::fleet)) {
            collect(p.url(), 5000, token, null);
            assertTrue(
                    p.authorizations.stream().allMatch(a -> a.equals("Bearer s3cr3t-token")),
                    p.authorizations.toString());
            p.authorizations.clear();
            collect(p.url(), 5000, null, basic);
            String expected =
                    "Basic "
                            + Base64.getEncoder()
                                    .encodeToString("deja:pa:ss".getBytes(StandardCharsets.UTF_8));
            assertTrue(
                    p.authorizations.stream().allMatch(a -> a.equals(expected)),
                    p.authorizations.toString());
        }
        try (FakePrometheus p =
                new FakePrometheus(promql -> error(401, "unauthorized", "bad token"))) {
            List<Coverage.Entry> g = gaps(collect(p.url(), 5000, token, null));
            assertEquals(1, g.size(), "one entry for the server, not one per query: " + g);
            assertEquals(Coverage.Status.DENIED, g.get(0).status());
            assertTrue(g.get(0).detail().startsWith("HTTP 401 (unauthorised"), g.get(0).detail());
        }
    }

    @Test
    void badOptionsExitTwoBeforeAnyWork(@TempDir Path dir) throws Exception {
        String[][] cases = {
            {"--prometheus", "http://127.0.0.1:1", "--window", "7 days"},
            {"--window", "7d", "x.cfg"},
            {"--prometheus", "ftp://h:1"},
            {"--prometheus", "http://user:pw@127.0.0.1:9090"},
            {
                "--prometheus",
                "http://127.0.0.1:9090",
                "--prometheus-bearer-token-file",
                dir.resolve("none").toString()
            },
        };
        String[] expected = {
            "--window '7 days': not a PromQL range",
            "--window: only with --prometheus",
            "--prometheus ftp://h:1: expected an http(s)://host:port URL",
            "--prometheus: credentials in the URL are not accepted",
            "--prometheus-bearer-token-file " + dir.resolve("none") + ": cannot read",
        };
        for (int i = 0; i < cases.length; i++) {
            List<String> args = new ArrayList<>(List.of("scan"));
            args.addAll(List.of(cases[i]));
            TestSupport.Run r = TestSupport.run(args.toArray(String[]::new));
            assertEquals(2, r.code(), String.join(" ", cases[i]) + ": " + r.err());
            assertTrue(r.err().contains(expected[i]), r.err());
            assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        }
        Path basic = Files.writeString(dir.resolve("basic"), "no-colon\n");
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--prometheus",
                        "http://127.0.0.1:9090",
                        "--prometheus-basic-auth-file",
                        basic.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("expected user:password on the first line"), r.err());
    }

    @Test
    void answersThatAreNotVectorsAreReasons() {
        assertEquals(
                "the answer is a matrix, not an instant vector",
                reason(
                        200,
                        "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}"));
        assertEquals(
                "not a Prometheus API answer (HTTP 200): <html>hello</html>",
                reason(200, "<html>hello</html>"));
        assertEquals(
                "HTTP 503: timeout: query timed out in expression evaluation",
                reason(
                        503,
                        "{\"status\":\"error\",\"errorType\":\"timeout\",\"error\":\"query timed out in expression evaluation\"}"));
    }

    static String reason(int code, String body) {
        try {
            PrometheusClient.parse(code, body.getBytes(StandardCharsets.UTF_8));
            return "parsed";
        } catch (PrometheusClient.QueryException e) {
            return e.getMessage();
        }
    }
}
