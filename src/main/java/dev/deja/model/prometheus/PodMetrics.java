package dev.deja.model.prometheus;

import dev.deja.model.haproxy.PromexStats;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * What ingress-nginx controller pods' own Prometheus endpoints answered at scan time ({@code deja
 * scan --cluster --live-metrics}, read through the API server's pod proxy): per pod, the series of
 * {@code nginx_ingress_controller_nginx_process_connections} (one per {@code state}: active,
 * reading, writing, waiting), kept as read. These are gauges at the moment of the read, not peaks.
 * Immutable; judged by lb-connections-near-capacity against the capacity its controller's ConfigMap
 * gives.
 */
public record PodMetrics(List<Pod> pods) {
    /**
     * The gauge of client connections, by state
     * (internal/ingress/metric/collectors/nginx_status.go: subsystem {@code nginx_process}, name
     * {@code connections}, "current number of client connections with state {active, reading,
     * writing, waiting}", const labels controller_namespace, controller_class, controller_pod).
     */
    public static final String NGINX_CONNECTIONS =
            "nginx_ingress_controller_nginx_process_connections";

    public PodMetrics {
        pods = List.copyOf(pods);
    }

    /**
     * One pod read: where it was read, the workload it belongs to (its namespace is the pod's), and
     * the samples.
     *
     * @param workloadKind Deployment, DaemonSet or StatefulSet
     * @param node the node the pod runs on, when its CPU count was read (else null)
     * @param nodeCpus that node's {@code status.capacity.cpu}, read when the controller's worker
     *     count is the node's CPU count (worker-processes auto, or unset without a CPU limit); 0
     *     when not read
     */
    public record Pod(
            String namespace,
            String name,
            int port,
            String workloadKind,
            String workloadName,
            List<PrometheusPeaks.Sample> samples,
            String node,
            int nodeCpus) {
        public Pod {
            samples = List.copyOf(samples);
        }

        /** A pod whose node was not read. */
        public Pod(
                String namespace,
                String name,
                int port,
                String workloadKind,
                String workloadName,
                List<PrometheusPeaks.Sample> samples) {
            this(namespace, name, port, workloadKind, workloadName, samples, null, 0);
        }

        /** "pod NS/NAME:PORT via API server", as --live-metrics names a pod it read. */
        public String address() {
            return "pod " + namespace + "/" + name + ":" + port + " via API server";
        }

        /** The value of the series with state="active", if any. */
        public OptionalDouble active() {
            return state("active");
        }

        public OptionalDouble state(String state) {
            for (PrometheusPeaks.Sample s : samples) {
                if (state.equals(s.labels().get("state")) && Double.isFinite(s.value())) {
                    return OptionalDouble.of(s.value());
                }
            }
            return OptionalDouble.empty();
        }
    }

    /**
     * The {@value #NGINX_CONNECTIONS} series of an ingress-nginx controller's /metrics text; one
     * line of reason (IllegalArgumentException) when the text is not Prometheus text or holds no
     * such series with state="active".
     */
    public static List<PrometheusPeaks.Sample> nginxConnections(String text) {
        List<PrometheusPeaks.Sample> out = new ArrayList<>();
        boolean controller = false;
        String first = null;
        int n = 0;
        for (String line : (text == null ? "" : text).split("\n")) {
            n++;
            String l = line.strip();
            if (l.isEmpty()) {
                continue;
            }
            if (first == null) {
                first = l;
                if (l.startsWith("<")) {
                    throw new IllegalArgumentException("an HTML page, not Prometheus metrics");
                }
            }
            if (l.startsWith("#")) {
                continue;
            }
            PromexStats.Sample s = PromexStats.sample(l, n);
            controller |= s.name().startsWith("nginx_ingress_controller_");
            if (s.name().equals(NGINX_CONNECTIONS)) {
                out.add(new PrometheusPeaks.Sample(s.labels(), s.value()));
            }
        }
        if (out.stream().noneMatch(s -> "active".equals(s.labels().get("state")))) {
            throw new IllegalArgumentException(
                    first == null
                            ? "empty answer"
                            : controller
                                    ? "ingress-nginx's metrics hold no "
                                            + NGINX_CONNECTIONS
                                            + "{state=\"active\"} series (the"
                                            + " controller serves it from nginx's stub_status; --enable-metrics=false, or a controller"
                                            + " older than the gauge?)"
                                    : "not ingress-nginx's metrics (no nginx_ingress_controller_* series): "
                                            + clip(first));
        }
        return out;
    }

    private static String clip(String s) {
        String one = s.replaceAll("\\p{Cntrl}", "?");
        return one.length() > 80 ? one.substring(0, 80) + "..." : one;
    }

    /** For messages: "active 1900 (reading 3, writing 40, waiting 1857)". */
    public static String states(Pod p) {
        StringBuilder b = new StringBuilder();
        for (String st : List.of("reading", "writing", "waiting")) {
            OptionalDouble v = p.state(st);
            if (v.isPresent()) {
                b.append(b.length() == 0 ? "" : ", ")
                        .append(st)
                        .append(' ')
                        .append(LivePeaks.num(v.getAsDouble()));
            }
        }
        return b.toString();
    }
}
