package dev.deja.model.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The CPU limit in whole CPUs, rounded up as ingress-nginx's NumCPU rounds a cgroup quota over its
 * period.
 */
class ContainerCpuLimitTest {

    private static Integer cpus(String limit) {
        return new Container(
                        "c", "i", List.of(), List.of(), Map.of(), null, null, null, null, limit)
                .cpuLimitRoundedUp();
    }

    @Test
    void quantitiesRoundUpToWholeCpus() {
        assertEquals(2, cpus("1500m"));
        assertEquals(2, cpus("2"));
        assertEquals(2, cpus("2000m"));
        assertEquals(3, cpus("2001m"));
        assertEquals(1, cpus("250m"));
        assertEquals(1, cpus("0.5"));
        assertEquals(2, cpus("1.5"));
        assertEquals(2, cpus(" 1.25 "));
    }

    @Test
    void noLimitOrNotAPlainQuantityIsUnknown() {
        assertNull(cpus(null));
        assertNull(cpus("0"));
        assertNull(cpus("0m"));
        assertNull(cpus("1.5m"));
        assertNull(cpus("2k"));
        assertNull(cpus("lots"));
    }
}
