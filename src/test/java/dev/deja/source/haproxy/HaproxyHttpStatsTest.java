package dev.deja.source.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.deja.TestSupport;
import dev.deja.engine.Coverage;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.haproxy.HaproxyRuntime;
import dev.deja.model.haproxy.PromexStats;
import dev.deja.model.haproxy.RuntimeStats;
import dev.deja.source.ScanRequest;
import dev.deja.source.ScanTrace;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --haproxy-runtime} over HTTP: the stats page's CSV export and the built-in Prometheus
 * exporter. The parsers on what haproxy 2.6.12 serves, the failures (unreachable, 401, 404, an
 * answer that is neither, a silent server within an injected timeout) as coverage entries naming
 * the URL (exit 3), and a real haproxy brought to a frontend's maxconn read through its stats
 * socket, its stats page (behind stats auth) and its exporter: the same finding from each.
 */
class HaproxyHttpStatsTest {
    /**
     * The exporter's lines for the state of HaproxyRuntimeTest.STAT, as haproxy 2.6.12 writes them
     * (shortened).
     */
    static final String METRICS =
            "# HELP haproxy_process_max_connections Maximum number of concurrent connections\n"
                    + "# TYPE haproxy_process_max_connections gauge\n"
                    + "haproxy_process_uptime_seconds 1\n"
                    + "haproxy_process_max_fds 228\n"
                    + "haproxy_process_max_sockets 228\n"
                    + "haproxy_process_max_connections 100\n"
                    + "haproxy_process_current_connections 10\n"
                    + "haproxy_process_current_connection_rate 10\n"
                    + "haproxy_process_max_connection_rate 10\n"
                    + "haproxy_process_build_info{version=\"2.6.12-1+deb12u4\"} 1\n"
                    + "# HELP haproxy_frontend_current_sessions Number of current sessions on the frontend, backend or server\n"
                    + "# TYPE haproxy_frontend_current_sessions gauge\n"
                    + "haproxy_frontend_current_sessions{proxy=\"fe_small\"} 10\n"
                    + "haproxy_frontend_max_sessions{proxy=\"fe_small\"} 10\n"
                    + "haproxy_frontend_limit_sessions{proxy=\"fe_small\"} 10\n"
                    + "haproxy_frontend_sessions_total{proxy=\"fe_small\"} 10\n"
                    + "haproxy_frontend_requests_denied_total{proxy=\"fe_small\"} 0\n"
                    + "haproxy_frontend_request_errors_total{proxy=\"fe_small\"} 0\n"
                    + "haproxy_frontend_status{proxy=\"fe_small\",state=\"UP\"} 1\n"
                    + "haproxy_frontend_max_session_rate{proxy=\"fe_small\"} 10\n"
                    + "haproxy_frontend_denied_connections_total{proxy=\"fe_small\"} 3\n"
                    + "haproxy_backend_current_queue{proxy=\"be_slow\"} 0\n"
                    + "haproxy_backend_max_queue{proxy=\"be_slow\"} 4\n"
                    + "haproxy_backend_max_queue_time_seconds{proxy=\"be_slow\"} 0.000000\n"
                    + "haproxy_backend_current_sessions{proxy=\"be_slow\"} 10\n"
                    + "haproxy_backend_max_sessions{proxy=\"be_slow\"} 10\n"
                    + "haproxy_backend_limit_sessions{proxy=\"be_slow\"} 1\n"
                    + "haproxy_server_current_queue{proxy=\"be_slow\",server=\"s1\"} 0\n"
                    + "haproxy_server_max_queue{proxy=\"be_slow\",server=\"s1\"} 4\n"
                    + "haproxy_server_current_sessions{proxy=\"be_slow\",server=\"s1\"} 10\n";

