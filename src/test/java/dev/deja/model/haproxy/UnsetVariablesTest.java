package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A directive whose value is an unset environment variable is set, to a value deja cannot read: no
 * rule may call it absent, and the scan says which variable and how to give it (issue #10, item
 * 10).
 */
class UnsetVariablesTest {
    @TempDir Path tmp;

    static final String CFG =
            "global\n  maxconn \"${HAPROXY_MAXCONN}\"\n  stats socket /tmp/s\n"
                    + "defaults\n  mode http\n  timeout client 30s\n  timeout http-request 10s\n  timeout tarpit 1s\n"
                    + "frontend fe\n  bind :8080\n  http-request tarpit if { src_http_req_rate gt 10 }\n  default_backend be\n"
                    + "backend be\n  server s1 127.0.0.1:9000\n";

    TestSupport.Run scan(String text, Map<String, String> env, String... extra) throws IOException {
        Path p = tmp.resolve("haproxy.cfg");
        Files.writeString(p, text);
        String[] args = new String[extra.length + 4];
        args[0] = "scan";
        args[1] = "--format";
        args[2] = "json";
        System.arraycopy(extra, 0, args, 3, extra.length);
        args[args.length - 1] = p.toString();
        return TestSupport.runWith(new ByteArrayInputStream(new byte[0]), env, args);
    }

    @Test
    void anUnsetMaxconnIsUnknownNeverAbsent() throws IOException {
        TestSupport.Run r = scan(CFG, Map.of());
        assertFalse(r.out().contains("no maxconn anywhere"), r.out());
        assertFalse(r.out().contains("implicit"), r.out());
        assertTrue(
                r.out()
                        .contains(
                                "set to a value deja cannot read ('maxconn ${HAPROXY_MAXCONN}' at "),
                r.out());
        assertTrue(
                r.err().contains("variable HAPROXY_MAXCONN (")
                        && r.err().contains("--env HAPROXY_MAXCONN=VALUE"),
                r.err());
        assertTrue(
                r.out().contains("--env HAPROXY_MAXCONN=VALUE"),
                "the report's notes say it too: " + r.out());
    }

    @Test
    void givenWithEnvTheValueIsUsed() throws IOException {
        TestSupport.Run r = scan(CFG, Map.of(), "--env", "HAPROXY_MAXCONN=1024");
        assertTrue(r.out().contains("holds 300 of 1024 slots"), r.out());
        assertFalse(r.err().contains("not set"), r.err());
    }

    @Test
    void anUnsetBindOrFrontendMaxconnIsSetToo() throws IOException {
        String bindOnly =
                "defaults\n  mode http\n  timeout client 30s\n  timeout http-request 10s\n"
                        + "frontend fe\n  bind :8080 maxconn \"${FE_MAXCONN}\"\n  default_backend be\nbackend be\n  server s 127.0.0.1:1\n";
        TestSupport.Run r = scan(bindOnly, Map.of(), "--rules", "haproxy-maxconn-headroom");
        assertFalse(r.out().contains("no maxconn anywhere"), r.out());
        String feUnknown =
                "global\n  maxconn 1000\n  stats socket /tmp/s\ndefaults\n  mode http\n  timeout client 30s\n"
                        + "  timeout http-request 10s\n  timeout tarpit 1s\n"
                        + "frontend fe\n  bind :8080\n  maxconn \"${FE_MAXCONN}\"\n  http-request tarpit if { src_http_req_rate gt 10 }\n"
                        + "  default_backend be\nbackend be\n  server s 127.0.0.1:1\n";
        r = scan(feUnknown, Map.of(), "--rules", "haproxy-tarpit-holds-slots");
        assertEquals(1, r.code(), r.err());
        assertFalse(
                r.out().contains("no frontend maxconn"),
                "the frontend has one, unknown: " + r.out());
        assertTrue(
                r.out().contains("uses unset variable FE_MAXCONN (give --env FE_MAXCONN=VALUE)"),
                r.out());
    }
}
