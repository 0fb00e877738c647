package dev.deja.prove;

import java.util.List;
import java.util.Locale;

/**
 * The margin: the lowest client rate seen degrading legitimate traffic before and after the fix
 * (null: not up to {@code ceiling}); {@code points} holds {phase (0 before, 1 after), rate,
 * degraded (0/1, or {@link Prover#HOST_LIMITED}), legitimate success %} per run.
 */
record FindLimit(Double before, Double after, double ceiling, List<double[]> points) {

    /** The highest rate seen holding in a phase below its failing rate (0: none). */
    double heldAt(int phase, Double failing) {
        double best = 0;
        for (double[] p : points) {
            if (p[0] == phase && p[2] == 0 && (failing == null || p[1] < failing)) {
                best = Math.max(best, p[1]);
            }
        }
        return best;
    }

    /** The rate at which the host could not drive the load after the fix (0: none). */
    double hostLimitedAt() {
        for (double[] p : points) {
            if (p[0] == 1 && p[2] == Prover.HOST_LIMITED) {
                return p[1];
            }
        }
        return 0;
    }

    String describe() {
        StringBuilder b = new StringBuilder("before the fix, legitimate traffic ");
        if (before == null) {
            b.append("held up to ")
                    .append(Prover.fmt(ceiling))
                    .append(" req/s of one client (the search's ceiling)");
        } else {
            b.append("fails from about ")
                    .append(Prover.fmt(before))
                    .append(" req/s of one client (")
                    .append(String.format(Locale.ROOT, "%.1fx", before / Prover.INCIDENT_RPS))
                    .append(" the incident's ")
                    .append(Prover.fmt(Prover.INCIDENT_RPS))
                    .append(")");
            double held = heldAt(0, before);
            if (held > 0) {
                b.append(" and held at ").append(Prover.fmt(held)).append(" req/s");
            }
        }
        b.append("; after it, ");
        if (after == null) {
            double held = heldAt(1, null);
            b.append("it held up to ").append(Prover.fmt(Math.max(held, 0))).append(" req/s");
            double host = hostLimitedAt();
            if (host > 0) {
                b.append(" (at ")
                        .append(Prover.fmt(host))
                        .append(
                                " req/s this host could not drive the load: its legitimate requests"
                                        + " failed without HAProxy's slots full, or it sent under 90% of the"
                                        + " rate; no limit of the fix)");
            } else if (held < ceiling) {
                b.append(" (not tried higher)");
            }
        } else {
            b.append("it fails from about ").append(Prover.fmt(after)).append(" req/s");
        }
        return b.append(" (").append(points.size()).append(" runs)").toString();
    }
}
