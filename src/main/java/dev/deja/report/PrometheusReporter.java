package dev.deja.report;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleMetadata;
import dev.deja.engine.Severity;
import dev.deja.engine.Target;
import java.io.IOException;
import java.io.Writer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Prometheus text exposition format 0.0.4, for {@code --format prometheus} and {@code
 * --pushgateway}:
 *
 * <ul>
 *   <li>{@code deja_findings{rule,severity,case,source}}: findings per label set; a finding linked
 *       to several cases counts once under each case (so {@code sum by (case)} is per case; count
 *       findings per rule with {@code deja_findings_by_severity} or by one case).
 *   <li>{@code deja_findings_by_severity{severity}}: findings per severity, every severity present
 *       (0 included), so alerts need no {@code absent()}.
 *   <li>{@code deja_new_findings{rule,severity,case,source}}: only with a baseline, the new ones.
 *   <li>{@code deja_scan_duration_seconds}, {@code deja_scan_incomplete} (0/1), {@code
 *       deja_last_scan_timestamp_seconds}.
 *   <li>{@code deja_expired_suppressions{rule,origin,expires}}: 1 per ignore-file entry that has
 *       expired (and no longer suppresses), only when there is one.
 *   <li>{@code deja_scan_info{scanned}}: 1, only for a live cluster scan: which cluster it read
 *       (its kubeconfig context and API server, and the namespaces).
 * </ul>
 *
 * When the scan read live targets, every series carries its target: {@code cluster="prod"} (the
 * context name or --cluster-name) or {@code account="123456789012"}; the run's duration and time
 * are given for each target, and {@code deja_scan_incomplete} says whether that target was read in
 * full. Series of files have no target label.
 */
public final class PrometheusReporter implements Reporter {
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    @Override
    public void write(Report report, Writer w) throws IOException {
        List<Target> groups = groups(report);
        findingFamilies(report, groups, w);
        Duration d =
                report.run() != null
                        ? report.run().duration()
                        : Duration.ofMillis(report.result().durationMillis());
        Instant at = report.run() != null ? report.run().startedAt() : Instant.now();
        scanFamilies(report, groups, d, at, w);
        expiredAndScanned(report, w);
        w.flush();
    }

    /**
     * The finding families: by labels, by severity, and (with a baseline) the new ones; one series
     * per target group.
     */
    private static void findingFamilies(Report report, List<Target> groups, Writer w)
            throws IOException {
        List<Finding> findings = report.result().findings();
        family(
                w,
                "deja_findings",
                "gauge",
                "Findings of the last deja scan by rule, severity, incident case and source (a finding linked to"
                        + " several cases counts under each)");
        for (Target t : groups) {
            for (Map.Entry<String, Long> e : byLabels(report, of(findings, t), t).entrySet()) {
                w.write("deja_findings" + e.getKey() + " " + e.getValue() + "\n");
            }
        }
        family(
                w,
                "deja_findings_by_severity",
                "gauge",
                "Findings of the last deja scan by severity");
        for (Target t : groups) {
            for (int i = Severity.values().length - 1; i >= 0; i--) {
                Severity s = Severity.values()[i];
                long n =
                        groups.size() == 1 && t == null
                                ? report.result().count(s)
                                : report.result().count(t, s);
                w.write(
                        "deja_findings_by_severity{"
                                + targetLabels(t)
                                + "severity=\""
                                + s.id()
                                + "\"} "
                                + n
                                + "\n");
            }
        }
        if (report.baseline() != null) {
            family(
                    w,
                    "deja_new_findings",
                    "gauge",
                    "Findings of the last deja scan that are not in the baseline");
            for (Target t : groups) {
                for (Map.Entry<String, Long> e :
                        byLabels(report, of(report.baseline().newFindings(), t), t).entrySet()) {
                    w.write("deja_new_findings" + e.getKey() + " " + e.getValue() + "\n");
                }
            }
        }
    }

