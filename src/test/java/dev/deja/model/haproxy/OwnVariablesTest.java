package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Variables HAProxy sets itself ({@link OwnVariables}) are never asked for with --env; those it
 * sets before parsing are defined for {@code .if defined(...)}. Compared with the installed haproxy
 * (2.6 on the CI machine), run with an empty environment.
 */
class OwnVariablesTest {
    @TempDir Path tmp;

    /**
     * A peers section naming the local peer by HAPROXY_LOCALPEER (the host name unless -L), and a
     * timeout http-request only when HAPROXY_LOCALPEER is defined.
     */
    static final String LOCALPEER =
            """
            global
                maxconn 1000
                stats socket 127.0.0.1:18590

            peers mypeers
                peer "${HAPROXY_LOCALPEER}" 127.0.0.1:18591

            defaults
                mode http
                timeout client 30s
                timeout server 30s
                timeout connect 5s
            .if defined(HAPROXY_LOCALPEER)
                timeout http-request 5s
            .notice "HAPROXY_LOCALPEER is defined"
            .endif

            frontend fe_web
                bind 127.0.0.1:18592
                maxconn 100
                default_backend be_app

            backend be_app
                server a 127.0.0.1:18593 maxconn 50
            """;

    static final String LOG_FORMAT =
            """
            global
                maxconn 1000
                stats socket 127.0.0.1:18594

            defaults
                mode http
                timeout client 30s
                timeout server 30s
                timeout connect 5s
                timeout http-request 5s

            frontend fe_web
                bind 127.0.0.1:18595
                maxconn 100
                log-format "${HAPROXY_HTTP_LOG_FMT}"
                default_backend be_app

            backend be_app
                server a 127.0.0.1:18596 maxconn 50
            """;

    /** haproxy -c with an empty environment: output and exit code, or null without haproxy. */
    String haproxyCheck(Path cfg) throws Exception {
        ProcessBuilder pb =
                new ProcessBuilder("haproxy", "-c", "-f", cfg.toString()).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        Process proc;
        try {
            proc = pb.start();
        } catch (IOException e) {
            return null;
        }
        String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(proc.waitFor(60, TimeUnit.SECONDS), "haproxy -c timed out");
        return out + "\nexit " + proc.exitValue();
    }

    static TestSupport.Run scan(String... args) {
        return TestSupport.runWith(new ByteArrayInputStream(new byte[0]), Map.of(), args);
    }

    @Test
    void localPeerIsHaproxysOwnAndDefined() throws Exception {
        Path cfg = tmp.resolve("peers.cfg");
        Files.writeString(cfg, LOCALPEER);
        TestSupport.Run r = scan("scan", "--format", "json", cfg.toString());
        assertFalse(r.err().contains("HAPROXY_LOCALPEER"), r.err());
        assertFalse(r.out().contains("--env HAPROXY_LOCALPEER"), r.out());
        // defined(HAPROXY_LOCALPEER) is decided true: the timeout http-request applies on the only
        // path
        List<String> rules = new ArrayList<>();
        r.json().path("findings").forEach(f -> rules.add(f.path("ruleId").asString("")));
        assertFalse(rules.contains("haproxy-missing-http-request-timeout"), r.out());
        assertEquals(0, r.code(), r.out() + r.err());

        String h = haproxyCheck(cfg);
        Assumptions.assumeTrue(h != null, "haproxy is not installed: not compared with haproxy -c");
        assertTrue(h.contains("HAPROXY_LOCALPEER is defined"), h);
        assertTrue(h.endsWith("exit 0"), h);
    }

    /**
     * HAPROXY_HTTP_LOG_FMT is set from 2.8 on (2.8-dev1 in HAProxy's CHANGELOG, after 2.7.0): 2.6
     * and 2.7 leave it unset, so deja asks for its value there; the CLF form is counted from 3.2.
     */
    @Test
    void defaultLogFormatsAreOwnFrom28ButNotBefore() throws Exception {
        Path cfg = tmp.resolve("logfmt.cfg");
        Files.writeString(cfg, LOG_FORMAT);
        for (String v : new String[] {"", "2.8", "3.0"}) {
            TestSupport.Run recent =
                    v.isEmpty()
                            ? scan("scan", cfg.toString())
                            : scan("scan", "--haproxy-version", v, cfg.toString());
            assertFalse(recent.err().contains("HAPROXY_HTTP_LOG_FMT"), v + ": " + recent.err());
            assertFalse(recent.out().contains("HAPROXY_HTTP_LOG_FMT"), v + ": " + recent.out());
        }
        for (String v : new String[] {"2.6", "2.7"}) {
            TestSupport.Run old = scan("scan", "--haproxy-version", v, cfg.toString());
            assertTrue(
                    old.err().contains("--env HAPROXY_HTTP_LOG_FMT=VALUE"), v + ": " + old.err());
        }
        Path clf = tmp.resolve("clf.cfg");
        Files.writeString(
                clf, LOG_FORMAT.replace("HAPROXY_HTTP_LOG_FMT", "HAPROXY_HTTP_CLF_LOG_FMT"));
        assertTrue(
                scan("scan", "--haproxy-version", "2.8", clf.toString())
                        .err()
                        .contains("--env HAPROXY_HTTP_CLF_LOG_FMT=VALUE"));
        assertFalse(
                scan("scan", "--haproxy-version", "3.2", clf.toString())
                        .err()
                        .contains("HAPROXY_HTTP_CLF_LOG_FMT"));

        String h = haproxyCheck(cfg);
        Assumptions.assumeTrue(h != null, "haproxy is not installed: not compared with haproxy -c");
        Assumptions.assumeTrue(
                h.contains("version is 2.6."), "haproxy is not 2.6: " + h.lines().findFirst());
        // 2.6 leaves it unset: the log-format is empty, and refused
        assertTrue(h.contains("log-format expects an argument"), h);
        assertTrue(h.endsWith("exit 1"), h);
    }

    @Test
    void aDirectiveUsingAnOwnVariableSaysSoWithoutAskingForIt() {
        HaproxyConfig c =
                HaproxyParserTest.parse(
                        "frontend f\n    bind :80\n    maxconn \"${HAPROXY_CLI}\"\n"
                                + "    fullconn \"${HAPROXY_CLI}${MY_LIMIT}\"\n");
        Directive maxconn = c.sections().get(0).directives().get(1);
        Directive fullconn = c.sections().get(0).directives().get(2);
        assertEquals(
                "'maxconn ${HAPROXY_CLI}' at t.cfg:3 uses HAPROXY_CLI, set by HAProxy itself"
                        + " (value unknown to deja)",
                Frontends.unreadable(maxconn));
        assertTrue(
                Frontends.unreadable(fullconn).endsWith("(give --env MY_LIMIT=VALUE)"),
                Frontends.unreadable(fullconn));
    }
}
