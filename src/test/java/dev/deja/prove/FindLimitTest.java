package dev.deja.prove;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The margin search's judgement of a run after the fix: a run the host could not drive (the load
 * generator behind its rate, or legitimate requests failing while HAProxy's slots were never full)
 * is no limit of the fix.
 */
class FindLimitTest {
    /** A 4 s run at {@code rps} whose generator started {@code sent} abusive requests. */
    private static RunResult run(
            double rps, int sent, int legitOk, int legitTimedOut, boolean full) {
        LoadGenerator.Outcome abuser = new LoadGenerator.Outcome("abuser");
        abuser.sent = sent;
        abuser.limited = sent;
        LoadGenerator.Outcome legit = new LoadGenerator.Outcome("legit");
        legit.ok = legitOk;
        legit.timedOut = legitTimedOut;
        List<StatsSampler.Sample> samples = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            samples.add(new StatsSampler.Sample(i * 100L, full && i > 20 ? 200 : 12, 200, 12, 0));
        }
        return new RunResult(
                "after", "cfg", rps, 4000, legit, abuser, samples, 200, 1000, null, null);
    }

    @Test
    void aGeneratorBehindItsRateOrSlotsNeverFullIsTheHostsLimit() {
        // asked 5,000 req/s for 4 s: 20,000 requests; it started 12,000 (60%)
        RunResult behind = run(5000, 12_000, 70, 30, true);
        assertTrue(behind.degraded());
        assertTrue(Prover.hostLimited(behind, 5000, 200));
        // the rate was sent, but the slots were never full while legitimate requests timed out
        RunResult notFull = run(5000, 19_900, 70, 30, false);
        assertTrue(Prover.hostLimited(notFull, 5000, 200));
        // the rate was sent and the slots were full: that is the config breaking
        RunResult broke = run(5000, 19_900, 70, 30, true);
        assertFalse(Prover.hostLimited(broke, 5000, 200));
    }

    @Test
    void theSummarySaysTheHostCouldNotDriveTheLoadAndClaimsNoLimitOfTheFix() {
        List<double[]> points = new ArrayList<>();
        points.add(new double[] {0, 300, 1, 79.4});
        points.add(new double[] {0, 188, 0, 100});
        points.add(new double[] {0, 244, 1, 90});
        points.add(new double[] {1, 300, 0, 100});
        points.add(new double[] {1, 5000, Prover.HOST_LIMITED, 78.6});
        FindLimit fl = new FindLimit(244.0, null, 5000, points);
        assertEquals(5000, fl.hostLimitedAt());
        String s = fl.describe();
        assertTrue(
                s.contains(
                        "after it, it held up to 300 req/s (at 5000 req/s this host could not drive"
                                + " the load"),
                s);
        assertTrue(s.contains("no limit of the fix"), s);
        assertFalse(s.contains("fails from about 5000"), s);
        // without such a run: as before
        points.remove(4);
        assertTrue(
                new FindLimit(244.0, null, 5000, points).describe().contains("(not tried higher)"));
    }
}
