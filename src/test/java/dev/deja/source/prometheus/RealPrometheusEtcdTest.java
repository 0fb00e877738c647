package dev.deja.source.prometheus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.deja.TestSupport;
import dev.deja.model.prometheus.PrometheusPeaks;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * k8s-etcd-disk-latency through a real Prometheus (Debian's package, temporary storage, loopback
 * ports) that scrapes, every second, a loopback endpoint speaking etcd's exposition of its two disk
 * histograms (etcd's own bucket bounds, 1 ms doubling to 8.192 s) whose counters grow at every
 * scrape: per 100 WAL fsyncs, 98 within 32 ms and 2 between 32 and 64 ms, so Prometheus's
 * histogram_quantile puts the p99 at 32 + (99 - 98) / (100 - 98) x 32 = 48 ms; every backend commit
 * within 4 ms. deja must compute nothing itself: the 48 ms is Prometheus's answer to deja's query.
 * Skipped, saying so, when prometheus is absent; every wait polls within a generous bound.
 */
class RealPrometheusEtcdTest {
    static final double[] BOUNDS = {
        0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048, 4.096,
        8.192
    };

    /** Cumulative observations per bucket added at every scrape (then +Inf = the last one). */
    static final long[] FSYNC = {50, 70, 80, 90, 95, 98, 100, 100, 100, 100, 100, 100, 100, 100};

    static final long[] COMMIT = {
        40, 90, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100
    };

    static String histogram(String name, long[] perScrape, long scrapes, double sumPerScrape) {
        StringBuilder sb = new StringBuilder();
        sb.append("# HELP ").append(name).append(" test histogram\n");
        sb.append("# TYPE ").append(name).append(" histogram\n");
        for (int i = 0; i < BOUNDS.length; i++) {
            sb.append(name)
                    .append("_bucket{le=\"")
                    .append(BOUNDS[i])
                    .append("\"} ")
                    .append(perScrape[i] * scrapes)
                    .append('\n');
        }
        long total = perScrape[perScrape.length - 1] * scrapes;
        sb.append(name).append("_bucket{le=\"+Inf\"} ").append(total).append('\n');
        sb.append(name).append("_sum ").append(sumPerScrape * scrapes).append('\n');
        sb.append(name).append("_count ").append(total).append('\n');
        return sb.toString();
    }

    @Test
    void aSlowWalFsyncIsJudgedOnPrometheusOwnQuantile(@TempDir Path dir) throws Exception {
        String prometheus = RealPrometheusTest.binary("prometheus", "/usr/bin/prometheus");
        Assumptions.assumeTrue(
                prometheus != null,
                "prometheus is not installed (apt-get install prometheus; .ci/run"
                        + " installs it): skipping the real Prometheus etcd test");
        AtomicLong scrapes = new AtomicLong();
        HttpServer etcd =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        etcd.createContext(
                "/metrics",
                ex -> {
                    long n = scrapes.incrementAndGet();
                    byte[] b =
                            (histogram("etcd_disk_wal_fsync_duration_seconds", FSYNC, n, 0.9)
                                            + histogram(
                                                    "etcd_disk_backend_commit_duration_seconds",
                                                    COMMIT,
                                                    n,
                                                    0.15))
                                    .getBytes(StandardCharsets.UTF_8);
                    ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
                    ex.sendResponseHeaders(200, b.length);
                    try (OutputStream o = ex.getResponseBody()) {
                        o.write(b);
                    }
                });
        etcd.start();
        List<Process> procs = new ArrayList<>();
        try {
            int promPort = RealPrometheusTest.freePort();
            String target = "127.0.0.1:" + etcd.getAddress().getPort();
            Path promCfg = dir.resolve("prometheus.yml");
            Files.writeString(
                    promCfg,
                    String.join(
                            "\n",
                            "global:",
                            "  scrape_interval: 1s",
                            "  scrape_timeout: 1s",
                            "scrape_configs:",
                            "  - job_name: etcd",
                            "    static_configs:",
                            "      - targets: ['" + target + "']",
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
            RealPrometheusTest.waitUntil(
                    procs,
                    dir,
                    "Prometheus ready",
                    () -> RealPrometheusTest.status(url + "/-/ready") == 200);
            PrometheusClient client =
                    new PrometheusClient(url, null, null, null, Duration.ofSeconds(10));
            // rate() needs two scrapes of the buckets: poll deja's own query until it answers
            RealPrometheusTest.waitUntil(
                    procs,
                    dir,
                    "a p99 of the WAL fsync histogram in Prometheus",
                    () ->
                            !client.query(
                                            PrometheusPeaks.promql(
                                                    PrometheusPeaks.ETCD_WAL_FSYNC_P99, "7d"))
                                    .isEmpty());

            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--prometheus",
                            url,
                            "--format",
                            "json",
                            "--rules",
                            "k8s-etcd-disk-latency");
            assertEquals(1, r.code(), r.out() + r.err());
            List<String> messages = PrometheusSourceTest.messages(r.out());
            assertEquals(1, messages.size(), messages.toString());
            assertTrue(
                    messages.get(0)
                            .startsWith(
                                    "etcd member instance "
                                            + target
                                            + " (job etcd): p99 WAL fsync latency 48 ms over the"
                                            + " last 7d, above the 10 ms etcd's FAQ gives"),
                    messages.toString());
            assertTrue(
                    messages.get(0)
                            .contains(
                                    "etcd_disk_wal_fsync_duration_seconds_bucket{instance=\""
                                            + target
                                            + "\",job=\"etcd\"}"),
                    messages.toString());
        } finally {
            etcd.stop(0);
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
}
