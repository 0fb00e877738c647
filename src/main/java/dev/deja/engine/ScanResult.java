package dev.deja.engine;

import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The outcome of running the rules over a snapshot: findings (sorted), what was suppressed and why,
 * ignore-file entries that have expired, which rules ran, and the coverage of the sources.
 */
public record ScanResult(
        List<Finding> findings,
        List<Suppressed> suppressed,
        List<Suppressions.Entry> expired,
        List<String> rulesRun,
        Coverage coverage,
        long durationMillis) {

    public ScanResult {
        findings = List.copyOf(findings);
        suppressed = List.copyOf(suppressed);
        expired = List.copyOf(expired);
        rulesRun = List.copyOf(rulesRun);
    }

    /** A finding that a suppression matched, with where the suppression is written and why. */
    public record Suppressed(Finding finding, String reason, String origin) {}

    public long count(Severity s) {
        return findings.stream().filter(f -> f.severity() == s).count();
    }

    public boolean anyAtLeast(Severity s) {
        return findings.stream().anyMatch(f -> f.severity().atLeast(s));
    }

    /**
     * Every target of this run (from the coverage, where each target read has entries, and the
     * findings), in {@link Target#ORDER}; empty when the run read no live target.
     */
    public List<Target> targets() {
        TreeSet<Target> ts = new TreeSet<>(coverage.targets());
        findings.forEach(
                f -> {
                    if (f.target() != null) {
                        ts.add(f.target());
                    }
                });
        return List.copyOf(ts);
    }

    /** Findings of one target (null: of the files) at this severity. */
    public long count(Target t, Severity s) {
        return findings.stream()
                .filter(f -> f.severity() == s && Objects.equals(f.target(), t))
                .count();
    }

    public ScanResult withFindings(List<Finding> fs) {
        return new ScanResult(fs, suppressed, expired, rulesRun, coverage, durationMillis);
    }
}
