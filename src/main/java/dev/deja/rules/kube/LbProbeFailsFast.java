package dev.deja.rules.kube;

import dev.deja.engine.Figure;
import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.Container;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.LoadBalancers;
import dev.deja.model.kube.Probe;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * IL-0495: a readiness or liveness probe of a load-balancer proxy that gives up after a short
 * stall. What a stall has to outlast is the failure window: {@code failureThreshold x
 * periodSeconds}, plus the last check's {@code timeoutSeconds}. Severity follows that window: under
 * {@code minWindowSeconds} (30s) the rule's own (high), since a stall during a configuration update
 * then fails the probe on every replica at once; with a longer window, a {@code timeoutSeconds} of
 * 1 (the default) is only a lesser note (low): one slow answer fails one check, not the probe. The
 * remediation names values that clear the finding.
 */
public final class LbProbeFailsFast extends KubeRule {
    /**
     * A probe must tolerate a stall at least this long (failureThreshold x periodSeconds +
     * timeoutSeconds): parameter {@value}, default 30 in the rule's YAML.
     */
    static final String MIN_WINDOW_SECONDS = "minWindowSeconds";

    /** A timeout at or under this is tight (1 s is the Kubernetes default). */
    static final int TIGHT_TIMEOUT_SECONDS = 1;

    /** The timeout the remediation suggests. */
    static final int SUGGESTED_TIMEOUT_SECONDS = 5;

    @Override
    public String id() {
        return "k8s-lb-probe-fails-fast";
    }

    @Override
    public Set<String> kubeKinds() {
        return DETECTOR_AND_HPA_KINDS;
    }

