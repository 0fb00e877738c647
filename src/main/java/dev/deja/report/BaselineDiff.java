package dev.deja.report;

import dev.deja.engine.Finding;
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
 */
public record BaselineDiff(
        String source,
        boolean found,
        int baselineTotal,
        List<Finding> newFindings,
        int unchanged,
        int fixed) {

    public BaselineDiff {
        newFindings = List.copyOf(newFindings);
    }

    @SuppressWarnings("ReferenceEquality") // identity on purpose (why below)
    public boolean isNew(Finding f) {
        // identity: two equal findings can be one old, one new (the baseline had one of them)
        for (Finding n : newFindings) {
            if (n == f) {
                return true;
            }
        }
        return false;
    }
}
