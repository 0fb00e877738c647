package dev.deja.model.haproxy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Pure parsers of HAProxy's runtime API answers: {@code show info} ("Name: value" lines) and {@code
 * show stat} (CSV whose first line is "# pxname,svname,..."; columns are found by name, so older
 * and newer HAProxy versions with more or fewer columns parse alike). Malformed text is a {@link
 * IllegalArgumentException} with a one-line reason.
 */
public final class RuntimeStats {
    private RuntimeStats() {}

    /**
     * The process figures of {@code show info} (HAProxy spells the limit "Maxconn"); -1 where
     * absent.
     */
    public record Info(
            long currConns,
            long maxConn,
            long connRate,
            long maxConnRate,
            long maxsock,
            long ulimitN,
            long uptimeSec,
            String version) {}

    /**
     * One line of {@code show stat}: type is frontend, backend, server or listener; -1 where the
     * field is empty (HAProxy leaves fields that do not apply empty, e.g. slim of a backend without
     * fullconn).
     */
    public record Row(
            String proxy,
            String service,
            String type,
            long scur,
            long smax,
            long slim,
            long stot,
            long dreq,
            long dcon,
            long ereq,
            long rate,
            long rateMax,
            long qcur,
            long qmax) {}

    public static Info info(String text) {
        Map<String, String> m = new HashMap<>();
        for (String line : lines(text)) {
            int c = line.indexOf(':');
            if (c <= 0) {
                continue; // not "Name: value": an error text is reported below, as the missing
                // figures
            }
            m.put(line.substring(0, c).trim(), line.substring(c + 1).trim());
        }
        if (!m.containsKey("Maxconn") || !m.containsKey("CurrConns")) {
            throw new IllegalArgumentException(
                    "show info: no Maxconn/CurrConns in the answer"
                            + (text == null || text.isBlank()
                                    ? " (empty)"
                                    : ": " + clip(lines(text).get(0))));
        }
        return new Info(
                num(m, "CurrConns"),
                num(m, "Maxconn"),
                num(m, "ConnRate"),
                num(m, "MaxConnRate"),
                num(m, "Maxsock"),
                num(m, "Ulimit-n"),
                num(m, "Uptime_sec"),
                m.get("Version"));
    }

    public static List<Row> stat(String text) {
        List<String> lines = lines(text);
        if (lines.isEmpty() || !lines.get(0).startsWith("# ")) {
            throw new IllegalArgumentException(
                    "show stat: no '# pxname,svname,...' header"
                            + (lines.isEmpty() ? " (empty answer)" : ": " + clip(lines.get(0))));
        }
        String[] head = lines.get(0).substring(2).split(",", -1);
        Map<String, Integer> col = new HashMap<>();
        for (int i = 0; i < head.length; i++) {
            col.put(head[i].trim(), i);
        }
        for (String need : List.of("pxname", "svname", "scur", "smax", "slim", "type")) {
            if (!col.containsKey(need)) {
                throw new IllegalArgumentException(
                        "show stat: the header has no '" + need + "' column");
            }
        }
        List<Row> rows = new ArrayList<>();
        for (int n = 1; n < lines.size(); n++) {
            String[] f = lines.get(n).split(",", -1);
            if (f.length < head.length - 1) {
                throw new IllegalArgumentException(
                        "show stat: line "
                                + (n + 1)
                                + " has "
                                + f.length
                                + " fields, the header "
                                + head.length
                                + ": "
                                + clip(lines.get(n)));
            }
            rows.add(
                    new Row(
                            f[col.get("pxname")],
                            f[col.get("svname")],
                            type(field(f, col, "type", n)),
                            field(f, col, "scur", n),
                            field(f, col, "smax", n),
                            field(f, col, "slim", n),
                            field(f, col, "stot", n),
                            field(f, col, "dreq", n),
                            field(f, col, "dcon", n),
                            field(f, col, "ereq", n),
                            field(f, col, "rate", n),
                            field(f, col, "rate_max", n),
                            field(f, col, "qcur", n),
                            field(f, col, "qmax", n)));
        }
        return List.copyOf(rows);
    }

    private static String type(long t) {
        return switch ((int) t) {
            case 0 -> "frontend";
            case 1 -> "backend";
            case 2 -> "server";
            case 3 -> "listener";
            default -> "type " + t;
        };
    }

    private static long field(String[] f, Map<String, Integer> col, String name, int n) {
        Integer i = col.get(name);
        if (i == null || i >= f.length || f[i].isEmpty()) {
            return -1;
        }
        try {
            return Long.parseLong(f[i].trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "show stat: line " + (n + 1) + ": " + name + " is not a number: " + clip(f[i]));
        }
    }

    private static long num(Map<String, String> m, String k) {
        String v = m.get(k);
        if (v == null || v.isEmpty()) {
            return -1;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("show info: " + k + " is not a number: " + clip(v));
        }
    }

    private static List<String> lines(String text) {
        List<String> out = new ArrayList<>();
        if (text == null) {
            return out;
        }
        for (String l : text.split("\r?\n")) {
            if (!l.isBlank()) {
                out.add(l);
            }
        }
        return out;
    }

    private static String clip(String s) {
        String one = s.replaceAll("\\p{Cntrl}", "?");
        return one.length() > 80 ? one.substring(0, 80) + "..." : one;
    }
}
