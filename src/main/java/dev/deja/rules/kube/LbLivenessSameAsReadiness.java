package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.Container;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.LoadBalancers;
import dev.deja.model.kube.Probe;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * IL-0495: a load balancer whose liveness probe checks the same endpoint as its readiness probe
 * with a window that restarts the pod within a stall readiness alone would have waited out. The
 * window is judged, not the endpoint: Kubernetes' own advice ("Configure Liveness, Readiness and
 * Startup Probes") is the same low-cost endpoint for both with a higher failureThreshold for
 * liveness, so the pod is seen not-ready for a while before it is killed. The rule fires when the
 * liveness window (as the kubelet runs the probe, {@link LbProbeFailsFast#window(Probe)}) is no
 * longer than the readiness window, or shorter than the {@code stallSeconds} parameter.
 */
public final class LbLivenessSameAsReadiness extends KubeRule {
    /** The stall a liveness probe on the readiness endpoint must outlast: parameter {@value}. */
    static final String STALL_SECONDS = "stallSeconds";

    @Override
    public String id() {
        return "k8s-lb-liveness-same-as-readiness";
    }

    @Override
    public Set<String> kubeKinds() {
        return DETECTOR_AND_HPA_KINDS;
    }

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        int stall = ctx.intParameter(STALL_SECONDS);
        for (LoadBalancers.Lb lb : loadBalancers(snapshot)) {
            for (Container c : lb.proxies()) {
                Probe r = c.readiness();
                Probe l = c.liveness();
                if (r == null || l == null || r.handler() == null || !same(c, r, l)) {
                    continue;
                }
                int lw = LbProbeFailsFast.window(l);
                int rw = LbProbeFailsFast.window(r);
                boolean withinReadiness = lw <= rw;
                boolean underStall = lw < stall;
                if (!withinReadiness && !underStall) {
                    continue;
                }
                String msg = message(inv, lb, c, r, l, stall);
                int need = Math.max(rw + 1, stall);
                int n =
                        Math.max(
                                l.failures(),
                                LbProbeFailsFast.failuresFor(need, l.period(), l.timeout()));
                out.add(
                        ctx.finding(lb.workload().meta().at(l.line()), msg)
                                .key("container " + c.name())
                                .remediation(remediation(l, rw, stall, n))
                                .fix("container", c.name())
                                .fix("failureThreshold", (long) n)
                                .build());
            }
        }
        return out;
    }

    /**
     * Why liveness {@code l} restarts container {@code c} within a stall readiness {@code r} alone
     * would have waited out (its window no longer than readiness's, or under {@code stall}).
     */
    private static String message(
            KubeInventory inv, LoadBalancers.Lb lb, Container c, Probe r, Probe l, int stall) {
        int lw = LbProbeFailsFast.window(l);
        int rw = LbProbeFailsFast.window(r);
        String live = lw + "s (" + LbProbeFailsFast.arithmetic(l) + ")";
        String ready = rw + "s (" + LbProbeFailsFast.arithmetic(r) + ")";
        String why =
                lw <= rw
                        ? "no longer than the readiness window of "
                                + ready
                                + ": a stall that takes the pod out of rotation restarts it too"
                        : "longer than the readiness window of "
                                + ready
                                + " but under "
                                + stall
                                + "s: a stall of "
                                + stall
                                + "s that readiness alone would wait out restarts the pod";
        String mechanism =
                "tcpSocket".equals(l.handler())
                        ? " A TCP probe fails when the connection is not accepted in time"
                                + " (the listen backlog full: accept saturation, or the"
                                + " process gone); the kernel completes the handshake on"
                                + " the listening socket by itself, so a stalled reload"
                                + " alone does not fail it."
                        : " When a configuration reload stalls that endpoint, readiness"
                                + " takes the pod out of rotation and liveness restarts it.";
        return lb.workload().meta().display()
                + " container "
                + c.name()
                + ": livenessProbe checks the same endpoint as readinessProbe ("
                + l.endpoint()
                + ") and restarts the container after a stall of "
                + live
                + ", "
                + why
                + "."
                + mechanism
                + " "
                + capitalized(replicasDoTogether(pods(inv, lb.workload()), "restart"))
                + " instead of waiting out the stall "
                + lb.because();
    }

    /**
     * The advice: {@code failureThreshold: n} on liveness {@code l}, for a window longer than
     * readiness's {@code rw} seconds and at least {@code stall}.
     */
    private static String remediation(Probe l, int rw, int stall, int n) {
        return "Give the livenessProbe a longer window than the readinessProbe's "
                + rw
                + "s and at least "
                + stall
                + "s, as Kubernetes advises for liveness on the readiness endpoint"
                + " (a higher failureThreshold): `failureThreshold: "
                + n
                + "` ("
                + LbProbeFailsFast.arithmetic(n, l.period(), l.timeout())
                + " = "
                + LbProbeFailsFast.window(n, l.period(), l.timeout())
                + "s); or point it at a check that only fails when the process is"
                + " truly stuck (or drop it).";
    }

    private static String capitalized(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
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
