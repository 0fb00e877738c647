package dev.deja.report;

import dev.deja.engine.Catalog;
import dev.deja.engine.Finding;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a reporter renders: the scan result, the catalog (for case stories and rule titles), the
 * tool version, the fail-on threshold, and whether colour is wanted (only on a terminal).
 * Optionally the comparison with a baseline ({@code --baseline}: which findings are new) and when
 * the scan ran and how long it took (for metrics; the JSON report stays free of timestamps).
 */
public record Report(
        ScanResult result,
        Catalog catalog,
        String toolVersion,
        Severity failOn,
        boolean color,
        BaselineDiff baseline,
        RunInfo run,
        Map<String, Evidence> evidence,
        Fleet fleet) {

    public Report {
        evidence = evidence == null ? Map.of() : Map.copyOf(evidence);
    }

    public Report(
            ScanResult result,
            Catalog catalog,
            String toolVersion,
            Severity failOn,
            boolean color) {
        this(result, catalog, toolVersion, failOn, color, null, null, null, null);
    }

    public Report(
            ScanResult result,
            Catalog catalog,
            String toolVersion,
            Severity failOn,
            boolean color,
            BaselineDiff baseline,
            RunInfo run) {
        this(result, catalog, toolVersion, failOn, color, baseline, run, null, null);
    }

    /** Evidence of {@code deja scan --prove}, by finding fingerprint. */
    public Report withEvidence(Map<String, Evidence> e) {
        return new Report(result, catalog, toolVersion, failOn, color, baseline, run, e, fleet);
    }

    /** The evidence attached to a finding, or null. */
    public Evidence evidence(Finding f) {
        return evidence.isEmpty() ? null : evidence.get(f.fingerprint());
    }

    /**
     * When the scan started and how long it took, sources included; what it looked at ({@code
     * scope}: "cluster" -> "context prod (https://...)", "namespaces" -> "all", "selector", "AWS
     * regions", "files"), for the HTML report.
     */
    public record RunInfo(Instant startedAt, Duration duration, Map<String, String> scope) {
        public RunInfo {
            scope =
                    scope == null
                            ? Map.of()
                            : Collections.unmodifiableMap(new LinkedHashMap<>(scope));
        }

        public RunInfo(Instant startedAt, Duration duration) {
            this(startedAt, duration, null);
        }
    }

    public Report withBaseline(BaselineDiff b) {
        return new Report(result, catalog, toolVersion, failOn, color, b, run, evidence, fleet);
    }

    public Report withRun(RunInfo r) {
        return new Report(
                result, catalog, toolVersion, failOn, color, baseline, r, evidence, fleet);
    }

    public Report withColor(boolean c) {
        return new Report(result, catalog, toolVersion, failOn, c, baseline, run, evidence, fleet);
    }

    /**
     * A fleet report ({@code deja report merge}): the targets' status and each finding's targets.
     */
    public Report withFleet(Fleet f) {
        return new Report(result, catalog, toolVersion, failOn, color, baseline, run, evidence, f);
    }

    /** New against the baseline; every finding is new when there is no baseline. */
    public boolean isNew(Finding f) {
        return baseline == null || baseline.isNew(f);
    }

    /** Whether a finding that counts (new ones, with a baseline) is at or above --fail-on. */
    public boolean failed() {
        return failOn != null
                && result.findings().stream()
                        .anyMatch(f -> isNew(f) && f.severity().atLeast(failOn));
    }
}