    @Test
    void theExporterGivesTheSameFiguresAsTheRuntimeApi() {
        PromexStats.Parsed p = PromexStats.parse(METRICS);
        RuntimeStats.Info i = p.info();
        RuntimeStats.Info s = RuntimeStats.info(HaproxyRuntimeTest.INFO);
        assertEquals(
                List.of(
                        s.currConns(),
                        s.maxConn(),
                        s.connRate(),
                        s.maxConnRate(),
                        s.maxsock(),
                        s.ulimitN(),
                        s.uptimeSec()),
                List.of(
                        i.currConns(),
                        i.maxConn(),
                        i.connRate(),
                        i.maxConnRate(),
                        i.maxsock(),
                        i.ulimitN(),
                        i.uptimeSec()));
        assertEquals("2.6.12-1+deb12u4", i.version());
        RuntimeStats.Row fe = p.rows().get(0);
        // as show stat's line, but for the current session rate, which the 2.6 exporter does not
        // give for frontends
        assertEquals(
                new RuntimeStats.Row(
                        "fe_small",
                        "FRONTEND",
                        "frontend",
                        10,
                        10,
                        10,
                        10,
                        0,
                        3,
                        0,
                        -1,
                        10,
                        -1,
                        -1),
                fe);
        RuntimeStats.Row be = p.rows().get(1);
        assertEquals(
                List.of("be_slow", "BACKEND", "backend", 4L, 1L),
                List.of(be.proxy(), be.service(), be.type(), be.qmax(), be.slim()));
        RuntimeStats.Row srv = p.rows().get(2);
        assertEquals(
                List.of("be_slow", "s1", "server", 4L),
                List.of(srv.proxy(), srv.service(), srv.type(), srv.qmax()));
        assertEquals(3, p.rows().size());
    }

