package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.kube.model.Container;
import dev.deja.kube.model.KubeInventory;
import dev.deja.kube.model.Probe;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * IL-0495: a load balancer whose liveness probe checks the same endpoint as its readiness probe. A
 * stalled config reload then restarts every pod instead of only taking it out of rotation.
 */
public final class LbLivenessSameAsReadiness extends KubeRule {
    @Override
    public String id() {
        return "k8s-lb-liveness-same-as-readiness";
    }

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (LoadBalancers.Lb lb : loadBalancers(snapshot)) {
            for (Container c : lb.proxies()) {
                Probe r = c.readiness();
                Probe l = c.liveness();
                if (r == null || l == null || r.handler() == null || !same(c, r, l)) {
                    continue;
                }
                String msg =
                        lb.workload().meta().display()
                                + " container "
                                + c.name()
                                + ": livenessProbe checks the same endpoint as readinessProbe ("
                                + l.endpoint()
                                + "). When a"
                                + " configuration reload stalls that endpoint, readiness takes the pod out of rotation and"
                                + " liveness then restarts it after "
                                + l.failures()
                                + " x "
                                + l.period()
                                + "s = "
                                + l.failures() * l.period()
                                + "s; "
                                + replicasDoTogether(lb.workload().effectiveReplicas(), "restart")
                                + " instead of waiting out the stall "
                                + lb.because();
                out.add(
                        ctx.finding(lb.workload().meta().at(l.line()), msg)
                                .key("container " + c.name())
                                .build());
            }
        }
        return out;
    }

    static boolean same(Container c, Probe a, Probe b) {
        if (!Objects.equals(a.handler(), b.handler())) {
            return false;
        }
        if ("exec".equals(a.handler())) {
            return a.command().equals(b.command());
        }
        Integer pa = c.resolvePort(a.port());
        Integer pb = c.resolvePort(b.port());
        boolean portSame =
                pa != null && pb != null ? pa.equals(pb) : Objects.equals(a.port(), b.port());
        return portSame && Objects.equals(normPath(a.path()), normPath(b.path()));
    }

    private static String normPath(String p) {
        return p == null || p.isEmpty() ? "/" : p;
    }
}
