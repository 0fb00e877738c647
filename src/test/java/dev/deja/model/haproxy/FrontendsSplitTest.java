package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.deja.TestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The frontend views of a large configuration are read on two threads: the same views, in the same
 * order, as on one; and no lock of the configuration is held against the second thread.
 */
class FrontendsSplitTest {

    /**
     * n frontends, each with its backend after it and settings of its own (a different maxconn and
     * timeout, a rate limit on every third, a tarpit on every fifth, two ways to a backend). The
     * limits of the first half track in their own table, those of the second half in the shared
     * table {@code st}: only the second thread looks a backend up by name.
     */
    static String config(int n) {
        StringBuilder sb = new StringBuilder();
        sb.append("global\n    maxconn 100000\n")
                .append("defaults\n    mode http\n    timeout connect 5s\n    timeout client 30s\n")
                .append("    timeout server 30s\n");
        for (int i = 0; i < n; i++) {
            sb.append("frontend fe_").append(i).append('\n');
            sb.append("    bind :")
                    .append(10000 + i)
                    .append(" maxconn ")
                    .append(i % 7 + 1)
                    .append('\n');
            sb.append("    maxconn ").append(i + 1).append('\n');
            sb.append("    timeout http-request ").append(i % 11 + 1).append("s\n");
            if (i % 3 == 0 && i < n / 2) {
                sb.append("    stick-table type ip size 1k store http_req_rate(10s)\n");
                sb.append("    http-request track-sc0 src\n");
            } else if (i % 3 == 0) {
                sb.append("    http-request track-sc0 src table st\n");
            }
            if (i % 3 == 0) {
                sb.append("    http-request deny if { sc_http_req_rate(0) gt ")
                        .append(i)
                        .append(" }\n");
            }
            if (i % 5 == 0) {
                sb.append("    timeout tarpit ").append(i % 4 + 1).append("s\n");
                sb.append("    http-request tarpit if { path_beg /x").append(i).append(" }\n");
            }
            sb.append("    use_backend be_").append((i + 1) % n).append(" if { path_beg /a }\n");
            sb.append("    default_backend be_").append(i).append('\n');
            sb.append("backend be_").append(i).append("\n    server s 10.0.0.1:80\n");
        }
        sb.append("backend st\n    stick-table type ip size 1m store http_req_rate(10s)\n");
        return sb.toString();
    }

    @Test
    void twoThreadsReadTheSameViewsAsOne() {
        HaproxyConfig c = HaproxyParserTest.parse(config(1500));
        List<Frontends.Frontend> one = Frontends.compute(c, Integer.MAX_VALUE);
        assertEquals(1500, one.size());
        for (int splitFrom : List.of(2, 3001, 3003)) {
            assertEquals(one, Frontends.compute(c, splitFrom), "split from " + splitFrom);
        }
    }

    @Test
    void aScanOfALargeConfigurationEnds(@TempDir Path dir) throws Exception {
        // the views of a config past the split size are read while the rules wait for them: a
        // lock held against the second thread would hang here
        Path cfg = dir.resolve("large.cfg");
        Files.writeString(cfg, config(1200));
        TestSupport.Run r =
                assertTimeoutPreemptively(
                        Duration.ofMinutes(5),
                        () ->
                                TestSupport.run(
                                        "scan", "--no-config", "--format", "json", cfg.toString()));
        assertEquals(1, r.code(), r.err());
        // every frontend without a limit (800 of 1,200) shares a backend with a limited one
        int unlimited = 0;
        for (var f : TestSupport.json(r.out()).path("findings")) {
            if (f.path("ruleId").asText().equals("haproxy-rate-limit-not-everywhere")) {
                unlimited++;
            }
        }
        assertEquals(800, unlimited);
    }
}
