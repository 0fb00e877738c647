package dev.deja.source.prometheus;

import dev.deja.engine.Coverage;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.prometheus.LivePeaks;
import dev.deja.model.prometheus.PrometheusPeaks;
import dev.deja.source.LiveSource;
import dev.deja.source.ScanRequest;
import dev.deja.source.ScanTrace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code --prometheus URL}: asks a Prometheus-compatible API for the peak over {@code --window} of
 * HAProxy's and ingress-nginx's connection gauges and their limits, and etcd's p99 disk latencies
 * ({@link PrometheusPeaks#promql}). Each query that fails (HTTP 400 for a bad query, 503, a query
 * timeout, 401/403) is a coverage entry naming the server and the query; a server that cannot be
 * reached at all is one entry; when no query found a series of any proxy, that is a gap too (deja
 * cannot say "no finding" about proxies it did not see). Metrics absent for one kind of proxy only
 * are a note.
 */
public final class PrometheusSource implements LiveSource {
    static final String SOURCE = "prometheus";

    @Override
    public void collect(ScanRequest req, SnapshotBuilder out, ScanTrace trace) {
        PrometheusClient client =
                new PrometheusClient(
                        req.prometheus,
                        req.prometheusBearerTokenFile,
                        req.prometheusBasicAuthFile,
                        req.prometheusCaFile,
                        Duration.ofMillis(req.prometheusTimeoutMillis));
        if (client.plainCredentials()) {
            req.err.println(
                    "deja: warning: --prometheus "
                            + client.display()
                            + ": credentials are sent over plain http");
        }
        String server = client.display();
        List<PrometheusPeaks.Query> answered = ask(client, server, req.window, out);
        if (answered == null) {
            return;
        }
        boolean anySeries = false;
        for (PrometheusPeaks.Query q : answered) {
            anySeries |= !q.samples().isEmpty();
        }
        PrometheusPeaks peaks = new PrometheusPeaks(server, req.window, answered);
        if (!answered.isEmpty() && !anySeries) {
            out.notRead(
                    SOURCE,
                    "HAProxy and ingress-nginx series at " + server,
                    Coverage.Status.FAILED,
                    "no series of "
                            + String.join(", ", distinctMetrics())
                            + " in the last "
                            + req.window
                            + " (is the exporter scraped by this server, under these metric names?)");
        } else if (anySeries) {
            notes(peaks, server, req.window, out);
        }
        out.put(PrometheusPeaks.class, peaks);
    }

    /**
     * Asks every query at once and returns the answered ones, in {@link PrometheusPeaks#METRICS}
     * order; a failed query is a coverage entry. Null when the server cannot be reached or refuses
     * the credentials: one entry, and empty peaks.
     */
    private static List<PrometheusPeaks.Query> ask(
            PrometheusClient client, String server, String window, SnapshotBuilder out) {
        List<PrometheusPeaks.Query> answered = new ArrayList<>();
        // the queries are independent: asked together, the scan waits for the slowest, not for
        // their sum
        List<String> names = List.copyOf(PrometheusPeaks.METRICS.keySet());
        ExecutorService pool =
                Executors.newFixedThreadPool(
                        names.size(),
                        r -> {
                            Thread t = new Thread(r, "deja-prometheus");
                            t.setDaemon(true);
                            return t;
                        });
        try {
            List<Future<List<PrometheusPeaks.Sample>>> futures = new ArrayList<>();
            for (String name : names) {
                String promql = PrometheusPeaks.promql(name, window);
                futures.add(pool.submit(() -> client.query(promql)));
            }
            for (int i = 0; i < names.size(); i++) {
                String name = names.get(i);
                String promql = PrometheusPeaks.promql(name, window);
                try {
                    List<PrometheusPeaks.Sample> samples = answer(futures.get(i));
                    answered.add(new PrometheusPeaks.Query(name, promql, samples));
                    out.read(SOURCE, "query " + promql + " at " + server, samples.size());
                } catch (PrometheusClient.QueryException e) {
                    if (e.unreachable() || e.denied()) { // the same for every query: say it once
                        out.notRead(
                                SOURCE,
                                "Prometheus API at " + server,
                                e.denied() ? Coverage.Status.DENIED : Coverage.Status.FAILED,
                                e.getMessage());
                        out.put(
                                PrometheusPeaks.class,
                                new PrometheusPeaks(server, window, List.of()));
                        return null;
                    }
                    out.notRead(
                            SOURCE,
                            "query " + promql + " at " + server,
                            Coverage.Status.FAILED,
                            e.getMessage());
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return answered;
    }

    private static List<PrometheusPeaks.Sample> answer(Future<List<PrometheusPeaks.Sample>> f)
            throws PrometheusClient.QueryException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof PrometheusClient.QueryException q) {
                throw q;
            }
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PrometheusClient.QueryException("interrupted", false, false);
        }
    }

    private static List<String> distinctMetrics() {
        return PrometheusPeaks.METRICS.values().stream().distinct().toList();
    }

    /**
     * What was answered but cannot be judged (a peak without its limit, a kind of proxy absent):
     * notes, not gaps.
     */
    static void notes(PrometheusPeaks p, String server, String window, SnapshotBuilder out) {
        // only where the limit's query was answered: a failed one is already a gap
        long noLimit =
                (p.query(PrometheusPeaks.FRONTEND_LIMIT).isEmpty()
                                ? 0
                                : LivePeaks.frontends(p).stream()
                                        .filter(x -> x.limit() <= 0)
                                        .count())
                        + (p.query(PrometheusPeaks.PROCESS_LIMIT).isEmpty()
                                ? 0
                                : LivePeaks.processes(p).stream()
                                        .filter(x -> x.limit() <= 0)
                                        .count());
        if (noLimit > 0) {
            out.coverage(
                    new Coverage.Entry(
                            SOURCE,
                            "limits at " + server,
                            Coverage.Status.NOTE,
                            noLimit
                                    + " HAProxy series with a peak but no limit of the same labels (haproxy_frontend_limit_sessions,"
                                    + " haproxy_process_max_connections): not judged",
                            -1));
        }
        for (Map.Entry<String, String> m :
                Map.of(
                                PrometheusPeaks.FRONTEND_PEAK, "HAProxy frontends",
                                PrometheusPeaks.PROCESS_PEAK, "HAProxy processes",
                                PrometheusPeaks.NGINX_PEAK, "ingress-nginx controllers",
                                PrometheusPeaks.ETCD_WAL_FSYNC_P99, "etcd members")
                        .entrySet()) {
            if (p.query(m.getKey()).isPresent() && p.samples(m.getKey()).isEmpty()) {
                out.coverage(
                        new Coverage.Entry(
                                SOURCE,
                                m.getValue() + " at " + server,
                                Coverage.Status.NOTE,
                                "no series of "
                                        + PrometheusPeaks.METRICS.get(m.getKey())
                                        + " in the last "
                                        + window
                                        + (m.getKey().equals(PrometheusPeaks.ETCD_WAL_FSYNC_P99)
                                                ? " (etcd not scraped by this server, or a managed"
                                                        + " control plane that does not expose it):"
                                                        + " etcd's disk latency not judged"
                                                : ""),
                                -1));
            }
        }
    }
}
