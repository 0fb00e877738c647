package dev.deja.model.prometheus;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a Prometheus-compatible API answered at scan time ({@code --prometheus URL --window 7d}):
 * per query deja asks (peaks over the window of HAProxy's and ingress-nginx's connection gauges,
 * and their limits), the PromQL text and the instant vector it returned, kept as received (label
 * sets as the exporter and the scraper made them). Immutable; {@link LivePeaks} pairs peaks with
 * limits for the rules.
 */
public record PrometheusPeaks(String url, String window, List<Query> queries) {
    /** Peak of a frontend's current sessions over the window. */
    public static final String FRONTEND_PEAK = "frontendPeak";

    /** A frontend's session limit (its maxconn), the last value in the window. */
    public static final String FRONTEND_LIMIT = "frontendLimit";

    /** Peak of a HAProxy process's current connections over the window. */
    public static final String PROCESS_PEAK = "processPeak";

    /** A HAProxy process's connection limit (global maxconn), the last value in the window. */
    public static final String PROCESS_LIMIT = "processLimit";

    /** Peak of an ingress-nginx controller's active client connections over the window. */
    public static final String NGINX_PEAK = "nginxPeak";

    /**
     * etcd's WAL fsync latency, p99 over the window per member (IL-0072): the 99th percentile of
     * etcd_disk_wal_fsync_duration_seconds, from its histogram buckets' increase over the window.
     */
    public static final String ETCD_WAL_FSYNC_P99 = "etcdWalFsyncP99";

    /**
     * etcd's backend commit latency, p99 over the window per member (IL-0072): the 99th percentile
     * of etcd_disk_backend_commit_duration_seconds.
     */
    public static final String ETCD_BACKEND_COMMIT_P99 = "etcdBackendCommitP99";

    /** The metric each query reads, by query name, in the order they are asked. */
    public static final Map<String, String> METRICS = new LinkedHashMap<>();

    static {
        METRICS.put(FRONTEND_PEAK, "haproxy_frontend_current_sessions");
        METRICS.put(FRONTEND_LIMIT, "haproxy_frontend_limit_sessions");
        METRICS.put(PROCESS_PEAK, "haproxy_process_current_connections");
        METRICS.put(PROCESS_LIMIT, "haproxy_process_max_connections");
        METRICS.put(NGINX_PEAK, "nginx_ingress_controller_nginx_process_connections");
        METRICS.put(ETCD_WAL_FSYNC_P99, "etcd_disk_wal_fsync_duration_seconds_bucket");
        METRICS.put(ETCD_BACKEND_COMMIT_P99, "etcd_disk_backend_commit_duration_seconds_bucket");
    }

    public PrometheusPeaks {
        queries = List.copyOf(queries);
    }

    /** The PromQL deja sends for a query name over a window ("7d"). */
    public static String promql(String name, String window) {
        return switch (name) {
            case FRONTEND_PEAK, PROCESS_PEAK ->
                    "max_over_time(" + METRICS.get(name) + "[" + window + "])";
            case FRONTEND_LIMIT, PROCESS_LIMIT ->
                    "last_over_time(" + METRICS.get(name) + "[" + window + "])";
            case NGINX_PEAK ->
                    "max_over_time(" + METRICS.get(name) + "{state=\"active\"}[" + window + "])";
            // one range read per bucket series over the window (bounded by it); members without
            // a write in the window give NaN, which the comparison drops
            case ETCD_WAL_FSYNC_P99, ETCD_BACKEND_COMMIT_P99 ->
                    "histogram_quantile(0.99, sum by (job, instance, namespace, pod, le) (rate("
                            + METRICS.get(name)
                            + "["
                            + window
                            + "]))) >= 0";
            default -> throw new IllegalArgumentException("unknown query " + name);
        };
    }

    /** One query and its answer. */
    public record Query(String name, String promql, List<Sample> samples) {
        public Query {
            samples = List.copyOf(samples);
        }
    }

    /** One series of an instant vector: its labels (sorted) and value. */
    public record Sample(Map<String, String> labels, double value) {
        public Sample {
            labels = Collections.unmodifiableMap(new TreeMap<>(labels));
        }
    }

    public Optional<Query> query(String name) {
        return queries.stream().filter(q -> q.name().equals(name)).findFirst();
    }

    public List<Sample> samples(String name) {
        return query(name).map(Query::samples).orElse(List.of());
    }
}
