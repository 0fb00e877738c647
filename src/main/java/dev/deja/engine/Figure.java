package dev.deja.engine;

import java.util.List;

/**
 * The numbers behind a finding, as data, for reports that draw them (the HTML report's figures):
 * the same numbers the message states, given by the rule that computed them, never read back from
 * the message's text. A finding without a picture has none ({@code null}).
 */
public sealed interface Figure
        permits Figure.Slots, Figure.ProbeWindows, Figure.ZoneTargets, Figure.Saturation {

    /**
     * Connection slots of a frontend (IL-0264): {@code slots} its maxconn, {@code held} what one
     * tarpitting client holds of them ({@code rps} requests a second, each held {@code
     * holdMillis}), {@code wanted} what it would hold without the limit (more than {@code slots}
     * when it fills them). {@code process}: the same slots counted against the process-wide global
     * maxconn that every frontend shares, or null when it is implicit or unreadable, or no other
     * frontend shares it.
     */
    record Slots(
            String frontend,
            long slots,
            long held,
            long wanted,
            long rps,
            long holdMillis,
            ProcessSlots process)
            implements Figure {}

    /**
     * The global maxconn ({@code maxconn}), which HAProxy counts over all frontends of the process:
     * while the tarpitting client holds {@code held} of them, {@code left} (maxconn - held) are all
     * the other frontends can accept together: {@code otherFrontends} of them, the first of which
     * are listed in {@code others} (at most {@link #LISTED}).
     */
    record ProcessSlots(
            long maxconn, long held, long left, int otherFrontends, List<Share> others) {
        /** The other frontends listed by name; the rest are counted. */
        public static final int LISTED = 8;

        public ProcessSlots {
            others = List.copyOf(others);
        }
    }

    /**
     * Another frontend of the process: its own effective {@code maxconn} (capped by the global; -1
     * when deja cannot read it) and the slots it can still get ({@code canGet}: its maxconn, at
     * most what the process has left).
     */
    record Share(String frontend, long maxconn, long canGet) {}

    /**
     * The failure windows of a proxy's probes on one time axis (IL-0495): a stall of the proxy
     * lasting {@code stallSeconds} (the shortest the rule asks a probe to outlast) fails each probe
     * whose window is shorter, on every replica at once ({@code replicas}, null when unknown).
     */
    record ProbeWindows(String workload, int stallSeconds, Integer replicas, List<Window> windows)
            implements Figure {
        public ProbeWindows {
            windows = List.copyOf(windows);
        }
    }

    /**
     * One probe's window: the stall it fails on ({@code seconds} = failureThreshold x periodSeconds
     * + timeoutSeconds, as the rule counts it) and what then happens ("marked unready",
     * "restarted").
     */
    record Window(String probe, int seconds, String effect) {}

    /**
     * Healthy targets of a target group per Availability Zone of its load balancer (IL-0364), with
     * cross-zone load balancing off: a zone with none fails the clients that resolve its address.
     */
    record ZoneTargets(String loadBalancer, String targetGroup, List<Zone> zones)
            implements Figure {
        public ZoneTargets {
            zones = List.copyOf(zones);
        }
    }

    /** One zone: its healthy targets of {@code registered}. */
    record Zone(String name, int healthy, int registered) {}

    /**
     * Live saturation: the peak of a frontend's sessions (or a process's connections) on one
     * instance against its limit, and the rule's thresholds in percent.
     */
    record Saturation(
            String proxy,
            String instance,
            double peak,
            double limit,
            int warnPercent,
            int highPercent)
            implements Figure {}
}
