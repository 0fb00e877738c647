package dev.deja.source.prometheus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.model.prometheus.PrometheusPeaks;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole path with the real parts: a real haproxy whose frontend (maxconn 10, global maxconn 12)
 * is filled by ten held connections, its built-in Prometheus exporter scraped every second by a
 * real Prometheus (Debian's package; temporary storage, loopback ports), and deja querying that
 * Prometheus over HTTP. Skipped, saying so, where either binary (or the exporter) is absent. Every
 * wait polls a condition within a generous bound; no sleep is an assertion.
 */
class RealPrometheusTest {
    /**
     * Bound on each wait (start, scrape, fill): generous, for a busy 2-core machine; never reached
     * when things work.
     */
    static final Duration BOUND = Duration.ofMinutes(2);

    static String binary(String name, String fallback) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, name))) {
                return Path.of(d, name).toString();
            }
        }
        return Files.isExecutable(Path.of(fallback)) ? fallback : null;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void deJaReadsTheFrontendAtItsLimitThroughARealPrometheus(@TempDir Path dir) throws Exception {
        String haproxy = binary("haproxy", "/usr/sbin/haproxy");
        String prometheus = binary("prometheus", "/usr/bin/prometheus");
        Assumptions.assumeTrue(
                haproxy != null, "haproxy is not installed (.ci/run installs it): skipping");
        Assumptions.assumeTrue(
                prometheus != null,
                "prometheus is not installed (apt-get install prometheus; .ci/run"
                        + " installs it): skipping the real Prometheus test");
        Process vv = new ProcessBuilder(haproxy, "-vv").redirectErrorStream(true).start();
        String build = new String(vv.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        vv.waitFor();
        Assumptions.assumeTrue(
                build.contains("Prometheus exporter"),
                "this haproxy is built without the Prometheus"
                        + " exporter (USE_PROMEX): skipping");

        List<Socket> held = Collections.synchronizedList(new ArrayList<>());
        List<Process> procs = new ArrayList<>();
        try (ServerSocket backend = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor =
                    new Thread(
                            () -> { // a backend that accepts and never answers
                                while (!backend.isClosed()) {
                                    try {
                                        held.add(backend.accept());
                                    } catch (IOException e) {
                                        return;
                                    }
                                }
                            },
                            "silent-backend");
            acceptor.setDaemon(true);
            acceptor.start();
            int fePort = freePort();
            int metricsPort = freePort();
            int promPort = freePort();
            Path cfg = dir.resolve("haproxy.cfg");
            Files.writeString(
                    cfg,
                    String.join(
                            "\n",
                            "global",
                            "    maxconn 12",
                            "defaults",
                            "    timeout connect 5s",
                            "    timeout client 120s",
                            "    timeout server 120s",
                            "frontend fe_small",
                            "    mode tcp",
                            "    bind 127.0.0.1:" + fePort,
                            "    maxconn 10",
                            "    default_backend be_slow",
                            "backend be_slow",
                            "    mode tcp",
                            "    server s1 127.0.0.1:" + backend.getLocalPort(),
                            "frontend metrics",
                            "    mode http",
                            "    bind 127.0.0.1:" + metricsPort,
                            "    http-request use-service prometheus-exporter if { path /metrics }",
                            ""));
            procs.add(
                    new ProcessBuilder(haproxy, "-db", "-f", cfg.toString())
                            .redirectErrorStream(true)
                            .redirectOutput(dir.resolve("haproxy.log").toFile())
                            .start());
            Path promCfg = dir.resolve("prometheus.yml");
            Files.writeString(
                    promCfg,
                    String.join(
                            "\n",
                            "global:",
                            "  scrape_interval: 1s",
                            "  scrape_timeout: 1s",
                            "scrape_configs:",
                            "  - job_name: haproxy",
                            "    static_configs:",
                            "      - targets: ['127.0.0.1:" + metricsPort + "']",
                            ""));
            procs.add(
                    new ProcessBuilder(
                                    prometheus,
                                    "--config.file=" + promCfg,
                                    "--storage.tsdb.path=" + dir.resolve("data"),
                                    "--web.listen-address=127.0.0.1:" + promPort)
                            .redirectErrorStream(true)
                            .redirectOutput(dir.resolve("prometheus.log").toFile())
                            .start());
            String url = "http://127.0.0.1:" + promPort;
            waitUntil(procs, dir, "Prometheus ready", () -> status(url + "/-/ready") == 200);
            // haproxy binds its listeners together: once the exporter answers, the frontend accepts
            // too
            waitUntil(
                    procs,
                    dir,
                    "haproxy's exporter answering",
                    () -> status("http://127.0.0.1:" + metricsPort + "/metrics") == 200);

            for (int i = 0; i < 10; i++) {
                Socket c = new Socket();
                c.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), fePort), 10_000);
                held.add(c);
            }
            PrometheusClient client =
                    new PrometheusClient(url, null, null, null, Duration.ofSeconds(10));
            // Prometheus has scraped the full frontend (and its limit) at least once
            waitUntil(
                    procs,
                    dir,
                    "fe_small at 10 sessions in Prometheus",
                    () -> {
                        for (PrometheusPeaks.Sample s :
                                client.query(
                                        PrometheusPeaks.promql(
                                                PrometheusPeaks.FRONTEND_PEAK, "7d"))) {
                            if ("fe_small".equals(s.labels().get("proxy")) && s.value() >= 10) {
                                return true;
                            }
                        }
                        return false;
                    });

            long t0 = System.nanoTime();
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--prometheus",
                            url,
                            "--format",
                            "json",
                            cfg.toString(),
                            "--rules",
                            "haproxy-sessions-near-limit,lb-connections-near-capacity");
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(1, r.code(), r.out() + r.err());
            List<String> messages = PrometheusSourceTest.messages(r.out());
            String instance = "instance 127.0.0.1:" + metricsPort;
            assertTrue(
                    messages.stream()
                            .anyMatch(
                                    m ->
                                            m.startsWith(
                                                            "frontend fe_small at "
                                                                    + instance
                                                                    + " reached 10"
                                                                    + " of 10 sessions in the last 7d (100%, Prometheus "
                                                                    + url
                                                                    + ": max_over_time of"
                                                                    + " haproxy_frontend_current_sessions{instance=\"127.0.0.1:"
                                                                    + metricsPort
                                                                    + "\",job=\"haproxy\","
                                                                    + "proxy=\"fe_small\"}")
                                                    && m.contains(
                                                            "the limit is set by maxconn at "
                                                                    + cfg
                                                                    + ":10")),
                    messages.toString());
            assertTrue(
                    messages.stream()
                            .anyMatch(
                                    m ->
                                            m.startsWith("HAProxy " + instance + " reached 1")
                                                    && m.contains(
                                                            "of haproxy_process_max_connections 12 (global maxconn)")),
                    messages.toString());
            System.out.println(
                    "RealPrometheusTest: deja scan --prometheus took "
                            + ms
                            + " ms; findings: "
                            + messages);
        } finally {
            for (Socket c : held) {
                c.close();
            }
            for (Process p : procs) {
                p.destroy();
            }
            for (Process p : procs) {
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor();
                }
            }
        }
    }

    static int status(String url) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
            c.setConnectTimeout(2000);
            c.setReadTimeout(5000);
            try (InputStream in =
                    c.getResponseCode() < 400 ? c.getInputStream() : c.getErrorStream()) {
                if (in != null) {
                    in.readAllBytes();
                }
            }
            return c.getResponseCode();
        } catch (IOException e) {
            return -1;
        }
    }

    public interface Cond {
        boolean test() throws Exception;
    }

    static void waitUntil(List<Process> procs, Path dir, String what, Cond c) throws Exception {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (true) {
            try {
                if (c.test()) {
                    return;
                }
            } catch (PrometheusClient.QueryException e) {
                // not ready yet: poll again
            }
            for (Process p : procs) {
                if (!p.isAlive()) {
                    throw new AssertionError(what + ": a process exited: " + logs(dir));
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        what + ": not reached within " + BOUND.toSeconds() + " s: " + logs(dir));
            }
            Thread.sleep(100);
        }
    }

    static String logs(Path dir) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (String f : List.of("haproxy.log", "prometheus.log")) {
            Path p = dir.resolve(f);
            if (Files.exists(p)) {
                String t = Files.readString(p);
                sb.append("\n--- ")
                        .append(f)
                        .append(":\n")
                        .append(t.length() > 4000 ? t.substring(t.length() - 4000) : t);
            }
        }
        return sb.toString();
    }
}
