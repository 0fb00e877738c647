package dev.deja.prove;

import java.util.List;
import java.util.Locale;

/**
 * One bounded run of haproxy under a workload: legitimate requests (ok / timed out / refused /
 * other answers, latency), the abuser's outcome (or the slow clients'), the stats samples and how
 * long the slots were full. {@code error} is set when the run could not happen.
 */
record RunResult(
        String label,
        String config,
        double clientRps,
        long durationMs,
        LoadGenerator.Outcome legit,
        LoadGenerator.Outcome abuser,
        List<StatsSampler.Sample> samples,
        long slots,
        long baselineP50Micros,
        String error,
        LoadGenerator.Outcome calm) {

    static RunResult failed(String label, String why) {
        return new RunResult(label, null, 0, 0, null, null, List.of(), -1, -1, why, null);
    }

    /**
     * The same run judged against another calm baseline (the lower of a proof's runs: a cold JVM's
     * first is slower).
     */
    RunResult withBaseline(long p50Micros) {
        return new RunResult(
                label,
                config,
                clientRps,
                durationMs,
                legit,
                abuser,
                samples,
                slots,
                p50Micros,
                error,
                calm);
    }

    /**
     * Why the legitimate workload says nothing about this config, or null: its requests already
     * failed in the calm phase, before any attack (e.g. the frontend answers 503 or 404 to them).
     */
    String calmFailure() {
        if (calm == null) {
            return null;
        }
        int all = calm.ok + calm.limited + calm.otherStatus + calm.timedOut + calm.refused;
        if (all == 0 || calm.ok * 100.0 / all >= 95.0) {
            return null;
        }
        return "legitimate requests already failed before any attack ("
                + calm.ok
                + " of "
                + all
                + " ok in the calm"
                + " phase; "
                + calm.otherStatus
                + " answered with an error status, "
                + calm.timedOut
                + " timed out,"
                + " "
                + calm.refused
                + " refused): the frontend does not serve deja's GET requests, so the replay"
                + " proves nothing";
    }

    boolean ran() {
        return error == null;
    }

    /**
     * Legitimate requests that got an answer from the backend (2xx/3xx), in percent of those sent.
     */
    double legitSuccessPct() {
        int done = legitTotal();
        return done == 0 ? 100.0 : 100.0 * legit.ok / done;
    }

    int legitTotal() {
        return legit.ok
                + legit.limited
                + legit.otherStatus
                + legit.timedOut
                + legit.refused
                + legit.notSent;
    }

    long p50Micros() {
        return legit.percentileMicros(50);
    }

    long p99Micros() {
        return legit.percentileMicros(99);
    }

    /**
     * Milliseconds during which the samples saw the slots full (each sample stands for its 100 ms).
     */
    long fullMillis() {
        return samples.stream().filter(StatsSampler.Sample::full).count()
                * StatsSampler.INTERVAL_MS;
    }

    long peakSessions() {
        return samples.stream().mapToLong(StatsSampler.Sample::scur).max().orElse(-1);
    }

    /**
     * The thresholds of the verdict: legitimate success below 95%, or a median latency over 10x the
     * calm baseline (the baseline taken as at least 10 ms, so that a busy machine's jitter on a 1
     * ms loopback answer is no outage).
     */
    boolean degraded() {
        if (legitSuccessPct() < 95.0) {
            return true;
        }
        long p50 = p50Micros();
        long base = Math.max(baselineP50Micros, 10_000);
        return p50 > 10 * base;
    }

    String degradedWhy() {
        if (legitSuccessPct() < 95.0) {
            return String.format(
                    Locale.ROOT, "legitimate success %.0f%% (< 95%%)", legitSuccessPct());
        }
        return "legitimate median "
                + ms(p50Micros())
                + " > 10x the calm baseline "
                + ms(Math.max(baselineP50Micros, 10_000));
    }

    static String ms(long micros) {
        if (micros < 0) {
            return "-";
        }
        if (micros < 10_000) {
            return String.format(Locale.ROOT, "%.1f ms", micros / 1000.0);
        }
        return micros / 1000 + " ms";
    }
}
