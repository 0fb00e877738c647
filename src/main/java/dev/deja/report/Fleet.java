package dev.deja.report;

import dev.deja.engine.Finding;
import dev.deja.engine.Severity;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What {@code deja report merge} adds to a report: the status of each target (its latest report,
 * when it was written, its findings by severity, whether its scan was complete, whether it is
 * stale), and which targets each finding was found on (by fingerprint). The findings themselves are
 * the report's, one per fingerprint.
 *
 * @param asOf the time the merge judged staleness against
 * @param stale a target whose latest report is older than this is stale
 * @param targets by name
 * @param findingTargets each finding of the report (by identity) -> the names of the targets it was
 *     found on, in target order
 * @param reportsRead reports read (all targets), of which {@code superseded} were older reports of
 *     a target
 * @param unreadable "origin: why" of each input that is not a deja JSON report
 */
public record Fleet(
        Instant asOf,
        Duration stale,
        List<TargetStatus> targets,
        Map<Finding, List<String>> findingTargets,
        int reportsRead,
        int superseded,
        List<String> unreadable) {

    public Fleet {
        targets = List.copyOf(targets);
        unreadable = List.copyOf(unreadable);
    }

    /**
     * One target's latest report.
     *
     * @param name the target's name: its cluster and/or account from the report, else from where
     *     the report was found (the folder under the merged prefix, or the file's name)
     * @param cluster the cluster the report names, or null
     * @param account the AWS account the report names, or null
     * @param origin the file or s3:// object of the latest report
     * @param lastScan when it was written (the object's last-modified time)
     * @param bySeverity findings of this target, by severity (after de-duplication within the
     *     report)
     * @param complete the scan read everything it was asked to
     * @param gaps the scan's coverage entries that were not read ("kubernetes: Secret in all
     *     namespaces: denied")
     */
    public record TargetStatus(
            String name,
            String cluster,
            String account,
            String origin,
            Instant lastScan,
            boolean isStale,
            Map<Severity, Integer> bySeverity,
            boolean complete,
            List<String> gaps) {
        public TargetStatus {
            gaps = List.copyOf(gaps);
            bySeverity = Map.copyOf(bySeverity);
        }

        public int total() {
            return bySeverity.values().stream().mapToInt(Integer::intValue).sum();
        }

        public Duration age(Instant now) {
            return Duration.between(lastScan, now);
        }
    }

    /**
     * The targets of one of the report's findings (the same object: findings are matched by
     * identity).
     */
    public List<String> targetsOf(Finding f) {
        return findingTargets.getOrDefault(f, List.of());
    }

    public long staleCount() {
        return targets.stream().filter(TargetStatus::isStale).count();
    }

    /**
     * "3d 4h", "5h 2m", "12m", "40s"; "in the future" for a negative age (a clock ahead of this
     * one).
     */
    public static String age(Duration d) {
        if (d.isNegative()) {
            return "in the future";
        }
        long s = d.toSeconds();
        if (s >= 86_400) {
            return s / 86_400 + "d " + (s % 86_400) / 3600 + "h";
        }
        if (s >= 3600) {
            return s / 3600 + "h " + (s % 3600) / 60 + "m";
        }
        if (s >= 60) {
            return s / 60 + "m";
        }
        return s + "s";
    }
}
