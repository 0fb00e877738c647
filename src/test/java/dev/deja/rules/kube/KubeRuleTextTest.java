package dev.deja.rules.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The verb agrees with how many pods a message names. */
class KubeRuleTextTest {
    @Test
    void replicasAndTheirVerb() {
        assertEquals("all 3 replicas restart", KubeRule.replicasDo(3, "restart"));
        assertEquals("its single replica fails", KubeRule.replicasDo(1, "fail"));
        assertEquals("every pod of the DaemonSet fails", KubeRule.replicasDo(null, "fail"));
    }

    @Test
    void onePodDoesNothingTogether() {
        assertEquals("its single replica fails", KubeRule.replicasDoTogether(1, "fail"));
        assertEquals("all 2 replicas fail together", KubeRule.replicasDoTogether(2, "fail"));
        assertEquals(
                "every pod of the DaemonSet restarts together",
                KubeRule.replicasDoTogether(null, "restart"));
    }
}
