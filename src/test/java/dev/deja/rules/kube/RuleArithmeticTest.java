package dev.deja.rules.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.model.kube.Meta;
import dev.deja.model.kube.Selector;
import dev.deja.model.kube.Workload;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** maxUnavailable resolved as Kubernetes does it, and ingress-nginx durations. */
class RuleArithmeticTest {
    static Workload w(String kind, Integer replicas, String strategy, String maxUnavailable) {
        return new Workload(
                new Meta("apps/v1", kind, "ns", "lb", Map.of(), Map.of(), null, null),
                replicas,
                strategy,
                maxUnavailable,
                Selector.EMPTY,
                Map.of(),
                Map.of(),
                List.of(),
                List.of(),
                List.of(),
                null,
                null);
    }

    static String mu(String kind, Integer replicas, String strategy, String maxUnavailable) {
        Workload x = w(kind, replicas, strategy, maxUnavailable);
        LbNoDisruptionHeadroom.Rollout r = LbNoDisruptionHeadroom.rollout(x, x.effectiveReplicas());
        return r == null ? null : r.message() + " | " + r.remediation();
    }

    /**
     * Issue #10 item 5: judged by the load the survivors carry; the advice given must itself pass.
     */
    @Test
    void rolloutsAreJudgedByTheLoadOnTheSurvivors() {
        // 3 or 4 replicas with maxUnavailable 1: 1.5x / 1.33x, the advice everyone gives: no
        // finding
        assertNull(mu("Deployment", 3, null, "1"));
        assertNull(mu("Deployment", 4, null, "1"));
        assertNull(mu("Deployment", 4, null, null)); // 25% of 4 = 1
        // 2 replicas, maxUnavailable 1: the one left carries 2x; the fix is surge, not a smaller
        // number
        String two = mu("Deployment", 2, null, "1");
        assertTrue(
                two.contains("resolves to 1 pod of 2") && two.contains("the 1 left carry 2.00x"),
                two);
        assertTrue(two.contains("`maxUnavailable: 0` and `maxSurge: 1`"), two);
        // 6 replicas, 50% = 3: 2x; the largest safe value is 2 (1.5x)
        String six = mu("Deployment", 6, null, "50%");
        assertTrue(
                six.contains("50% of 6 rounded down = 3 pods of 6")
                        && six.contains("`maxUnavailable: 2`"),
                six);
        assertNull(mu("Deployment", 6, null, "2"));
        assertNull(mu("Deployment", 3, null, "30%")); // 0.9 rounds down to 0
        assertTrue(mu("Deployment", 6, "Recreate", null).startsWith("strategy Recreate"));
        assertNull(mu("Deployment", 4, "OnDelete", "100%"));
        // every suggested value clears the finding it came from
        for (int replicas = 1; replicas <= 40; replicas++) {
            int safe = LbNoDisruptionHeadroom.largestSafe(replicas);
            assertNull(
                    mu("Deployment", replicas, null, Integer.toString(safe)),
                    replicas + " replicas, " + safe);
        }
    }

    @Test
    void statefulSetsRoundUpAndSayWhenTheFieldIsHonoured() {
        assertNull(mu("StatefulSet", 2, "RollingUpdate", null));
        String ss = mu("StatefulSet", 4, "RollingUpdate", "50%");
        assertTrue(
                ss.contains("50% of 4 rounded up = 2 pods of 4")
                        && ss.contains("MaxUnavailableStatefulSet"),
                ss);
    }

    /**
     * Issue #10 item 4: DaemonSets are judged on their update strategy, never on a budget; the node
     * count is unknown.
     */
    @Test
    void daemonSetsByUpdateStrategyWithTheNodeCountUnknown() {
        assertNull(
                mu("DaemonSet", null, "RollingUpdate", null)); // default: one node's pod at a time
        assertNull(mu("DaemonSet", null, "RollingUpdate", "1"));
        assertNull(mu("DaemonSet", null, "RollingUpdate", "10%")); // Contour's Envoy DaemonSet
        assertNull(mu("DaemonSet", null, "RollingUpdate", "33%"));
        assertNull(mu("DaemonSet", null, "OnDelete", "50%"));
        String half = mu("DaemonSet", null, "RollingUpdate", "50%");
        assertTrue(
                half.contains("50% of the nodes' pods (rounded up)")
                        && half.contains("whatever the node count"),
                half);
        String three = mu("DaemonSet", null, "RollingUpdate", "3");
        assertTrue(
                three.contains("the node count is not in the manifest: on fewer than 9 nodes"),
                three);
    }

    @Test
    void ingressNginxDurations() {
        assertEquals(240, IngressNginxSerialReloads.seconds("240s"));
        assertEquals(600, IngressNginxSerialReloads.seconds("10m"));
        assertEquals(5400, IngressNginxSerialReloads.seconds("1h30m"));
        assertEquals(90, IngressNginxSerialReloads.seconds("90"));
        assertNull(IngressNginxSerialReloads.seconds("soon"));
        assertNull(IngressNginxSerialReloads.seconds("10 m"));
    }
}