    @Test
    void exporterTextThatCannotBeReadIsAOneLineReason() {
        assertEquals(
                "not HAProxy's Prometheus metrics (no haproxy_* series): node_load1 0.5",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> PromexStats.parse("node_load1 0.5\n"))
                        .getMessage());
        assertEquals(
                "metrics: line 1: the value is not a number: haproxy_frontend_max_sessions{proxy=\"a\"} lots",
                assertThrows(
                                IllegalArgumentException.class,
                                () ->
                                        PromexStats.parse(
                                                "haproxy_frontend_max_sessions{proxy=\"a\"} lots\n"))
                        .getMessage());
        assertEquals(
                "metrics: line 2: a label value is not closed: haproxy_frontend_max_sessions{proxy=\"a} 1",
                assertThrows(
                                IllegalArgumentException.class,
                                () ->
                                        PromexStats.parse(
                                                "# x\nhaproxy_frontend_max_sessions{proxy=\"a} 1\n"))
                        .getMessage());
        assertTrue(
                assertThrows(
                                IllegalArgumentException.class,
                                () -> PromexStats.parse("haproxy_process_nbthread 4\n"))
                        .getMessage()
                        .startsWith(
                                "HAProxy's Prometheus metrics hold no haproxy_process_* connection figures"));
        // escaped label values and a process-only exporter (scope=global) parse
        PromexStats.Parsed q =
                PromexStats.parse(
                        "haproxy_frontend_max_sessions{proxy=\"a\\\"b\"} 7 1700000000000\n"
                                + "haproxy_frontend_limit_sessions{proxy=\"a\\\"b\"} 8\n");
        assertEquals("a\"b", q.rows().get(0).proxy());
        assertEquals(7, q.rows().get(0).smax());
        assertNull(q.info());
        assertNull(
                PromexStats.parse(
                                "haproxy_process_current_connections 1\nhaproxy_process_max_connections 2\n")
                        .rows()
                        .stream()
                        .findFirst()
                        .orElse(null));
    }

    @Test
    void theAnswerSaysWhatItIs() {
        assertEquals(
                HaproxyRuntime.Format.STATS_CSV,
                HttpStats.parse("http://h/stats;csv", "text/csv", HaproxyRuntimeTest.STAT)
                        .format());
        assertEquals(
                HaproxyRuntime.Format.PROMETHEUS,
                HttpStats.parse("http://h/metrics", "text/plain; version=0.0.4", METRICS).format());
        assertEquals(
                "an HTML page, not the stats page's CSV nor the Prometheus exporter: for the stats page add ';csv'"
                        + " to its URI (e.g. http://host:8404/stats;csv)",
                assertThrows(
                                IllegalArgumentException.class,
                                () ->
                                        HttpStats.parse(
                                                "http://h/stats",
                                                "text/html",
                                                "<html><body>stats</body></html>"))
                        .getMessage());
        assertEquals(
                "neither the stats page's CSV ('# pxname,svname,...') nor HAProxy's Prometheus metrics (haproxy_*"
                        + " series): {\"status\": \"ok\"}",
                assertThrows(
                                IllegalArgumentException.class,
                                () ->
                                        HttpStats.parse(
                                                "http://h/health",
                                                "application/json",
                                                "{\"status\": \"ok\"}\n"))
                        .getMessage());
    }

    @Test
    void addressesAndOptions(@TempDir Path dir) throws IOException {
        HaproxyRuntimeSource.check("http://127.0.0.1:8404/stats;csv");
        HaproxyRuntimeSource.check("https://lb.example:8405/metrics");
        assertEquals(
                "stats page http://h:1/stats;csv",
                HaproxyRuntimeSource.scope("http://h:1/stats;csv"));
        assertEquals(
                "stats page http://h:1/haproxy?stats;csv",
                HaproxyRuntimeSource.scope("http://h:1/haproxy?stats;csv"));
        assertEquals(
                "Prometheus exporter http://h:1/metrics",
                HaproxyRuntimeSource.scope("http://h:1/metrics"));
        assertEquals("stats URL http://h:1/stats", HaproxyRuntimeSource.scope("http://h:1/stats"));
        assertEquals("runtime API unix:/a.sock", HaproxyRuntimeSource.scope("unix:/a.sock"));

        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--haproxy-runtime",
                        "http://admin:s3cret@127.0.0.1:8404/stats;csv");
        assertEquals(2, r.code(), r.err());
        assertTrue(
                r.err().contains("the URL holds a user and password")
                        && !r.err().contains("s3cret"),
                r.err());

        r =
                TestSupport.run(
                        "scan",
                        "--haproxy-runtime",
                        "http://127.0.0.1:1/metrics",
                        "--haproxy-runtime-timeout",
                        "soon");
        assertEquals(2, r.code(), r.err());
        assertTrue(
                r.err().contains("--haproxy-runtime-timeout: 'soon' is not a positive time"),
                r.err());

        r =
                TestSupport.run(
                        "scan",
                        "--haproxy-runtime-timeout",
                        "2s",
                        "--haproxy-runtime-auth",
                        "x",
                        "examples/");
        assertEquals(2, r.code(), r.err());
        assertTrue(
                r.err()
                        .contains(
                                "--haproxy-runtime-timeout, --haproxy-runtime-auth: only with --haproxy-runtime"),
                r.err());

        r =
                TestSupport.run(
                        "scan",
                        "--haproxy-runtime",
                        "http://127.0.0.1:1/metrics",
                        "--haproxy-runtime-auth",
                        dir.resolve("missing").toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(
                r.err()
                        .contains(
                                "--haproxy-runtime-auth "
                                        + dir.resolve("missing")
                                        + ": no such file"),
                r.err());

        Path bad = dir.resolve("auth");
        Files.writeString(bad, "just-a-password-no-user\n");
        r =
                TestSupport.run(
                        "scan",
                        "--haproxy-runtime",
                        "http://127.0.0.1:1/metrics",
                        "--haproxy-runtime-auth",
                        bad.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(
                r.err().contains("must hold user:password on its first line")
                        && !r.err().contains("just-a-password"),
                r.err());

        r =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of(),
                        "scan",
                        "--haproxy-runtime",
                        "http://127.0.0.1:1/metrics",
                        "--haproxy-runtime-auth",
                        "env:STATS_AUTH");
        assertEquals(2, r.code(), r.err());
        assertTrue(
                r.err()
                        .contains(
                                "--haproxy-runtime-auth env:STATS_AUTH: environment variable STATS_AUTH is not set"),
                r.err());
    }

    /** A loopback HTTP server answering every path with the given status, content type and body. */
    static HttpServer server(int status, String type, String body, AtomicReference<String> authSeen)
            throws IOException {
        HttpServer s =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.createContext(
                "/",
                ex -> {
                    if (authSeen != null) {
                        authSeen.set(ex.getRequestHeaders().getFirst("Authorization"));
                    }
                    byte[] b = body.getBytes(StandardCharsets.UTF_8);
                    ex.getResponseHeaders().set("Content-Type", type);
                    ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
                    try (OutputStream o = ex.getResponseBody()) {
                        o.write(b);
                    }
                });
        s.start();
        return s;
    }

    static Coverage.Entry collectOne(String url, long timeoutMillis, String auth) {
        ScanRequest.Builder reqB = ScanRequest.builder();
        reqB.haproxyRuntime = List.of(url);
        reqB.haproxyRuntimeTimeoutMillis = timeoutMillis;
        reqB.haproxyRuntimeAuth = auth;
        ScanRequest req = reqB.build();
        SnapshotBuilder out = new SnapshotBuilder();
        new HaproxyRuntimeSource().collect(req, out, new ScanTrace());
        Snapshot s = out.build();
        assertEquals(1, s.coverage().entries().size(), s.coverage().toString());
        return s.coverage().entries().get(0);
    }

    static String base(HttpServer s) {
        return "http://127.0.0.1:" + s.getAddress().getPort();
    }

    @Test
    void httpFailuresAreCoverageGapsNamingTheUrl() throws Exception {
        HttpServer notFound =
                server(404, "text/html", "<html><body><h1>404 Not Found</h1></body></html>", null);
        HttpServer locked =
                server(
                        401,
                        "text/html",
                        "<html><body><h1>401 Unauthorized</h1></body></html>",
                        null);
        HttpServer json = server(200, "application/json", "{\"status\": \"ok\"}", null);
        HttpServer empty = server(200, "text/plain", "", null);
        HttpServer good = server(200, "text/plain; version=0.0.4", METRICS, null);
        List<Socket> held = Collections.synchronizedList(new ArrayList<>());
        int closed;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = probe.getLocalPort();
        }
        try (ServerSocket silent = HaproxyRuntimeTest.fake(null, held)) {
            Coverage.Entry e = collectOne(base(notFound) + "/stats;csv", 5000, null);
            assertEquals("stats page " + base(notFound) + "/stats;csv", e.scope());
            assertEquals(Coverage.Status.FAILED, e.status());
            assertEquals(
                    "answered HTTP 404: <html><body><h1>404 Not Found</h1></body></html> (not the stats URI with"
                            + " ';csv' nor the exporter's path?)",
                    e.detail());

            e = collectOne(base(locked) + "/stats;csv", 5000, null);
            assertEquals(Coverage.Status.DENIED, e.status());
            assertTrue(
                    e.detail()
                            .startsWith(
                                    "answered HTTP 401 (the stats page asks for a user and password"),
                    e.detail());
            e = collectOne(base(locked) + "/stats;csv", 5000, "admin:wrong");
            assertEquals(
                    "answered HTTP 401 (the user and password of --haproxy-runtime-auth were refused)",
                    e.detail());
            assertTrue(!e.toString().contains("wrong"), e.toString());

            e = collectOne(base(json) + "/metrics", 5000, null);
            assertEquals("Prometheus exporter " + base(json) + "/metrics", e.scope());
            assertTrue(e.detail().startsWith("neither the stats page's CSV"), e.detail());
            e = collectOne(base(empty) + "/metrics", 5000, null);
            assertTrue(e.detail().endsWith("(empty answer)"), e.detail());

            e = collectOne("http://127.0.0.1:" + closed + "/metrics", 5000, null);
            assertEquals(Coverage.Status.FAILED, e.status());
            assertTrue(e.detail().startsWith("cannot connect"), e.detail());

            // the bound is injected: a server that accepts and never answers costs that long, not
            // forever
            e = collectOne("http://127.0.0.1:" + silent.getLocalPort() + "/metrics", 300, null);
            assertEquals(Coverage.Status.FAILED, e.status());
            assertTrue(
                    e.detail().startsWith("no ") && e.detail().contains("within the timeout"),
                    e.detail());

            // headers at once, then a body that never ends: the bound is on the whole exchange, not
            // the first byte
            try (ServerSocket stall = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
                Thread t =
                        new Thread(
                                () -> {
                                    try {
                                        Socket c = stall.accept();
                                        held.add(c);
                                        c.getOutputStream()
                                                .write(
                                                        ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000"
                                                                        + "\r\n\r\n# pxname,svname,")
                                                                .getBytes(
                                                                        StandardCharsets.US_ASCII));
                                        c.getOutputStream().flush();
                                    } catch (IOException ex) {
                                        // the test fails on its own assertion
                                    }
                                },
                                "stalling-body");
                t.setDaemon(true);
                t.start();
                e =
                        collectOne(
                                "http://127.0.0.1:" + stall.getLocalPort() + "/stats;csv",
                                300,
                                null);
                assertEquals(Coverage.Status.FAILED, e.status());
                assertEquals("no complete answer within the timeout (300 ms)", e.detail());
            }

            // the whole command: a coverage entry in the report, exit 3; --allow-partial accepts it
            String url = base(notFound) + "/stats;csv";
            TestSupport.Run r =
                    TestSupport.run("scan", "--format", "json", "--haproxy-runtime", url);
            assertEquals(3, r.code(), r.out() + r.err());
            var cov = TestSupport.json(r.out()).path("coverage");
            assertTrue(cov.toString().contains("stats page " + url), cov.toString());
            r =
                    TestSupport.run(
                            "scan",
                            "--haproxy-runtime",
                            url,
                            "--haproxy-runtime",
                            base(good) + "/metrics",
                            "--allow-partial",
                            "--fail-on",
                            "none");
            assertEquals(0, r.code(), r.out() + r.err());
            r =
                    TestSupport.run(
                            "scan",
                            "--haproxy-runtime",
                            "http://127.0.0.1:" + silent.getLocalPort() + "/metrics",
                            "--haproxy-runtime-timeout",
                            "300ms");
            assertEquals(3, r.code(), r.out() + r.err());
            assertTrue(r.out().contains("within the timeout"), r.out());
        } finally {
            for (HttpServer s : List.of(notFound, locked, json, empty, good)) {
                s.stop(0);
            }
            for (Socket c : held) {
                c.close();
            }
        }
    }

    /**
     * The stats page's credentials go in the Authorization header, and a snapshot keeps what was
     * read (no secret).
     */
    @Test
    void credentialsAreSentAndSnapshotsKeepTheAnswer(@TempDir Path dir) throws Exception {
        AtomicReference<String> seen = new AtomicReference<>();
        HttpServer csv = server(200, "text/csv", HaproxyRuntimeTest.STAT, seen);
        HttpServer prom = server(200, "text/plain; version=0.0.4", METRICS, null);
        try {
            Path auth = dir.resolve("stats-auth");
            Files.writeString(auth, "admin:s3cret\n");
            Path snap = dir.resolve("snap.json");
            String csvUrl = base(csv) + "/stats;csv";
            String promUrl = base(prom) + "/metrics";
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--format",
                            "json",
                            "--haproxy-runtime",
                            csvUrl,
                            "--haproxy-runtime",
                            promUrl,
                            "--haproxy-runtime-auth",
                            auth.toString(),
                            "--snapshot-out",
                            snap.toString(),
                            "--rules",
                            "haproxy-sessions-near-limit");
            assertEquals(1, r.code(), r.out() + r.err());
            assertEquals(
                    "Basic "
                            + Base64.getEncoder()
                                    .encodeToString(
                                            "admin:s3cret".getBytes(StandardCharsets.UTF_8)),
                    seen.get());
            List<String> live = messages(r.out());
            assertTrue(
                    live.stream()
                            .anyMatch(
                                    m ->
                                            m.startsWith(
                                                    "frontend fe_small at "
                                                            + csvUrl
                                                            + " reached 10 of 10 sessions (100%, stats CSV smax/slim")),
                    live.toString());
            assertTrue(
                    live.stream()
                            .anyMatch(
                                    m ->
                                            m.startsWith(
                                                            "frontend fe_small at "
                                                                    + promUrl
                                                                    + " reached 10 of 10 sessions (100%, haproxy_frontend_max_sessions/haproxy_frontend_limit_sessions")
                                                    && m.contains("3 connections denied (dcon)")),
                    live.toString());
            String saved = Files.readString(snap);
            assertTrue(
                    !saved.contains("s3cret") && !saved.contains("YWRtaW46czNjcmV0"),
                    "no credentials in snapshots");
            var inst =
                    TestSupport.json(saved).path("parts").path("haproxyRuntime").path("instances");
            assertEquals("statsCsv", inst.get(0).path("format").asString());
            assertEquals("prometheus", inst.get(1).path("format").asString());
            // offline, from the snapshot: the same findings
            r =
                    TestSupport.run(
                            "scan",
                            "--format",
                            "json",
                            snap.toString(),
                            "--rules",
                            "haproxy-sessions-near-limit");
            assertEquals(1, r.code(), r.out() + r.err());
            assertEquals(live, messages(r.out()));
        } finally {
            csv.stop(0);
            prom.stop(0);
        }
    }

    /** An answer larger than the cap is cut there and said so, never read on into memory. */
    @Test
    void anAnswerPastTheCapIsRefused() throws IOException {
        HttpServer big =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        big.createContext(
                "/",
                ex -> {
                    byte[] chunk = new byte[64 * 1024];
                    Arrays.fill(chunk, (byte) 'x');
                    ex.sendResponseHeaders(200, 0); // chunked, no length announced
                    try (OutputStream o = ex.getResponseBody()) {
                        for (long sent = 0;
                                sent <= HaproxyRuntimeSource.MAX_ANSWER;
                                sent += chunk.length) {
                            o.write(chunk);
                        }
                    } catch (IOException e) {
                        // the client stopped reading: expected
                    }
                });
        big.start();
        try {
            Coverage.Entry e = collectOne(base(big) + "/metrics", 60_000, null);
            assertEquals(Coverage.Status.FAILED, e.status());
            assertEquals(
                    "the answer exceeds " + HaproxyRuntimeSource.MAX_ANSWER + " bytes", e.detail());
        } finally {
            big.stop(0);
        }
    }

    static List<String> messages(String json) {
        List<String> out = new ArrayList<>();
        for (var f : TestSupport.json(json).path("findings")) {
            out.add(f.path("message").asString());
        }
        Collections.sort(out);
        return out;
    }

    /**
     * A real haproxy: a frontend of maxconn 10 in front of a backend that accepts and never
     * answers, a stats socket, a stats page behind 'stats auth' and the Prometheus exporter, on
     * loopback. Ten held connections fill the frontend; deja reads it through each of the three and
     * fires the same finding, located at the maxconn line.
     */
    @Test
    void aRealHaproxyReadThroughItsSocketStatsPageAndExporter(@TempDir Path dir) throws Exception {
        String bin = HaproxyRuntimeTest.haproxy();
        Assumptions.assumeTrue(
                bin != null,
                "haproxy is not installed (apt-get install haproxy; .ci/run installs it):"
                        + " skipping the live stats page and exporter test");
        List<Socket> sockets = Collections.synchronizedList(new ArrayList<>());
        Process p = null;
        try (ServerSocket backend = HaproxyRuntimeTest.fake(null, sockets)) {
            int[] ports = new int[3];
            for (int i = 0; i < ports.length; i++) {
                try (ServerSocket probe =
                        new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    ports[i] = probe.getLocalPort();
                }
            }
            Path sock = dir.resolve("admin.sock");
            Path cfg = dir.resolve("haproxy.cfg");
            Files.writeString(
                    cfg,
                    String.join(
                            "\n",
                            "global",
                            "    maxconn 100",
                            "    stats socket " + sock + " mode 600 level user",
                            "defaults",
                            "    mode tcp",
                            "    timeout connect 5s",
                            "    timeout client 60s",
                            "    timeout server 60s",
                            "frontend fe_small",
                            "    bind 127.0.0.1:" + ports[0],
                            "    maxconn 10",
                            "    default_backend be_slow",
                            "backend be_slow",
                            "    server s1 127.0.0.1:" + backend.getLocalPort(),
                            "listen stats",
                            "    mode http",
                            "    bind 127.0.0.1:" + ports[1],
                            "    stats enable",
                            "    stats uri /stats",
                            "    stats auth admin:s3cret",
                            "frontend prometheus",
                            "    mode http",
                            "    bind 127.0.0.1:" + ports[2],
                            "    http-request use-service prometheus-exporter if { path /metrics }",
                            ""));
            p =
                    new ProcessBuilder(bin, "-db", "-f", cfg.toString())
                            .redirectErrorStream(true)
                            .redirectOutput(dir.resolve("haproxy.log").toFile())
                            .start();
            String addr = "unix:" + sock;
            HaproxyRuntimeTest.waitUntil(
                    p, dir, () -> Files.exists(sock) && HaproxyRuntimeTest.answers(addr));
            for (int i = 0; i < 10; i++) {
                Socket c = new Socket();
                c.connect(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), ports[0]), 10_000);
                sockets.add(c);
            }
            HaproxyRuntimeTest.waitUntil(
                    p, dir, () -> HaproxyRuntimeTest.scur(addr, "fe_small") >= 10);

            Path auth = dir.resolve("stats-auth");
            Files.writeString(auth, "admin:s3cret\n");
            String csv = "http://127.0.0.1:" + ports[1] + "/stats;csv";
            String metrics = "http://127.0.0.1:" + ports[2] + "/metrics";
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--format",
                            "json",
                            "--haproxy-runtime",
                            addr,
                            "--haproxy-runtime",
                            csv,
                            "--haproxy-runtime",
                            metrics,
                            "--haproxy-runtime-auth",
                            auth.toString(),
                            cfg.toString(),
                            "--rules",
                            "haproxy-sessions-near-limit");
            assertEquals(1, r.code(), r.out() + r.err());
            var root = TestSupport.json(r.out());
            int fired = 0;
            for (String source : List.of(addr, csv, metrics)) {
                for (var f : root.path("findings")) {
                    String m = f.path("message").asString();
                    if (m.startsWith(
                            "frontend fe_small at "
                                    + source
                                    + " reached 10 of 10 sessions (100%")) {
                        assertTrue(
                                m.contains("now 10, 10 since start")
                                        && m.contains(
                                                "the limit is set by maxconn at " + cfg + ":11"),
                                m);
                        assertEquals("high", f.path("severity").asString());
                        assertEquals(11, f.path("location").path("line").asInt(), f.toString());
                        fired++;
                    }
                }
            }
            assertEquals(3, fired, r.out());

            // the real stats page without its credentials: 401, a coverage entry naming it, exit 3;
            // a wrong path: 503
            r =
                    TestSupport.run(
                            "scan",
                            "--format",
                            "json",
                            "--haproxy-runtime",
                            csv,
                            "--haproxy-runtime",
                            "http://127.0.0.1:" + ports[2] + "/nothing-here",
                            "--rules",
                            "haproxy-sessions-near-limit");
            assertEquals(3, r.code(), r.out() + r.err());
            String cov = TestSupport.json(r.out()).path("coverage").toString();
            assertTrue(cov.contains("stats page " + csv) && cov.contains("answered HTTP 401"), cov);
            assertTrue(
                    cov.contains("stats URL http://127.0.0.1:" + ports[2] + "/nothing-here")
                            && cov.contains("answered HTTP 503"),
                    cov);
            assertEquals(0, TestSupport.json(r.out()).path("findings").size(), r.out());

            // the stats page itself (HTML, no ';csv'): a coverage entry saying what to add
            String html = "http://127.0.0.1:" + ports[1] + "/stats";
            r =
                    TestSupport.run(
                            "scan",
                            "--format",
                            "json",
                            "--haproxy-runtime",
                            html,
                            "--haproxy-runtime-auth",
                            auth.toString(),
                            "--rules",
                            "haproxy-sessions-near-limit");
            assertEquals(3, r.code(), r.out() + r.err());
            cov = TestSupport.json(r.out()).path("coverage").toString();
            assertTrue(
                    cov.contains("stats URL " + html)
                            && cov.contains("an HTML page")
                            && cov.contains("add ';csv' to its URI"),
                    cov);
        } finally {
            for (Socket c : sockets) {
                c.close();
            }
            if (p != null) {
                p.destroy();
                p.waitFor();
            }
        }
    }
}
