package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A HAProxy-only scan loads no Kubernetes (io.fabric8) or AWS (software.amazon) class: the scan
 * runs in a fresh JVM with -verbose:class on the test class path, and the loaded classes are
 * checked.
 */
class LazyLoadingTest {
    @Test
    void haproxyScanLoadsNoKubernetesOrAwsClass() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p =
                new ProcessBuilder(
                                java,
                                "-verbose:class",
                                "-cp",
                                System.getProperty("java.class.path"),
                                "dev.deja.Main",
                                "scan",
                                "--format",
                                "sarif",
                                "examples/haproxy/il-0264-before.cfg")
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(
                1, p.exitValue(), out.length() > 2000 ? out.substring(out.length() - 2000) : out);
        assertTrue(out.contains("dev.deja.model.haproxy.HaproxyParser"), "the class log is read");
        List<String> bad =
                out.lines()
                        .filter(l -> l.contains("io.fabric8.") || l.contains("software.amazon."))
                        .limit(5)
                        .toList();
        assertEquals(List.of(), bad);
    }
}
