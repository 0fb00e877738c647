package dev.deja.model.haproxy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Pure parser of the metrics of HAProxy's built-in Prometheus exporter ({@code http-request
 * use-service prometheus-exporter}, addons/promex): the Prometheus text exposition format, read
 * into the rows of {@code show stat} and the process figures of {@code show info}, so that the
 * rules judge the same figures whichever way they were read. The exporter names a show stat field
 * by a fixed metric name (addons/promex/service-prometheus.c: ST_F_SCUR is {@code
 * current_sessions}, ST_F_SMAX {@code max_sessions}, ST_F_SLIM {@code limit_sessions}, ...) under
 * {@code haproxy_frontend_}, {@code haproxy_backend_} or {@code haproxy_server_}, with labels
 * {@code proxy} (and {@code server}); the show info fields under {@code haproxy_process_}
 * (INF_CURR_CONN is {@code current_connections}, INF_MAXCONN {@code max_connections}). Checked
 * against haproxy 2.6.12 (Debian 12).
 */
public final class PromexStats {
    private PromexStats() {}

    /**
     * The process figures (null when the exporter gave none, e.g. scoped to frontends) and the
     * proxy rows.
     */
    public record Parsed(RuntimeStats.Info info, List<RuntimeStats.Row> rows) {}

    /**
     * show stat field -> the exporter's name for it (the same for frontends, backends and servers).
     */
    private static final Map<String, String> FIELD =
            Map.ofEntries(
                    Map.entry("current_sessions", "scur"),
                    Map.entry("max_sessions", "smax"),
                    Map.entry("limit_sessions", "slim"),
                    Map.entry("sessions_total", "stot"),
                    Map.entry("requests_denied_total", "dreq"),
                    Map.entry("denied_connections_total", "dcon"),
                    Map.entry("request_errors_total", "ereq"),
                    Map.entry("current_session_rate", "rate"),
                    Map.entry("max_session_rate", "rate_max"),
                    Map.entry("current_queue", "qcur"),
                    Map.entry("max_queue", "qmax"));

