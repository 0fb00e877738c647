package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.kube.model.Container;
import dev.deja.kube.model.KubeInventory;
import dev.deja.kube.model.Probe;
import java.util.ArrayList;
import java.util.List;

/**
 * IL-0495: a readiness or liveness probe of a load-balancer pod that gives up quickly: {@code timeoutSeconds} <= 1
 * (the default) or {@code periodSeconds x failureThreshold} under 30 s. A stall during a configuration update fails
 * the probe on every replica at once.
 */
public final class LbProbeFailsFast extends KubeRule {
    static final int MIN_WINDOW_SECONDS = 30;

    @Override
    public String id() {
        return "k8s-lb-probe-fails-fast";
    }

    @Override
    List<Finding> check(KubeInventory inv, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (LoadBalancers.Lb lb : LoadBalancers.of(inv)) {
            for (Container c : lb.workload().containers()) {
                check(lb, c, c.readiness(), "readinessProbe", "marked unready", ctx, out);
                check(lb, c, c.liveness(), "livenessProbe", "restarted", ctx, out);
            }
        }
        return out;
    }

    private static void check(LoadBalancers.Lb lb, Container c, Probe p, String key, String effect, RuleContext ctx,
                              List<Finding> out) {
        if (p == null || p.handler() == null) {
            return;
        }
        int window = p.period() * p.failures();
        boolean tightTimeout = p.timeout() <= 1;
        boolean shortWindow = window < MIN_WINDOW_SECONDS;
        if (!tightTimeout && !shortWindow) {
            return;
        }
        List<String> why = new ArrayList<>();
        if (tightTimeout) {
            why.add("a " + p.timeout() + "s timeout" + (p.timeoutSeconds() == null ? " (the Kubernetes default)" : "")
                    + " fails a check on any stall longer than that");
        }
        if (shortWindow) {
            why.add(window + "s in all is under " + MIN_WINDOW_SECONDS + "s");
        }
        String msg = lb.workload().meta().display() + " container " + c.name() + ": " + key + " (" + p.endpoint()
                + ") is " + effect + " after " + p.failures() + " failures x " + p.period() + "s with a " + p.timeout()
                + "s timeout (" + window + "s); " + String.join("; ", why) + ". Every replica shares it: "
                + replicasDo(lb.workload().effectiveReplicas(), "fail") + " together, as HubSpot's load balancers did "
                + lb.because();
        out.add(ctx.finding(lb.workload().meta().at(p.line()), msg).build());
    }
}
