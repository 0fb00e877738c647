package dev.deja.prove;

import java.util.Locale;

/**
 * The evidence for one finding: before and after runs, the remediation applied, the verdict ({@code
 * reproduced}, {@code not-reproduced} or {@code could-not-run}) with its reason, and whether the
 * fix held.
 */
record Proof(
        String ruleId,
        String frontend,
        String verdict,
        String reason,
        RunResult before,
        RunResult after,
        Remedy remedy,
        Boolean fixWorks,
        String fixNote,
        FindLimit findLimit) {

    static final String REPRODUCED = "reproduced";
    static final String NOT_REPRODUCED = "not-reproduced";
    static final String COULD_NOT_RUN = "could-not-run";

    /** The run deja can make is too short to tell (the slots would fill after its cap). */
    static final String INCONCLUSIVE = "inconclusive";

    static Proof couldNotRun(String ruleId, String frontend, String why) {
        return new Proof(ruleId, frontend, COULD_NOT_RUN, why, null, null, null, null, null, null);
    }

    static Proof inconclusive(String ruleId, String frontend, String why) {
        return new Proof(ruleId, frontend, INCONCLUSIVE, why, null, null, null, null, null, null);
    }

    /**
     * The verdict line, in words that match the table under it: the rate it was judged at, and
     * whether the fix held only when the before run broke (a fix cannot be shown to work where
     * nothing broke); for slow clients, that the fix shows once its timeout has cut them.
     */
    String headline() {
        String v = verdict.toUpperCase(Locale.ROOT);
        if (before == null || !before.ran() || verdict.equals(COULD_NOT_RUN)) {
            return v;
        }
        boolean slow = ruleId.equals(Prover.TIMEOUT);
        String at =
                slow
                        ? " with " + before.abuser().sent + " slow clients"
                        : " at " + Prover.fmt(before.clientRps()) + " req/s of one client";
        String fix = "";
        if (verdict.equals(REPRODUCED) && fixWorks != null) {
            fix =
                    !fixWorks
                            ? "; the fix did not hold"
                            : slow
                                    ? "; the fix holds once its timeout has cut the slow connections"
                                    : "; the fix holds at that rate";
        }
        return v + at + fix;
    }

    /**
     * Flood proofs: reproduced when the before run degraded legitimate traffic; the fix works when
     * the after did not.
     */
    static Proof of(
            String ruleId, String frontend, RunResult before, RunResult after, Remedy remedy) {
        if (!before.ran() || before.calmFailure() != null) {
            return new Proof(
                    ruleId,
                    frontend,
                    COULD_NOT_RUN,
                    !before.ran() ? before.error() : before.calmFailure(),
                    before,
                    after,
                    remedy,
                    null,
                    null,
                    null);
        }
        if (after != null && after.ran() && after.baselineP50Micros() >= 0) {
            long base =
                    before.baselineP50Micros() < 0
                            ? after.baselineP50Micros()
                            : Math.min(before.baselineP50Micros(), after.baselineP50Micros());
            before = before.withBaseline(base);
            after = after.withBaseline(base);
        }
        Boolean works =
                after != null && after.ran() && before.degraded() ? !after.degraded() : null;
        String note =
                after == null
                        ? null
                        : !after.ran()
                                ? "the after run could not run: " + after.error()
                                : !before.degraded()
                                        ? String.format(
                                                Locale.ROOT,
                                                "nothing broke at this rate, so this run cannot show"
                                                        + " whether the fix works (after it: %.0f%% of"
                                                        + " legitimate requests succeeded, median %s)",
                                                after.legitSuccessPct(),
                                                RunResult.ms(after.p50Micros()))
                                        : works
                                                ? String.format(
                                                        Locale.ROOT,
                                                        "after the fix %.0f%% of legitimate requests succeeded,"
                                                                + " median %s",
                                                        after.legitSuccessPct(),
                                                        RunResult.ms(after.p50Micros()))
                                                : "the fix was not enough at this rate: "
                                                        + after.degradedWhy();
        if (before.degraded()) {
            return new Proof(
                    ruleId,
                    frontend,
                    REPRODUCED,
                    before.degradedWhy() + slotsNote(before),
                    before,
                    after,
                    remedy,
                    works,
                    note,
                    null);
        }
        return new Proof(
                ruleId,
                frontend,
                NOT_REPRODUCED,
                String.format(
                        Locale.ROOT,
                        "the headroom was enough at %s req/s: %.0f%% of legitimate requests succeeded, median %s (peak %d of %d"
                                + " slots)",
                        Prover.fmt(before.clientRps()),
                        before.legitSuccessPct(),
                        RunResult.ms(before.p50Micros()),
                        before.peakSessions(),
                        before.slots()),
                before,
                after,
                remedy,
                works,
                note,
                null);
    }

    /**
     * Slow-client proofs: reproduced like a flood; the fix is judged on the legitimate requests
     * sent after the timeout has had time to cut the slow connections (it cannot show in a run
     * shorter than the timeout + 1 s).
     */
    static Proof slow(
            String ruleId,
            String frontend,
            RunResult before,
            RunResult after,
            Remedy remedy,
            long durationMs,
            long timeoutMs) {
        Proof p = of(ruleId, frontend, before, after, remedy);
        if (after == null || !after.ran() || !p.verdict.equals(REPRODUCED)) {
            return p;
        }
        long from = timeoutMs + 1000;
        if (durationMs <= from) {
            return new Proof(
                    p.ruleId,
                    frontend,
                    p.verdict,
                    p.reason,
                    before,
                    after,
                    remedy,
                    null,
                    "the fix (timeout http-request "
                            + timeoutMs / 1000
                            + "s) cannot show in a "
                            + durationMs / 1000.0
                            + " s run: use --duration "
                            + (from / 1000 + 3)
                            + "s or more",
                    null);
        }
        int ok = 0;
        int all = 0;
        for (long[] e : after.legit().events) {
            if (e[0] >= from) {
                all++;
                ok += e[1] == LoadGenerator.EV_OK ? 1 : 0;
            }
        }
        boolean works = all > 0 && ok * 100.0 / all >= 95.0;
        int early = after.legitTotal() - all;
        int earlyOk = after.legit().ok - ok;
        String note =
                String.format(
                        Locale.ROOT,
                        "the fix cuts a slow connection after %d s: HAProxy closed %d of them; of the"
                                + " legitimate requests sent after %d s, %d of %d succeeded (before"
                                + " then, while the slow clients still held the slots, %d of %d); slow"
                                + " clients that reopen their connections would hold the slots again:"
                                + " limit connections per source too",
                        timeoutMs / 1000,
                        after.abuser().closedByServer,
                        from / 1000,
                        ok,
                        all,
                        Math.max(0, earlyOk),
                        Math.max(0, early));
        return new Proof(
                p.ruleId, frontend, p.verdict, p.reason, before, after, remedy, works, note, null);
    }

    Proof withFindLimit(FindLimit f) {
        return new Proof(
                ruleId, frontend, verdict, reason, before, after, remedy, fixWorks, fixNote, f);
    }

    private static String slotsNote(RunResult r) {
        long full = r.fullMillis();
        return full > 0 ? "; slots full for " + full / 1000.0 + " s (" + r.slots() + " slots)" : "";
    }
}
