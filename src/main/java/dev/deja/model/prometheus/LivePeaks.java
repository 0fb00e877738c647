package dev.deja.model.prometheus;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * Pure view of a {@link PrometheusPeaks} for the rules: each peak over the window paired with its
 * limit by label set (the peak and the limit of one target carry the same labels once PromQL drops
 * the metric name), and named by the instance or pod it belongs to. Label sets are not uniform
 * across exporters and scrapers: the proxy is read from {@code proxy} (HAProxy's own exporter) or
 * {@code frontend} (the older haproxy_exporter); the pod from {@code pod}, {@code
 * kubernetes_pod_name}, {@code pod_name} or {@code controller_pod}; else the {@code instance}.
 */
public final class LivePeaks {
    private LivePeaks() {}

    /**
     * A peak against its limit.
     *
     * @param instance "pod ns/name" or "instance host:port" (or the label set when neither label is
     *     there)
     * @param fleet the group of instances it is compared with (job, or ingress-nginx controller
     *     class), for spread
     * @param proxy the frontend's name, or null for a whole process
     * @param limit the limit, or 0 when none was found
     * @param series the series used, as PromQL selectors, for the message
     */
    public record Peak(
            String instance,
            String fleet,
            String proxy,
            double peak,
            double limit,
            String series,
            Map<String, String> labels) {
        public double percent() {
            return limit > 0 ? peak * 100.0 / limit : 0;
        }
    }

    /** HAProxy frontends: peak of current sessions against the session limit of the same series. */
    public static List<Peak> frontends(PrometheusPeaks p) {
        return paired(p, PrometheusPeaks.FRONTEND_PEAK, PrometheusPeaks.FRONTEND_LIMIT, true);
    }

    /** HAProxy processes: peak of current connections against the process's maximum connections. */
    public static List<Peak> processes(PrometheusPeaks p) {
        return paired(p, PrometheusPeaks.PROCESS_PEAK, PrometheusPeaks.PROCESS_LIMIT, false);
    }

    /**
     * ingress-nginx controllers: peak of active client connections (no limit in the metrics: see
     * the rule).
     */
    public static List<Peak> nginx(PrometheusPeaks p) {
        List<Peak> out = new ArrayList<>();
        for (PrometheusPeaks.Sample s : p.samples(PrometheusPeaks.NGINX_PEAK)) {
            if (!Double.isFinite(s.value())) {
                continue;
            }
            out.add(
                    new Peak(
                            instance(s.labels()),
                            nginxFleet(s.labels()),
                            null,
                            s.value(),
                            0,
                            selector(
                                    PrometheusPeaks.METRICS.get(PrometheusPeaks.NGINX_PEAK),
                                    s.labels()),
                            s.labels()));
        }
        return out;
    }

    private static List<Peak> paired(
            PrometheusPeaks p, String peakQuery, String limitQuery, boolean frontend) {
        Map<Map<String, String>, Double> limits = new HashMap<>();
        for (PrometheusPeaks.Sample s : p.samples(limitQuery)) {
            limits.put(s.labels(), s.value());
        }
        List<Peak> out = new ArrayList<>();
        for (PrometheusPeaks.Sample s : p.samples(peakQuery)) {
            if (!Double.isFinite(s.value())) {
                continue;
            }
            Double limit = limits.get(s.labels());
            String proxy = frontend ? proxy(s.labels()) : null;
            String series =
                    selector(PrometheusPeaks.METRICS.get(peakQuery), s.labels())
                            + (limit == null
                                    ? ""
                                    : " / "
                                            + selector(
                                                    PrometheusPeaks.METRICS.get(limitQuery),
                                                    s.labels()));
            out.add(
                    new Peak(
                            instance(s.labels()),
                            fleet(s.labels()),
                            proxy,
                            s.value(),
                            limit == null || !Double.isFinite(limit) ? 0 : limit,
                            series,
                            s.labels()));
        }
        return out;
    }

    static String proxy(Map<String, String> labels) {
        for (String k : List.of("proxy", "frontend", "pxname")) {
            if (labels.containsKey(k)) {
                return labels.get(k);
            }
        }
        return "?";
    }

    /** "pod ns/name", "instance 10.0.0.1:8405", or the label set. */
    public static String instance(Map<String, String> labels) {
        String pod = first(labels, "pod", "kubernetes_pod_name", "pod_name", "controller_pod");
        if (pod != null) {
            String ns = first(labels, "namespace", "kubernetes_namespace", "controller_namespace");
            return "pod " + (ns == null ? "" : ns + "/") + pod;
        }
        String inst = labels.get("instance");
        if (inst != null) {
            return "instance " + inst;
        }
        return selector("", labels);
    }

    /**
     * The group an instance is compared with: its scrape job (and namespace), else everything of
     * that kind.
     */
    static String fleet(Map<String, String> labels) {
        String job = labels.get("job");
        String ns = first(labels, "namespace", "kubernetes_namespace");
        return job == null ? "" : "job " + job + (ns == null ? "" : " in " + ns);
    }

    static String nginxFleet(Map<String, String> labels) {
        String cls = labels.get("controller_class");
        String ns = first(labels, "controller_namespace", "namespace", "kubernetes_namespace");
        if (cls != null) {
            return "controller class " + cls + (ns == null ? "" : " in " + ns);
        }
        return fleet(labels);
    }

    private static String first(Map<String, String> labels, String... keys) {
        for (String k : keys) {
            String v = labels.get(k);
            if (v != null && !v.isEmpty()) {
                return v;
            }
        }
        return null;
    }

    /** metric{a="1",b="2"}, labels sorted. */
    public static String selector(String metric, Map<String, String> labels) {
        StringJoiner j = new StringJoiner(",", "{", "}");
        new TreeMap<>(labels)
                .forEach(
                        (k, v) ->
                                j.add(
                                        k
                                                + "=\""
                                                + v.replace("\\", "\\\\").replace("\"", "\\\"")
                                                + "\""));
        return metric + (labels.isEmpty() ? "" : j.toString());
    }

    /** A whole number as written ("790"), else one decimal. */
    public static String num(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15
                ? Long.toString((long) v)
                : String.format(Locale.ROOT, "%.1f", v);
    }
}
