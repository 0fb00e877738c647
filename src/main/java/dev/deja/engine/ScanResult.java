package dev.deja.engine;

import java.util.List;

/**
 * The outcome of running the rules over a snapshot: findings (sorted), what was suppressed and why, ignore-file
 * entries that have expired, which rules ran, and the coverage of the sources.
 */
public record ScanResult(List<Finding> findings, List<Suppressed> suppressed, List<Suppressions.Entry> expired,
                         List<String> rulesRun, Coverage coverage, long durationMillis) {

    public ScanResult {
        findings = List.copyOf(findings);
        suppressed = List.copyOf(suppressed);
        expired = List.copyOf(expired);
        rulesRun = List.copyOf(rulesRun);
    }

    /** A finding that a suppression matched, with where the suppression is written and why. */
    public record Suppressed(Finding finding, String reason, String origin) {
    }

    public long count(Severity s) {
        return findings.stream().filter(f -> f.severity() == s).count();
    }

    public boolean anyAtLeast(Severity s) {
        return findings.stream().anyMatch(f -> f.severity().atLeast(s));
    }

    public ScanResult withFindings(List<Finding> fs) {
        return new ScanResult(fs, suppressed, expired, rulesRun, coverage, durationMillis);
    }
}