    public static Parsed parse(String text) {
        Map<String, Double> process = new HashMap<>();
        String version = null;
        // (type, proxy, server) -> field -> value, in the order first seen
        Map<List<String>, Map<String, Double>> objects = new LinkedHashMap<>();
        boolean any = false;
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
            }
            if (l.startsWith("#")) {
                continue;
            }
            Sample s = sample(l, n);
            if (!s.name().startsWith("haproxy_")) {
                continue;
            }
            any = true;
            if (s.name().startsWith("haproxy_process_")) {
                String f = s.name().substring("haproxy_process_".length());
                if (f.equals("build_info") && s.labels().containsKey("version")) {
                    version = s.labels().get("version");
                }
                process.put(f, s.value());
                continue;
            }
            String type =
                    s.name().startsWith("haproxy_frontend_")
                            ? "frontend"
                            : s.name().startsWith("haproxy_backend_")
                                    ? "backend"
                                    : s.name().startsWith("haproxy_server_") ? "server" : null;
            if (type == null || !s.labels().containsKey("proxy")) {
                continue; // listeners, stick tables, anything else: not needed
            }
            String field = FIELD.get(s.name().substring(("haproxy_" + type + "_").length()));
            if (field == null) {
                continue;
            }
            String server =
                    type.equals("server")
                            ? s.labels().getOrDefault("server", "")
                            : type.toUpperCase(Locale.ROOT);
            objects.computeIfAbsent(
                            List.of(type, s.labels().get("proxy"), server), k -> new HashMap<>())
                    .put(field, s.value());
        }
        if (!any) {
            throw new IllegalArgumentException(
                    "not HAProxy's Prometheus metrics (no haproxy_* series)"
                            + (first == null ? " (empty answer)" : ": " + clip(first)));
        }
        RuntimeStats.Info info = info(process, version);
        List<RuntimeStats.Row> rows = rows(objects);
        if (info == null && rows.isEmpty()) {
            throw new IllegalArgumentException(
                    "HAProxy's Prometheus metrics hold no haproxy_process_* connection figures"
                            + " and no frontend, backend or server sessions (an exporter scoped to other metrics?)");
        }
        return new Parsed(info, List.copyOf(rows));
    }

    /** The process's connection figures, or null when it reports no current and max. */
    private static RuntimeStats.Info info(Map<String, Double> process, String version) {
        RuntimeStats.Info info = null;
        if (process.containsKey("current_connections") && process.containsKey("max_connections")) {
            info =
                    new RuntimeStats.Info(
                            num(process, "current_connections"),
                            num(process, "max_connections"),
                            num(process, "current_connection_rate"),
                            num(process, "max_connection_rate"),
                            num(process, "max_sockets"),
                            num(process, "max_fds"),
                            num(process, "uptime_seconds"),
                            version);
        }
        return info;
    }

    /** One row per frontend, backend and server, in the order first seen. */
    private static List<RuntimeStats.Row> rows(Map<List<String>, Map<String, Double>> objects) {
        List<RuntimeStats.Row> rows = new ArrayList<>();
        for (Map.Entry<List<String>, Map<String, Double>> e : objects.entrySet()) {
            Map<String, Double> f = e.getValue();
            rows.add(
                    new RuntimeStats.Row(
                            e.getKey().get(1),
                            e.getKey().get(2),
                            e.getKey().get(0),
                            num(f, "scur"),
                            num(f, "smax"),
                            num(f, "slim"),
                            num(f, "stot"),
                            num(f, "dreq"),
                            num(f, "dcon"),
                            num(f, "ereq"),
                            num(f, "rate"),
                            num(f, "rate_max"),
                            num(f, "qcur"),
                            num(f, "qmax")));
        }
        return rows;
    }

    /** One line of the text exposition format: metric name, labels, value. */
    public record Sample(String name, Map<String, String> labels, double value) {}

    /**
     * {@code name{a="x",b="y"} value [timestamp]}; label values may hold escaped quotes,
     * backslashes and newlines. Also read by {@code --live-metrics} for ingress-nginx's metrics. A
     * malformed line: IllegalArgumentException naming line {@code n}.
     */
    public static Sample sample(String l, int n) {
        int i = 0;
        while (i < l.length() && l.charAt(i) != '{' && !Character.isWhitespace(l.charAt(i))) {
            i++;
        }
        String name = l.substring(0, i);
        Map<String, String> labels = new HashMap<>();
        if (i < l.length() && l.charAt(i) == '{') {
            i++;
            while (true) {
                while (i < l.length() && (l.charAt(i) == ',' || l.charAt(i) == ' ')) {
                    i++;
                }
                if (i < l.length() && l.charAt(i) == '}') {
                    i++;
                    break;
                }
                int eq = l.indexOf('=', i);
                if (eq < 0 || eq + 1 >= l.length() || l.charAt(eq + 1) != '"') {
                    throw bad(n, "a label is not name=\"value\"", l);
                }
                String key = l.substring(i, eq).strip();
                StringBuilder v = new StringBuilder();
                int j = eq + 2;
                for (; j < l.length() && l.charAt(j) != '"'; j++) {
                    char c = l.charAt(j);
                    if (c == '\\' && j + 1 < l.length()) {
                        char d = l.charAt(++j);
                        v.append(d == 'n' ? '\n' : d);
                    } else {
                        v.append(c);
                    }
                }
                if (j >= l.length()) {
                    throw bad(n, "a label value is not closed", l);
                }
                labels.put(key, v.toString());
                i = j + 1;
            }
        }
        String[] rest = l.substring(i).strip().split("\\s+");
        if (name.isEmpty() || rest.length == 0 || rest[0].isEmpty()) {
            throw bad(n, "no value", l);
        }
        double value;
        try {
            value =
                    switch (rest[0]) {
                        case "+Inf" -> Double.POSITIVE_INFINITY;
                        case "-Inf" -> Double.NEGATIVE_INFINITY;
                        case "NaN" -> Double.NaN;
                        default -> Double.parseDouble(rest[0]);
                    };
        } catch (NumberFormatException e) {
            throw bad(n, "the value is not a number", l);
        }
        return new Sample(name, labels, value);
    }

    private static IllegalArgumentException bad(int n, String why, String line) {
        return new IllegalArgumentException("metrics: line " + n + ": " + why + ": " + clip(line));
    }

    /** A figure as show stat gives it: -1 where absent or not a finite number. */
    private static long num(Map<String, Double> m, String k) {
        Double v = m.get(k);
        return v == null || v.isNaN() || v.isInfinite() ? -1 : Math.round(v);
    }

    private static String clip(String s) {
        String one = s.replaceAll("\\p{Cntrl}", "?");
        return one.length() > 80 ? one.substring(0, 80) + "..." : one;
    }
}