    /** The scan's duration, completeness and start time, one series per target group. */
    private static void scanFamilies(
            Report report, List<Target> groups, Duration d, Instant at, Writer w)
            throws IOException {
        family(
                w,
                "deja_scan_duration_seconds",
                "gauge",
                "How long the last deja scan took, sources included");
        for (Target t : groups) {
            w.write(
                    "deja_scan_duration_seconds"
                            + braces(t)
                            + " "
                            + seconds(d.toNanos() / 1e9)
                            + "\n");
        }
        family(
                w,
                "deja_scan_incomplete",
                "gauge",
                "1 when the last deja scan could not read some source or kind (see the report's coverage), else 0");
        for (Target t : groups) {
            boolean complete =
                    groups.size() == 1 && t == null
                            ? report.result().coverage().complete()
                            : report.result().coverage().complete(t);
            w.write("deja_scan_incomplete" + braces(t) + " " + (complete ? 0 : 1) + "\n");
        }
        family(
                w,
                "deja_last_scan_timestamp_seconds",
                "gauge",
                "When the last deja scan started, in Unix seconds");
        for (Target t : groups) {
            w.write(
                    "deja_last_scan_timestamp_seconds"
                            + braces(t)
                            + " "
                            + seconds(at.toEpochMilli() / 1000.0)
                            + "\n");
        }
    }

    /** The expired ignore-file entries and the live cluster read, when there are any. */
    private static void expiredAndScanned(Report report, Writer w) throws IOException {
        if (!report.result().expired().isEmpty()) {
            family(
                    w,
                    "deja_expired_suppressions",
                    "gauge",
                    "Ignore-file entries that have expired and no longer suppress anything, 1 each");
            for (var e : report.result().expired()) {
                w.write(
                        "deja_expired_suppressions{rule=\""
                                + label(e.rule())
                                + "\",origin=\""
                                + label(e.origin())
                                + "\",expires=\""
                                + label(String.valueOf(e.expires()))
                                + "\"} 1\n");
            }
        }
        String scanned = ScanNotes.scanned(report);
        if (scanned != null) {
            family(
                    w,
                    "deja_scan_info",
                    "gauge",
                    "The live cluster the last deja scan read: kubeconfig context, API server and namespaces");
            w.write("deja_scan_info{scanned=\"" + label(scanned) + "\"} 1\n");
        }
    }

    /**
     * The targets of the run, and null for the files when there are any (or when there is no target
     * at all).
     */
    static List<Target> groups(Report report) {
        List<Target> out = new ArrayList<>();
        boolean files =
                report.result().targets().isEmpty()
                        || report.result().coverage().entries().stream()
                                .anyMatch(e -> e.target() == null && !"rules".equals(e.source()))
                        || report.result().findings().stream().anyMatch(f -> f.target() == null);
        if (files) {
            out.add(null);
        }
        out.addAll(report.result().targets());
        return out;
    }

    private static List<Finding> of(List<Finding> findings, Target t) {
        return findings.stream().filter(f -> Objects.equals(f.target(), t)).toList();
    }

    /**
     * {@code cluster="prod",} or {@code account="123",} (both when both are set), or "" for files.
     */
    static String targetLabels(Target t) {
        if (t == null) {
            return "";
        }
        return (t.cluster() == null ? "" : "cluster=\"" + label(t.cluster()) + "\",")
                + (t.account() == null ? "" : "account=\"" + label(t.account()) + "\",");
    }

    private static String braces(Target t) {
        String l = targetLabels(t);
        return l.isEmpty() ? "" : "{" + l.substring(0, l.length() - 1) + "}";
    }

    private static TreeMap<String, Long> byLabels(Report report, List<Finding> findings, Target t) {
        TreeMap<String, Long> counts = new TreeMap<>();
        for (Finding f : findings) {
            RuleMetadata meta = report.catalog().rule(f.ruleId()).orElse(null);
            String source = meta == null ? "" : meta.source().id();
            List<String> cases = f.caseIds().isEmpty() ? List.of("") : f.caseIds();
            for (String c : cases) {
                String labels =
                        "{"
                                + targetLabels(t)
                                + "rule=\""
                                + label(f.ruleId())
                                + "\",severity=\""
                                + f.severity().id()
                                + "\",case=\""
                                + label(c)
                                + "\",source=\""
                                + label(source)
                                + "\"}";
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
