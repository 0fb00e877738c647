package dev.deja.model.haproxy;

import java.util.List;
import java.util.Optional;

/**
 * What HAProxy said about itself at scan time ({@code --haproxy-runtime ADDR}), per address, kept
 * as received and parsed on demand: the runtime API's answers to {@code show info} and {@code show
 * stat}, the stats page's CSV export (the same columns as {@code show stat}, without the process
 * figures) or the built-in Prometheus exporter's metrics (parsed by {@link PromexStats} into the
 * same rows and process figures). Immutable.
 */
public record HaproxyRuntime(List<Instance> instances) {
    public HaproxyRuntime {
        instances = List.copyOf(instances);
    }

    /** Which of HAProxy's three ways of exposing its figures an instance was read from. */
    public enum Format {
        /** The runtime API (stats socket): show info and show stat. */
        RUNTIME_API("runtime API", "show stat smax/slim", "show info CurrConns/Maxconn"),
        /**
         * The stats page's CSV export ({@code stats uri} + {@code ;csv}): show stat's columns only.
         */
        STATS_CSV("stats page", "stats CSV smax/slim", null),
        /** The Prometheus exporter ({@code http-request use-service prometheus-exporter}). */
        PROMETHEUS(
                "Prometheus exporter",
                "haproxy_frontend_max_sessions/haproxy_frontend_limit_sessions",
                "haproxy_process_current_connections/haproxy_process_max_connections");

        /** How a user calls it ("stats page"). */
        public final String label;

        /** Which figures give a frontend's peak and limit, for messages. */
        public final String sessionFigures;

        /**
         * Which figures give the process's connections and limit, for messages (null: this format
         * has none).
         */
        public final String processFigures;

        Format(String label, String sessionFigures, String processFigures) {
            this.label = label;
            this.sessionFigures = sessionFigures;
            this.processFigures = processFigures;
        }
    }

    /**
     * One address and what it answered, as raw text so that a saved snapshot holds exactly what was
     * read: the runtime API keeps {@code showInfo} and {@code showStat}; the stats page keeps its
     * CSV in {@code showStat}; the exporter keeps its exposition text in {@code metrics}. The
     * fields a format does not use are null.
     */
    public record Instance(
            String address, Format format, String showInfo, String showStat, String metrics) {
        public Instance {
            if (format == null) {
                throw new IllegalArgumentException("an instance needs its format");
            }
        }

        /** Read from the runtime API. */
        public Instance(String address, String showInfo, String showStat) {
            this(address, Format.RUNTIME_API, showInfo, showStat, null);
        }

        public static Instance statsCsv(String address, String csv) {
            return new Instance(address, Format.STATS_CSV, null, csv, null);
        }

        public static Instance prometheus(String address, String metrics) {
            return new Instance(address, Format.PROMETHEUS, null, null, metrics);
        }

        /**
         * The process figures; empty for the stats CSV (it has none) and for an exporter scoped
         * without them.
         */
        public Optional<RuntimeStats.Info> info() {
            return switch (format) {
                case RUNTIME_API -> Optional.of(RuntimeStats.info(showInfo));
                case STATS_CSV -> Optional.empty();
                case PROMETHEUS -> Optional.ofNullable(PromexStats.parse(metrics).info());
            };
        }

        /**
         * The frontend, backend and server lines (malformed text: {@link
         * IllegalArgumentException}).
         */
        public List<RuntimeStats.Row> rows() {
            return format == Format.PROMETHEUS
                    ? PromexStats.parse(metrics).rows()
                    : RuntimeStats.stat(showStat);
        }

        /**
         * Parses everything once: an answer that cannot be read throws here, in the source, not in
         * a rule.
         */
        public void check() {
            info();
            rows();
        }
    }
}
