package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.kube.model.Container;
import dev.deja.kube.model.KubeInventory;
import dev.deja.kube.model.Probe;
import java.util.ArrayList;
import java.util.List;

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
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (LoadBalancers.Lb lb : loadBalancers(snapshot)) {
            for (Container c : lb.proxies()) {
                check(lb, c, c.readiness(), "readinessProbe", "marked unready", ctx, out);
                check(lb, c, c.liveness(), "livenessProbe", "restarted", ctx, out);
            }
        }
        return out;
    }

    /**
     * The stall a probe tolerates before it fails: failureThreshold x periodSeconds +
     * timeoutSeconds.
     */
    static int window(Probe p) {
        return p.failures() * p.period() + p.timeout();
    }

    private static void check(
            LoadBalancers.Lb lb,
            Container c,
            Probe p,
            String key,
            String effect,
            RuleContext ctx,
            List<Finding> out) {
        if (p == null || p.handler() == null) {
            return;
        }
        int window = window(p);
        int minWindow = ctx.intParameter(MIN_WINDOW_SECONDS);
        boolean tightTimeout = p.timeout() <= TIGHT_TIMEOUT_SECONDS;
        boolean shortWindow = window < minWindow;
        if (!tightTimeout && !shortWindow) {
            return;
        }
        String timeout =
                p.timeout()
                        + "s timeout"
                        + (p.timeoutSeconds() == null ? " (the Kubernetes default)" : "");
        String head =
                lb.workload().meta().display()
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
                        + " failures x "
                        + p.period()
                        + "s with a "
                        + timeout
                        + ": a stall longer than "
                        + window
                        + "s ("
                        + p.failures()
                        + " x "
                        + p.period()
                        + "s + "
                        + p.timeout()
                        + "s) fails it";
        int newTimeout = tightTimeout ? SUGGESTED_TIMEOUT_SECONDS : p.timeout();
        int newFailures =
                Math.max(p.failures(), (minWindow - newTimeout + p.period() - 1) / p.period());
        List<String> fix = new ArrayList<>();
        if (tightTimeout) {
            fix.add("`timeoutSeconds: " + newTimeout + "`");
        }
        if (newFailures != p.failures()) {
            fix.add("`failureThreshold: " + newFailures + "`");
        }
        String remediation =
                "Set "
                        + String.join(" and ", fix)
                        + " on the "
                        + key
                        + " (a window of "
                        + newFailures
                        + " x "
                        + p.period()
                        + "s + "
                        + newTimeout
                        + "s = "
                        + (newFailures * p.period() + newTimeout)
                        + "s, at least "
                        + minWindow
                        + "s), and serve health checks from a path that configuration"
                        + " updates do not block.";
        String msg;
        Severity severity;
        if (shortWindow) {
            msg =
                    head
                            + ", under "
                            + minWindow
                            + "s. "
                            + shared(lb.workload().effectiveReplicas())
                            + " after a short stall, as"
                            + " HubSpot's load balancers did "
                            + lb.because();
            severity = null;
        } else {
            msg =
                    head
                            + ". The window is long enough for a short stall, but with a "
                            + p.timeout()
                            + "s timeout a single"
                            + " slow answer already counts as a failure; a lesser risk than a short window "
                            + lb.because();
            severity = Severity.LOW;
        }
        var f =
                ctx.finding(lb.workload().meta().at(p.line()), msg)
                        .key("container " + c.name() + " " + key)
                        .remediation(remediation);
        if (severity != null) {
            f.severity(severity);
        }
        out.add(f.build());
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