    /** A probe whose window is long enough but whose timeout is tight: folded into one note. */
    private record Tight(Container container, String key, Probe probe) {}

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (LoadBalancers.Lb lb : loadBalancers(snapshot)) {
            Integer pods = pods(inv, lb.workload());
            List<Tight> tight = new ArrayList<>();
            for (Container c : lb.proxies()) {
                check(
                        lb,
                        pods,
                        c,
                        c.readiness(),
                        "readinessProbe",
                        "marked unready",
                        ctx,
                        out,
                        tight);
                check(lb, pods, c, c.liveness(), "livenessProbe", "restarted", ctx, out, tight);
            }
            if (!tight.isEmpty()) {
                out.add(tightNote(lb, tight, ctx));
            }
        }
        return out;
    }

    /**
     * The longest stall a probe is sure to fail on, as the kubelet runs it
     * (pkg/kubelet/prober/worker.go): one probe at a time per container, started by a ticker of
     * periodSeconds that drops the ticks it misses, each probe waiting up to timeoutSeconds. A
     * stall that begins just after a probe succeeded meets the next probe up to periodSeconds
     * later; failed probes then follow one another every max(periodSeconds, timeoutSeconds), and
     * the last one fails when its timeout ends: periodSeconds + (failureThreshold - 1) x
     * max(periodSeconds, timeoutSeconds) + timeoutSeconds. With timeoutSeconds &lt;= periodSeconds
     * that is failureThreshold x periodSeconds + timeoutSeconds; with a longer timeout,
     * periodSeconds + failureThreshold x timeoutSeconds (3 x 1 s with a 5 s timeout: 1 s + 3 x 5 s
     * = 16 s, not 3 x 1 s + 5 s = 8 s).
     */
    static int window(Probe p) {
        return window(p.failures(), p.period(), p.timeout());
    }

    static int window(int failures, int period, int timeout) {
        return timeout <= period ? failures * period + timeout : period + failures * timeout;
    }

    /** "3 x 10s + 1s", or "1s + 3 x 5s" when the timeout is longer than the period. */
    static String arithmetic(int failures, int period, int timeout) {
        return timeout <= period
                ? failures + " x " + period + "s + " + timeout + "s"
                : period + "s + " + failures + " x " + timeout + "s";
    }

    static String arithmetic(Probe p) {
        return arithmetic(p.failures(), p.period(), p.timeout());
    }

    /** The fewest failures that make the window at least {@code min} seconds (at least 1). */
    static int failuresFor(int min, int period, int timeout) {
        int n = 1;
        while (window(n, period, timeout) < min) {
            n++;
        }
        return n;
    }

    /**
     * Why failed probes follow one another every timeoutSeconds when it is longer than
     * periodSeconds (null otherwise).
     */
    static String serialNote(Probe p) {
        if (p.timeout() <= p.period()) {
            return null;
        }
        return "timeoutSeconds "
                + p.timeout()
                + " is longer than periodSeconds "
                + p.period()
                + ": the kubelet runs one probe at a time per container and skips the ticks it"
                + " misses (pkg/kubelet/prober/worker.go), so each failed probe takes its whole "
                + p.timeout()
                + "s and "
                + p.failures()
                + (p.failures() == 1 ? " failure takes " : " failures take ")
                + p.failures()
                + " x "
                + p.timeout()
                + "s, after up to "
                + p.period()
                + "s until the first probe of the stall";
    }

    private static String timeoutText(Probe p) {
        return p.timeout()
                + "s timeout"
                + (p.timeoutSeconds() == null ? " (the Kubernetes default)" : "");
    }

    private static void check(
            LoadBalancers.Lb lb,
            Integer pods,
            Container c,
            Probe p,
            String key,
            String effect,
            RuleContext ctx,
            List<Finding> out,
            List<Tight> tight) {
        if (p == null || p.handler() == null) {
            return;
        }
        int window = window(p);
        int minWindow = ctx.intParameter(MIN_WINDOW_SECONDS);
        boolean tightTimeout = p.timeout() <= TIGHT_TIMEOUT_SECONDS;
        boolean shortWindow = window < minWindow;
        if (!shortWindow) {
            if (tightTimeout) {
                tight.add(new Tight(c, key, p));
            }
            return;
        }
        String head = head(lb, c, p, key, effect);
        int newTimeout = tightTimeout ? SUGGESTED_TIMEOUT_SECONDS : p.timeout();
        int newFailures = Math.max(p.failures(), failuresFor(minWindow, p.period(), newTimeout));
        String remediation = remediation(p, key, tightTimeout, newTimeout, newFailures, minWindow);
        String msg =
                head
                        + ", under "
                        + minWindow
                        + "s. "
                        + shared(pods)
                        + " after a short stall, as"
                        + " HubSpot's load balancers did "
                        + lb.because();
        var f =
                ctx.finding(lb.workload().meta().at(p.line()), msg)
                        .key("container " + c.name() + " " + key)
                        .remediation(remediation)
                        .fix("probes", List.of(inputs("container", c.name(), "probe", key)))
                        .fix("timeoutSeconds", tightTimeout ? (long) newTimeout : null)
                        .fix(
                                "failureThreshold",
                                newFailures != p.failures() ? (long) newFailures : null)
                        .figure(
                                new Figure.ProbeWindows(
                                        lb.workload().meta().display() + " container " + c.name(),
                                        minWindow,
                                        pods,
                                        windows(c)));
        String serial = serialNote(p);
        if (serial != null) {
            f.note(serial);
        }
        out.add(f.build());
    }

    /**
     * "... container proxy: readinessProbe (...) is marked unready after 3 failures x 1s with a 1s
     * timeout: a stall longer than 4s (3 x 1s + 1s) fails it".
     */
    private static String head(
            LoadBalancers.Lb lb, Container c, Probe p, String key, String effect) {
        return lb.workload().meta().display()
                + " container "
                + c.name()
                + ": "
                + key
                + " ("
                + p.endpoint()
                + ") is "
                + effect
                + " after "
                + p.failures()
                + (p.failures() == 1 ? " failure x " : " failures x ")
                + p.period()
                + "s with a "
                + timeoutText(p)
                + ": a stall longer than "
                + window(p)
                + "s ("
                + arithmetic(p)
                + ") fails it";
    }

    /**
     * The advice for a probe whose window is short: the timeout and failure threshold that give it
     * a window of at least {@code minWindow} seconds.
     */
    private static String remediation(
            Probe p,
            String key,
            boolean tightTimeout,
            int newTimeout,
            int newFailures,
            int minWindow) {
        List<String> fix = new ArrayList<>();
        if (tightTimeout) {
            fix.add("`timeoutSeconds: " + newTimeout + "`");
        }
        if (newFailures != p.failures()) {
            fix.add("`failureThreshold: " + newFailures + "`");
        }
        return "Set "
                + String.join(" and ", fix)
                + " on the "
                + key
                + " (a window of "
                + arithmetic(newFailures, p.period(), newTimeout)
                + " = "
                + window(newFailures, p.period(), newTimeout)
                + "s, at least "
                + minWindow
                + "s), and serve health checks from a path that configuration"
                + " updates do not block.";
    }

    /**
     * Both probes of the container on one axis, against the stall the rule asks them to outlast.
     */
    private static List<Figure.Window> windows(Container c) {
        List<Figure.Window> windows = new ArrayList<>();
        if (c.readiness() != null && c.readiness().handler() != null) {
            windows.add(
                    new Figure.Window("readinessProbe", window(c.readiness()), "marked unready"));
        }
        if (c.liveness() != null && c.liveness().handler() != null) {
            windows.add(new Figure.Window("livenessProbe", window(c.liveness()), "restarted"));
        }
        return windows;
    }

    /**
     * One low note per workload for the probes whose window is long enough but whose timeout is 1s:
     * "container controller: readinessProbe (...) with a 1s timeout ... and livenessProbe (...)".
     */
    private static Finding tightNote(LoadBalancers.Lb lb, List<Tight> tight, RuleContext ctx) {
        List<String> probes = new ArrayList<>();
        List<String> fixes = new ArrayList<>();
        List<Map<String, Object>> named = new ArrayList<>();
        Container last = null;
        for (Tight t : tight) {
            String where =
                    last != null && Objects.equals(t.container().name(), last.name())
                            ? ""
                            : "container " + t.container().name() + ": ";
            last = t.container();
            probes.add(
                    where
                            + t.key()
                            + " ("
                            + t.probe().endpoint()
                            + ") with a "
                            + timeoutText(t.probe())
                            + " and a window of "
                            + arithmetic(t.probe())
                            + " = "
                            + window(t.probe())
                            + "s");
            fixes.add("the " + t.key() + " of container " + t.container().name());
            named.add(inputs("container", t.container().name(), "probe", t.key()));
        }
        Tight first = tight.get(0);
        for (Tight t : tight) { // the note stands on the first probe of the manifest
            if (t.probe().line() != null
                    && (first.probe().line() == null || t.probe().line() < first.probe().line())) {
                first = t;
            }
        }
        String msg =
                lb.workload().meta().display()
                        + " "
                        + String.join(" and ", probes)
                        + ": the window"
                        + (tight.size() > 1 ? "s are" : " is")
                        + " long enough for a short stall, but with a "
                        + TIGHT_TIMEOUT_SECONDS
                        + "s timeout a single slow answer already counts as a failure; a lesser risk"
                        + " than a short window "
                        + lb.because();
        return ctx.finding(lb.workload().meta().at(first.probe().line()), msg)
                .key("probe timeouts")
                .severity(Severity.LOW)
                .remediation(
                        "Set `timeoutSeconds: "
                                + SUGGESTED_TIMEOUT_SECONDS
                                + "` on "
                                + String.join(" and ", fixes)
                                + " (the failure windows stay long enough), and serve health checks"
                                + " from a path that configuration updates do not block.")
                .fix("probes", named)
                .fix("timeoutSeconds", (long) SUGGESTED_TIMEOUT_SECONDS)
                .build();
    }

    /**
     * "Every replica shares it: all 3 replicas fail together", but "Its single replica fails" (one
     * pod shares nothing).
     */
    private static String shared(Integer replicas) {
        String fail = replicasDoTogether(replicas, "fail");
        return replicas != null && replicas == 1
                ? Character.toUpperCase(fail.charAt(0)) + fail.substring(1)
                : "Every replica shares it: " + fail;
    }
}
