package dev.deja.prometheus;

import dev.deja.engine.Coverage;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.source.LiveSource;
import dev.deja.source.ScanRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code --prometheus URL}: asks a Prometheus-compatible API for the peak over {@code --window} of HAProxy's and
 * ingress-nginx's connection gauges and their limits ({@link PrometheusPeaks#promql}). Each query that fails (HTTP
 * 400 for a bad query, 503, a query timeout, 401/403) is a coverage entry naming the server and the query; a server
 * that cannot be reached at all is one entry; when no query found a series of any proxy, that is a gap too (deja
 * cannot say "no finding" about proxies it did not see). Metrics absent for one kind of proxy only are a note.
 */
public final class PrometheusSource implements LiveSource {
    static final String SOURCE = "prometheus";

    @Override
    public void collect(ScanRequest req, SnapshotBuilder out) {
        PrometheusClient client = new PrometheusClient(req.prometheus, req.prometheusBearerTokenFile,
                req.prometheusBasicAuthFile, req.prometheusCaFile, Duration.ofMillis(req.prometheusTimeoutMillis));
        if (client.plainCredentials()) {
            req.err.println("deja: warning: --prometheus " + client.display()
                    + ": credentials are sent over plain http");
        }
        String server = client.display();
        List<PrometheusPeaks.Query> answered = new ArrayList<>();
        boolean anySeries = false;
        List<String> asked = new ArrayList<>();
        for (String name : PrometheusPeaks.METRICS.keySet()) {
            String promql = PrometheusPeaks.promql(name, req.window);
            asked.add(promql);
            try {
                List<PrometheusPeaks.Sample> samples = client.query(promql);
                answered.add(new PrometheusPeaks.Query(name, promql, samples));
                out.read(SOURCE, "query " + promql + " at " + server, samples.size());
                anySeries |= !samples.isEmpty();
            } catch (PrometheusClient.QueryException e) {
                if (e.unreachable() || e.denied()) { // the same for every query: say it once
                    out.notRead(SOURCE, "Prometheus API at " + server, e.denied() ? Coverage.Status.DENIED
                            : Coverage.Status.FAILED, e.getMessage());
                    out.put(PrometheusPeaks.class, new PrometheusPeaks(server, req.window, answered));
                    return;
                }
                out.notRead(SOURCE, "query " + promql + " at " + server, Coverage.Status.FAILED, e.getMessage());
            }
        }
        PrometheusPeaks peaks = new PrometheusPeaks(server, req.window, answered);
        if (!answered.isEmpty() && !anySeries) {
            out.notRead(SOURCE, "HAProxy and ingress-nginx series at " + server, Coverage.Status.FAILED,
                    "no series of " + String.join(", ", distinctMetrics()) + " in the last " + req.window
                            + " (is the exporter scraped by this server, under these metric names?)");
        } else if (anySeries) {
            notes(peaks, server, req.window, out);
        }
        out.put(PrometheusPeaks.class, peaks);
    }

    private static List<String> distinctMetrics() {
        return PrometheusPeaks.METRICS.values().stream().distinct().toList();
    }

    /** What was answered but cannot be judged (a peak without its limit, a kind of proxy absent): notes, not gaps. */
    static void notes(PrometheusPeaks p, String server, String window, SnapshotBuilder out) {
        // only where the limit's query was answered: a failed one is already a gap
        long noLimit = (p.query(PrometheusPeaks.FRONTEND_LIMIT).isEmpty() ? 0
                : LivePeaks.frontends(p).stream().filter(x -> x.limit() <= 0).count())
                + (p.query(PrometheusPeaks.PROCESS_LIMIT).isEmpty() ? 0
                : LivePeaks.processes(p).stream().filter(x -> x.limit() <= 0).count());
        if (noLimit > 0) {
            out.coverage(new Coverage.Entry(SOURCE, "limits at " + server, Coverage.Status.NOTE, noLimit
                    + " HAProxy series with a peak but no limit of the same labels (haproxy_frontend_limit_sessions,"
                    + " haproxy_process_max_connections): not judged", -1));
        }
        for (Map.Entry<String, String> m : Map.of(
                PrometheusPeaks.FRONTEND_PEAK, "HAProxy frontends",
                PrometheusPeaks.PROCESS_PEAK, "HAProxy processes",
                PrometheusPeaks.NGINX_PEAK, "ingress-nginx controllers").entrySet()) {
            if (p.query(m.getKey()).isPresent() && p.samples(m.getKey()).isEmpty()) {
                out.coverage(new Coverage.Entry(SOURCE, m.getValue() + " at " + server, Coverage.Status.NOTE,
                        "no series of " + PrometheusPeaks.METRICS.get(m.getKey()) + " in the last " + window, -1));
            }
        }
    }
}
