package dev.deja.report;

import dev.deja.engine.Catalog;
import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.RuleMetadata;
import dev.deja.engine.Severity;
import dev.deja.engine.Target;
import java.util.List;

/**
 * A scan compared with a baseline: which findings are new, how many were already there, and how
 * many baseline findings are gone (fixed, or suppressed since).
 *
 * @param source where the baseline came from ("baseline.json", "configmap:ns/name")
 * @param found whether a baseline was there at all (a first scheduled run has none: everything is
 *     new)
 * @param baselineTotal findings in the baseline
 * @param newFindings findings of this scan not in the baseline, in report order
 * @param unchanged findings of this scan that the baseline has
 * @param fixed baseline findings this scan no longer has
 * @param updated the unchanged findings whose message differs from the baseline's beyond line
 *     numbers (the same problem on the same object, with other figures: SARIF's {@code updated})
 * @param gone the baseline findings counted in {@code fixed}, as the baseline has them (SARIF's
 *     {@code absent} results)
 * @param suppressedNew the suppressed findings of this scan that the baseline's findings do not
 *     have (for the {@code baselineState} of SARIF's suppressed results)
 */
public record BaselineDiff(
        String source,
        boolean found,
        int baselineTotal,
        List<Finding> newFindings,
        int unchanged,
        int fixed,
        List<Finding> updated,
        List<Gone> gone,
        List<Finding> suppressedNew) {

    /**
     * A baseline finding this scan no longer has: its rule, severity, object, message, key and
     * target as the baseline report gives them.
     */
    public record Gone(
            String ruleId,
            String severity,
            Location location,
            String message,
            String key,
            Target target) {

        /**
         * As a finding, for the formats that list it: the catalog's cases and remediation (the
         * baseline's severity, or the rule's when the baseline's is not one).
         */
        public Finding finding(Catalog catalog) {
            RuleMetadata m = catalog.rule(ruleId).orElse(null);
            Severity s;
            try {
                s = Severity.parse(severity);
            } catch (IllegalArgumentException e) {
                s = m == null ? Severity.INFO : m.severity();
            }
            return new Finding(
                    ruleId,
                    s,
                    m == null ? List.of() : m.caseIds(),
                    message,
                    m == null ? "" : m.remediation(),
                    location,
                    List.of(),
                    List.of(),
                    key,
                    target);
        }
    }

    public BaselineDiff {
        newFindings = List.copyOf(newFindings);
        updated = updated == null ? List.of() : List.copyOf(updated);
        gone = gone == null ? List.of() : List.copyOf(gone);
        suppressedNew = suppressedNew == null ? List.of() : List.copyOf(suppressedNew);
    }

    public BaselineDiff(
            String source,
            boolean found,
            int baselineTotal,
            List<Finding> newFindings,
            int unchanged,
            int fixed) {
        this(source, found, baselineTotal, newFindings, unchanged, fixed, null, null, null);
    }

    /**
     * SARIF 2.1.0 {@code baselineState} of a finding of this scan: {@code new}, {@code updated} or
     * {@code unchanged}; {@code absent} is the state of the {@link #gone} ones.
     */
    public String state(Finding f) {
        return isNew(f) ? "new" : contains(updated, f) ? "updated" : "unchanged";
    }

    public boolean isNew(Finding f) {
        return contains(newFindings, f);
    }

    /** The {@code baselineState} of a suppressed finding: {@code new} or {@code unchanged}. */
    public String suppressedState(Finding f) {
        return contains(suppressedNew, f) ? "new" : "unchanged";
    }

    @SuppressWarnings("ReferenceEquality") // identity on purpose (why below)
    private static boolean contains(List<Finding> list, Finding f) {
        // identity: two equal findings can be one old, one new (the baseline had one of them)
        for (Finding n : list) {
            if (n == f) {
                return true;
            }
        }
        return false;
    }
}
