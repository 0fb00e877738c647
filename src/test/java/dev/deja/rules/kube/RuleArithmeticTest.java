package dev.deja.rules.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.kube.model.Meta;
import dev.deja.kube.model.Selector;
import dev.deja.kube.model.Workload;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** maxUnavailable resolved as Kubernetes does it, and ingress-nginx durations. */
class RuleArithmeticTest {
    static Workload w(String kind, Integer replicas, String strategy, String maxUnavailable) {
        return new Workload(new Meta("apps/v1", kind, "ns", "lb", Map.of(), Map.of(), null, null), replicas, strategy,
                maxUnavailable, Selector.EMPTY, Map.of(), Map.of(), List.of(), List.of(), List.of(), null, null);
    }

    static String mu(String kind, Integer replicas, String strategy, String maxUnavailable) {
        Workload x = w(kind, replicas, strategy, maxUnavailable);
        return LbNoDisruptionHeadroom.maxUnavailable(x, x.effectiveReplicas());
    }

    @Test
    void percentagesRoundDownAndDefaultTo25() {
        // unset = 25%: 4 replicas -> 1 pod (25%) fires; 5 -> 1 (20%) does not; 3 -> 0 does not; 8 -> 2 (25%) fires
        assertTrue(mu("Deployment", 4, null, null).contains("25% (unset: the Kubernetes default) resolves to 25% of 4 rounded down = 1 pod of 4 (25%"));
        assertNull(mu("Deployment", 5, null, null));
        assertNull(mu("Deployment", 3, "RollingUpdate", null));
        assertTrue(mu("Deployment", 8, null, null).contains("= 2 pods of 8 (25%"));
        // 30% of 3 = 0.9 -> 0 pods: nothing goes out at once
        assertNull(mu("Deployment", 3, null, "30%"));
        assertTrue(mu("Deployment", 10, null, "3").contains("resolves to 3 pods of 10 (30%"));
        assertNull(mu("Deployment", 10, null, "2"));
        assertTrue(mu("Deployment", 6, "Recreate", null).startsWith("strategy Recreate"));
    }

    @Test
    void statefulSetsAndDaemonSetsOnlyWhenSet() {
        assertNull(mu("StatefulSet", 2, "RollingUpdate", null));
        assertTrue(mu("StatefulSet", 2, "RollingUpdate", "1").contains("1 pod of 2 (50%"));
        assertNull(mu("DaemonSet", null, "RollingUpdate", null));
        assertNull(mu("DaemonSet", null, "RollingUpdate", "1"));
        assertTrue(mu("DaemonSet", null, "RollingUpdate", "50%").contains("50% of the nodes' pods"));
        assertNull(mu("Deployment", 4, "OnDelete", "100%"));
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
