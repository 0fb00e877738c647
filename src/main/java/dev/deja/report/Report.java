package dev.deja.report;

import dev.deja.engine.Catalog;
import dev.deja.engine.Finding;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import java.time.Duration;
import java.time.Instant;

/**
 * What a reporter renders: the scan result, the catalog (for case stories and rule titles), the tool version, the
 * fail-on threshold, and whether colour is wanted (only on a terminal). Optionally the comparison with a baseline
 * ({@code --baseline}: which findings are new) and when the scan ran and how long it took (for metrics; the JSON
 * report stays free of timestamps).
 */
public record Report(ScanResult result, Catalog catalog, String toolVersion, Severity failOn, boolean color,
                     BaselineDiff baseline, RunInfo run) {

    public Report(ScanResult result, Catalog catalog, String toolVersion, Severity failOn, boolean color) {
        this(result, catalog, toolVersion, failOn, color, null, null);
    }

    /** When the scan started and how long it took, sources included. */
    public record RunInfo(Instant startedAt, Duration duration) {
    }

    public Report withBaseline(BaselineDiff b) {
        return new Report(result, catalog, toolVersion, failOn, color, b, run);
    }

    public Report withRun(RunInfo r) {
        return new Report(result, catalog, toolVersion, failOn, color, baseline, r);
    }

    public Report withColor(boolean c) {
        return new Report(result, catalog, toolVersion, failOn, c, baseline, run);
    }

    /** New against the baseline; every finding is new when there is no baseline. */
    public boolean isNew(Finding f) {
        return baseline == null || baseline.isNew(f);
    }

    /** Whether a finding that counts (new ones, with a baseline) is at or above --fail-on. */
    public boolean failed() {
        return failOn != null && result.findings().stream().anyMatch(f -> isNew(f) && f.severity().atLeast(failOn));
    }
}
