package dev.deja.prove;

import java.util.List;

/**
 * The breaking point found by --find-limit: the lowest client rate seen degrading legitimate
 * traffic before and after the fix (null: not up to {@code ceiling}); {@code points} holds {phase
 * (0 before, 1 after), rate, degraded (0/1), legitimate success %} per run.
 */
record FindLimit(Double before, Double after, double ceiling, List<double[]> points) {
    String describe() {
        String b =
                before == null
                        ? "not up to " + Prover.fmt(ceiling) + " req/s, the search's ceiling"
                        : "at about " + Prover.fmt(before) + " req/s";
        String a =
                after == null
                        ? "not up to " + Prover.fmt(ceiling) + " req/s, the search's ceiling"
                        : "at about " + Prover.fmt(after) + " req/s";
        return "legitimate traffic breaks "
                + b
                + "; after the fix, "
                + a
                + " ("
                + points.size()
                + " runs)";
    }
}
