package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SourceKind;
import dev.deja.model.prometheus.LivePeaks;
import dev.deja.model.prometheus.PrometheusPeaks;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * IL-0072 (Nordstrom: the AWS disks under etcd too slow for it): an etcd member whose p99 WAL fsync
 * or backend commit latency over the Prometheus window is above what etcd's FAQ gives for a disk
 * fast enough for etcd (wal_fsync_duration_seconds p99 under 10 ms, backend_commit_duration_seconds
 * p99 under 25 ms); high at or above highMillis (100 ms: etcd's default heartbeat interval, and the
 * apply duration above which etcd warns).
 *
 * <p>Source kind {@code kubernetes}: the incident's etcd was a Kubernetes control plane's; the rule
 * runs when Prometheus was read ({@link #parts()}).
 */
public final class EtcdDiskLatency implements Rule {
    @Override
    public String id() {
        return "k8s-etcd-disk-latency";
    }

    @Override
    public SourceKind source() {
        return SourceKind.KUBERNETES;
    }

    @Override
    public List<Class<?>> parts() {
        return List.of(PrometheusPeaks.class);
    }

    /** One of the two latencies judged: its query, what etcd calls it, its parameter. */
    private record Check(String query, String what, String parameter, String faq) {}

    private static final List<Check> CHECKS =
            List.of(
                    new Check(
                            PrometheusPeaks.ETCD_WAL_FSYNC_P99,
                            "WAL fsync",
                            "maxWalFsyncMillis",
                            "\"failed to send out heartbeat on time\""),
                    new Check(
                            PrometheusPeaks.ETCD_BACKEND_COMMIT_P99,
                            "backend commit",
                            "maxBackendCommitMillis",
                            "\"apply entries took too long\""));

    @Override
    public List<Finding> check(Snapshot snapshot, RuleContext ctx) {
        PrometheusPeaks p = snapshot.part(PrometheusPeaks.class).orElse(null);
        if (p == null) {
            return List.of();
        }
        double high = ctx.intParameter("highMillis");
        List<Finding> out = new ArrayList<>();
        for (Check c : CHECKS) {
            double max = ctx.intParameter(c.parameter());
            for (PrometheusPeaks.Sample s : p.samples(c.query())) {
                double ms = s.value() * 1000;
                if (!Double.isFinite(ms) || ms <= max) {
                    continue;
                }
                String instance = LivePeaks.instance(s.labels());
                String job = s.labels().getOrDefault("job", "etcd");
                String msg =
                        "etcd member "
                                + instance
                                + " (job "
                                + job
                                + "): p99 "
                                + c.what()
                                + " latency "
                                + ms(ms)
                                + " over the last "
                                + p.window()
                                + ", above the "
                                + LivePeaks.num(max)
                                + " ms etcd's FAQ gives for a disk fast enough for etcd (its answer"
                                + " to "
                                + c.faq()
                                + ")"
                                + (ms >= high
                                        ? "; at or above "
                                                + LivePeaks.num(high)
                                                + " ms, etcd's default heartbeat interval, so"
                                                + " heartbeats and commits wait on the disk and"
                                                + " leader elections follow"
                                        : "")
                                + " (Prometheus "
                                + p.url()
                                + ": histogram_quantile(0.99) of the rate of "
                                + LivePeaks.selector(
                                        PrometheusPeaks.METRICS.get(c.query()), s.labels())
                                + " over the window, interpolated within etcd's buckets)";
                out.add(
                        ctx.finding(
                                        new Location(
                                                s.labels().getOrDefault("instance", instance),
                                                null,
                                                "etcd member",
                                                s.labels().get("namespace"),
                                                job,
                                                null,
                                                null,
                                                null),
                                        msg)
                                .severity(ms >= high ? Severity.HIGH : ctx.metadata().severity())
                                .key(c.what() + " " + instance)
                                .build());
            }
        }
        return out;
    }

    /** Milliseconds with one decimal below 10, whole above ("4.2 ms", "48 ms"). */
    static String ms(double ms) {
        return ms < 10 ? String.format(Locale.ROOT, "%.1f ms", ms) : Math.round(ms) + " ms";
    }
}
