package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17 (3): inputs that were quadratic (a search to the end of the file per comment, every
 * frontend against every frontend, a defaults chain walked per frontend) finish; the bound is a
 * hang guard far above the expected time (well under a second each), the speed itself is measured
 * by src/bench/haproxy-bench.sh.
 */
class LinearParsingTest {
    @TempDir Path tmp;

    private static final Duration HANG_GUARD = Duration.ofMinutes(3);
    private static final String HEAD = "global\n  maxconn 200000\n  stats socket /run/h.sock\n";
    private static final String TIMEOUTS =
            "  mode http\n  timeout connect 5s\n  timeout client 5s\n  timeout server 5s\n";

    private TestSupport.Run scan(String name, CharSequence text, String... extra) throws Exception {
        Path f = tmp.resolve(name);
        Files.writeString(f, text);
        String[] args = new String[extra.length + 4];
        args[0] = "scan";
        args[1] = "--format";
        args[2] = "json";
        System.arraycopy(extra, 0, args, 3, extra.length);
        args[args.length - 1] = f.toString();
        return assertTimeoutPreemptively(HANG_GUARD, () -> TestSupport.run(args));
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    @Test
    void manyCommentLinesAndAnIgnoreAtTheEnd() throws Exception {
        StringBuilder b =
                new StringBuilder(
                        HEAD + "defaults\n" + TIMEOUTS + "backend be\n  server s 10.0.0.1:80\n");
        for (int i = 0; i < 200_000; i++) {
            b.append("# comment ").append(i).append(" with a few words\n");
        }
        b.append(
                "# deja:ignore haproxy-missing-http-request-timeout a test frontend\nfrontend f\n  bind :80\n"
                        + "  default_backend be\n");
        TestSupport.Run r =
                scan("comments.cfg", b, "--rules", "haproxy-missing-http-request-timeout");
        assertEquals(0, r.code(), r.err());
        assertTrue(
                r.out().contains("\"suppressionReason\" : \"a test frontend\"")
                        || r.out().contains("\"suppressionReason\":\"a test frontend\""),
                r.out());
    }

    @Test
    void sixteenThousandFrontendsHalfRateLimited() throws Exception {
        StringBuilder b =
                new StringBuilder(
                        HEAD
                                + "defaults\n"
                                + TIMEOUTS
                                + "  timeout http-request 5s\n"
                                + "backend st\n  stick-table type ip size 1m expire 10s store http_req_rate(1s)\n"
                                + "backend shared\n  server s 10.0.0.1:80\nbackend own\n  server s 10.0.0.2:80\n");
        for (int i = 0; i < 16_000; i++) {
            b.append("frontend fe_")
                    .append(i)
                    .append("\n  bind 127.0.0.1:")
                    .append(10_000 + i)
                    .append('\n');
            if (i % 2 == 0) {
                b.append(
                        "  http-request track-sc0 src table st\n  http-request deny if { sc_http_req_rate(0) gt 100 }\n");
            }
            b.append(i % 4 == 3 ? "  default_backend own\n" : "  default_backend shared\n");
        }
        TestSupport.Run r =
                scan("frontends.cfg", b, "--rules", "haproxy-rate-limit-not-everywhere");
        assertEquals(1, r.code(), r.err());
        // fe_1, fe_5, ... reach the shared backend unlimited; fe_3, fe_7, ... reach only their own
        // backend
        assertEquals(
                4_000,
                count(r.out(), "\"ruleId\" : \"haproxy-rate-limit-not-everywhere\""),
                r.err());
        assertTrue(
                r.out()
                        .contains(
                                "frontend fe_1 reaches backend shared with no rate-limit rule, while frontend fe_0"
                                        + " rate-limits the same backend"),
                r.out().substring(0, 3000));
        assertTrue(!r.out().contains("frontend fe_3 reaches"), "fe_3 reaches no limited backend");
    }

    /**
     * Issue 17 (7): HAProxy's own limits, checked against haproxy 2.6: no line length limit, 99
     * nested .if.
     */
    @Test
    void haproxysOwnLimits() {
        String longLine =
                "global\n  maxconn 10\n  # "
                        + "x".repeat(200_000)
                        + "\n  setenv LONG "
                        + "y".repeat(200_000)
                        + "\ndefaults\n  mode http\n";
        HaproxyConfig c = HaproxyParser.parse("long.cfg", longLine, null);
        assertEquals(200_000, c.sections().get(0).directives().get(1).word(2).length());
        String nest99 =
                "global\n"
                        + ".if defined(HOME)\n".repeat(99)
                        + "  nbthread 1\n"
                        + ".endif\n".repeat(99);
        HaproxyParser.parse("n.cfg", nest99, null);
        String nest100 =
                "global\n"
                        + ".if defined(HOME)\n".repeat(100)
                        + "  nbthread 1\n"
                        + ".endif\n".repeat(100);
        HaproxyParseException e =
                Assertions.assertThrows(
                        HaproxyParseException.class,
                        () -> HaproxyParser.parse("n.cfg", nest100, null));
        assertTrue(
                e.getMessage().startsWith("n.cfg:101: too many nested '.if', max is 100"),
                e.getMessage());
    }

    @Test
    void longChainOfNamedDefaults() throws Exception {
        StringBuilder b =
                new StringBuilder(
                        HEAD + "defaults d0\n" + TIMEOUTS + "  timeout http-request 5s\n");
        for (int i = 1; i < 4_000; i++) {
            b.append("defaults d")
                    .append(i)
                    .append(" from d")
                    .append(i - 1)
                    .append("\n  option httplog\n");
        }
        b.append("defaults last from d3999\n  timeout http-request 50s\n  timeout client 60s\n");
        b.append("backend be\n  server s 10.0.0.1:80\n");
        for (int i = 0; i < 4_000; i++) {
            b.append("frontend fe_")
                    .append(i)
                    .append(i % 2 == 0 ? " from d3999" : " from last")
                    .append("\n  bind 127.0.0.1:")
                    .append(10_000 + i)
                    .append("\n  default_backend be\n");
        }
        TestSupport.Run r = scan("chain.cfg", b, "--rules", "haproxy-missing-http-request-timeout");
        assertEquals(0, r.code(), r.err() + r.out().substring(0, Math.min(3000, r.out().length())));
        HaproxyConfig c = HaproxyParser.parse("chain.cfg", b.toString(), null);
        Section fe1 =
                c.sections().stream()
                        .filter(s -> "fe_1".equals(s.name()))
                        .findFirst()
                        .orElseThrow();
        assertEquals("50s", fe1.effective("timeout", "http-request").word(2));
        Section fe0 =
                c.sections().stream()
                        .filter(s -> "fe_0".equals(s.name()))
                        .findFirst()
                        .orElseThrow();
        assertEquals(
                "5s",
                fe0.effective("timeout", "http-request").word(2),
                "inherited through 4,000 defaults");
        assertEquals("http", fe0.effective("mode").word(1));
        assertEquals(null, fe0.effective("maxconn"));
    }
}
