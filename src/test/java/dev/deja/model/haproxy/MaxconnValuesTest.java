package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.source.haproxy.HaproxyRuntimeSource;
import dev.deja.source.haproxy.HaproxyRuntimeTest;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * maxconn values as the real haproxy reads them (atol: the leading digits; 0 is "no limit of its
 * own"; the first global line that is not 0 is kept, a later one ignored with "'maxconn' already
 * specified"): deja's effective limit of every frontend must be the {@code slim} the running
 * haproxy reports on its stats socket, and its global the {@code Maxconn} of {@code show info}.
 * deja once read "maxconn 0" as 0 slots, "5x" as unknown and the last global line as the limit, and
 * said HAProxy refuses such a configuration (haproxy 2.6 calls it valid).
 */
class MaxconnValuesTest {
    /** Frontend name to its maxconn lines (in order) and bind options. */
    private static final Map<String, String> FRONTENDS = new LinkedHashMap<>();

    static {
        FRONTENDS.put("fe_zero", "    maxconn 0\n");
        FRONTENDS.put("fe_abc", "    maxconn abc\n");
        FRONTENDS.put("fe_5x", "    maxconn 5x\n");
        FRONTENDS.put("fe_08", "    maxconn 08\n");
        FRONTENDS.put("fe_plus", "    maxconn +8\n");
        FRONTENDS.put("fe_last_zero", "    maxconn 300\n    maxconn 0\n");
        FRONTENDS.put("fe_plain", "    maxconn 40\n");
        FRONTENDS.put("fe_none", "");
    }

    @Test
    void dejaReadsEveryMaxconnAsTheRunningHaproxyDoes(@TempDir Path dir) throws Exception {
        String bin = HaproxyRuntimeTest.haproxy();
        Assumptions.assumeTrue(
                bin != null,
                "haproxy is not installed (apt-get install haproxy; .ci/run installs it)");
        Path sock = dir.resolve("admin.sock");
        StringBuilder cfg =
                new StringBuilder(
                        "global\n    maxconn 0\n    maxconn 1000\n    maxconn 50\n"
                                + "    stats socket "
                                + sock
                                + " mode 600 level user\n"
                                + "defaults\n    mode tcp\n    timeout connect 5s\n"
                                + "    timeout client 30s\n    timeout server 30s\n");
        for (Map.Entry<String, String> e : FRONTENDS.entrySet()) {
            int port;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            cfg.append("frontend ")
                    .append(e.getKey())
                    .append("\n    bind 127.0.0.1:")
                    .append(port)
                    .append(e.getKey().equals("fe_plain") ? " maxconn 0" : "")
                    .append('\n')
                    .append(e.getValue())
                    .append("    default_backend be\n");
        }
        cfg.append("backend be\n    server s1 127.0.0.1:9\n");
        Path file = dir.resolve("haproxy.cfg");
        Files.writeString(file, cfg);

        Process p =
                new ProcessBuilder(bin, "-db", "-f", file.toString())
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("haproxy.log").toFile())
                        .start();
        Map<String, Long> slim = new LinkedHashMap<>();
        long processMax;
        try {
            String addr = "unix:" + sock;
            HaproxyRuntimeTest.waitUntil(
                    p, dir, () -> Files.exists(sock) && HaproxyRuntimeTest.answers(addr));
            for (RuntimeStats.Row r :
                    RuntimeStats.stat(
                            HaproxyRuntimeSource.command(
                                    HaproxyRuntimeSource.address(addr), "show stat", 5000))) {
                if (r.type().equals("frontend")) {
                    slim.put(r.proxy(), r.slim());
                }
            }
            processMax =
                    RuntimeStats.info(
                                    HaproxyRuntimeSource.command(
                                            HaproxyRuntimeSource.address(addr), "show info", 5000))
                            .maxConn();
        } finally {
            p.destroy();
            p.waitFor();
        }
        // what haproxy 2.6 did with these lines (the point of the test is that deja agrees)
        assertEquals(1000, processMax, Files.readString(dir.resolve("haproxy.log")));
        assertEquals(5L, slim.get("fe_5x"), slim.toString());
        assertEquals(1000L, slim.get("fe_zero"), slim.toString());

        HaproxyConfig c = HaproxyParser.parse(file.toString(), Files.readString(file), null);
        Map<String, Long> deja = new LinkedHashMap<>();
        for (Frontends.Frontend f : Frontends.of(c)) {
            deja.put(f.name(), f.maxconn().effective());
            assertEquals(processMax, f.maxconn().global(), f.name());
        }
        Map<String, Long> expected = new LinkedHashMap<>();
        for (String fe : FRONTENDS.keySet()) {
            expected.put(fe, slim.get(fe));
        }
        assertEquals(expected, deja);
        assertEquals("maxconn 1000", Frontends.globalMaxconn(c).text());

        // the scan says what it read, line by line, and reports nothing false about the limits
        TestSupport.Run r = TestSupport.run("scan", "--fail-on", "none", file.toString());
        assertEquals(0, r.code(), r.err());
        List<String> warnings = new ArrayList<>();
        for (String line : r.err().split("\n")) {
            if (line.startsWith("deja: warning: ")) {
                warnings.add(line.substring(("deja: warning: " + file).length()));
            }
        }
        assertEquals(
                List.of(
                        ":4: global maxconn '50' is ignored: HAProxy keeps the first one, '1000' at "
                                + file
                                + ":3 ('maxconn' already specified)",
                        ":17: maxconn 'abc' is not a plain number: HAProxy reads it as 0 (atol),"
                                + " no limit of its own",
                        ":21: maxconn '5x' is not a plain number: HAProxy reads its leading"
                                + " digits (atol), 5",
                        ":29: maxconn '+8' is not a plain number: HAProxy reads its leading"
                                + " digits (atol), 8"),
                warnings,
                r.err());
        assertTrue(!r.out().contains("above global maxconn 50"), r.out());
    }
}
