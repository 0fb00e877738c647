package dev.deja.report;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleMetadata;
import dev.deja.engine.Severity;
import java.io.IOException;
import java.io.Writer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Prometheus text exposition format 0.0.4, for {@code --format prometheus} and {@code --pushgateway}:
 * <ul>
 *   <li>{@code deja_findings{rule,severity,case,source}}: findings per label set; a finding linked to several cases
 *       counts once under each case (so {@code sum by (case)} is per case; count findings per rule with
 *       {@code deja_findings_by_severity} or by one case).</li>
 *   <li>{@code deja_findings_by_severity{severity}}: findings per severity, every severity present (0 included), so
 *       alerts need no {@code absent()}.</li>
 *   <li>{@code deja_new_findings{rule,severity,case,source}}: only with a baseline, the new ones.</li>
 *   <li>{@code deja_scan_duration_seconds}, {@code deja_scan_incomplete} (0/1),
 *       {@code deja_last_scan_timestamp_seconds}.</li>
 * </ul>
 */
public final class PrometheusReporter implements Reporter {
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    @Override
    public void write(Report report, Writer w) throws IOException {
        List<Finding> findings = report.result().findings();
        family(w, "deja_findings", "gauge",
                "Findings of the last deja scan by rule, severity, incident case and source (a finding linked to"
                        + " several cases counts under each)");
        for (Map.Entry<String, Long> e : byLabels(report, findings).entrySet()) {
            w.write("deja_findings" + e.getKey() + " " + e.getValue() + "\n");
        }
        family(w, "deja_findings_by_severity", "gauge", "Findings of the last deja scan by severity");
        for (int i = Severity.values().length - 1; i >= 0; i--) {
            Severity s = Severity.values()[i];
            w.write("deja_findings_by_severity{severity=\"" + s.id() + "\"} " + report.result().count(s) + "\n");
        }
        if (report.baseline() != null) {
            family(w, "deja_new_findings", "gauge", "Findings of the last deja scan that are not in the baseline");
            for (Map.Entry<String, Long> e : byLabels(report, report.baseline().newFindings()).entrySet()) {
                w.write("deja_new_findings" + e.getKey() + " " + e.getValue() + "\n");
            }
        }
        Duration d = report.run() != null ? report.run().duration() : Duration.ofMillis(report.result().durationMillis());
        Instant at = report.run() != null ? report.run().startedAt() : Instant.now();
        family(w, "deja_scan_duration_seconds", "gauge", "How long the last deja scan took, sources included");
        w.write("deja_scan_duration_seconds " + seconds(d.toNanos() / 1e9) + "\n");
        family(w, "deja_scan_incomplete", "gauge",
                "1 when the last deja scan could not read some source or kind (see the report's coverage), else 0");
        w.write("deja_scan_incomplete " + (report.result().coverage().complete() ? 0 : 1) + "\n");
        family(w, "deja_last_scan_timestamp_seconds", "gauge", "When the last deja scan started, in Unix seconds");
        w.write("deja_last_scan_timestamp_seconds " + seconds(at.toEpochMilli() / 1000.0) + "\n");
        w.flush();
    }

    private static TreeMap<String, Long> byLabels(Report report, List<Finding> findings) {
        TreeMap<String, Long> counts = new TreeMap<>();
        for (Finding f : findings) {
            RuleMetadata meta = report.catalog().rule(f.ruleId()).orElse(null);
            String source = meta == null ? "" : meta.source().id();
            List<String> cases = f.caseIds().isEmpty() ? List.of("") : f.caseIds();
            for (String c : cases) {
                String labels = "{rule=\"" + label(f.ruleId()) + "\",severity=\"" + f.severity().id() + "\",case=\""
                        + label(c) + "\",source=\"" + label(source) + "\"}";
                counts.merge(labels, 1L, Long::sum);
            }
        }
        return counts;
    }

    private static void family(Writer w, String name, String type, String help) throws IOException {
        w.write("# HELP " + name + " " + help(help) + "\n");
        w.write("# TYPE " + name + " " + type + "\n");
    }

    /** Label values: backslash, double quote and line feed are escaped. */
    static String label(String v) {
        return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    /** HELP text: backslash and line feed are escaped. */
    static String help(String v) {
        return v.replace("\\", "\\\\").replace("\n", "\\n");
    }

    private static String seconds(double s) {
        return String.format(Locale.ROOT, "%.3f", s);
    }
}
