package dev.deja.report;

import dev.deja.engine.Coverage;
import dev.deja.engine.Suppressions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The lines every format gives besides the findings, worded once: which live cluster a scan read
 * (its kubeconfig context and API server, and which namespaces) and which ignore-file entries have
 * expired.
 */
public final class ScanNotes {
    private ScanNotes() {}

    /** The scope keys that name what a live scan read, in the order they are shown. */
    private static final List<String> LIVE = List.of("cluster", "clusters", "namespaces");

    /**
     * "cluster: context prod (https://10.0.0.1:6443); namespaces: all" when the scan read a live
     * cluster (or several: "clusters: 2: prod, staging"), else null.
     */
    public static String scanned(Report report) {
        Map<String, String> scope = scope(report);
        if (!scope.containsKey("cluster") && !scope.containsKey("clusters")) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        for (String k : LIVE) {
            String v = scope.get(k);
            if (v != null) {
                parts.add(k + ": " + v);
            }
        }
        return String.join("; ", parts);
    }

    /** What the scan looked at (the report's run scope), empty when unknown. */
    public static Map<String, String> scope(Report report) {
        return report.run() == null ? Map.of() : report.run().scope();
    }

    /**
     * "suppression at deja-ignore.yaml:3 for haproxy-x expired on 2026-01-31 and no longer
     * applies".
     */
    public static String expired(Suppressions.Entry e) {
        return "suppression at "
                + e.origin()
                + " for "
                + e.rule()
                + " expired on "
                + e.expires()
                + " and no longer applies";
    }

    /** "kubernetes: Ingress: failed (403 Forbidden)": a scope not checked, and why. */
    public static String notChecked(Coverage.Entry e) {
        return e.source()
                + ": "
                + e.scope()
                + ": "
                + e.status().name().toLowerCase(Locale.ROOT)
                + (e.detail() == null ? "" : " (" + e.detail() + ")");
    }
}
