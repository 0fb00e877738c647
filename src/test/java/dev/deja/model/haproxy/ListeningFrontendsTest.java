package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Only frontends and listens that clients can reach are judged: one without a {@code bind} line
 * gets no listener from HAProxy, and a {@code disabled} one (own keyword or its defaults') starts
 * stopped; the last of {@code disabled}/{@code enabled} wins. Each case is checked against the
 * installed haproxy ({@code haproxy -c}) where there is one.
 */
class ListeningFrontendsTest {
    @TempDir Path tmp;

    static final String HEAD =
            "global\n    maxconn 100\n"
                    + "defaults web\n    mode http\n    timeout connect 5s\n    timeout client 5s\n"
                    + "    timeout server 5s\n"
                    + "defaults off from web\n    disabled\n"
                    + "backend be from web\n    server s1 127.0.0.1:9000\n";

    static List<String> names(String text) {
        return Frontends.primary(HaproxyParserTest.parse(text)).stream()
                .map(Frontends.Frontend::name)
                .toList();
    }

    /** haproxy -c's output and exit code, or null when haproxy is not installed. */
    String haproxyCheck(String text) throws Exception {
        Path p = tmp.resolve("h" + System.nanoTime() + ".cfg");
        Files.writeString(p, text);
        Process proc;
        try {
            proc =
                    new ProcessBuilder("haproxy", "-c", "-f", p.toString())
                            .redirectErrorStream(true)
                            .start();
        } catch (IOException e) {
            return null;
        }
        String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(proc.waitFor(60, TimeUnit.SECONDS), "haproxy -c timed out");
        return out + "\nexit " + proc.exitValue();
    }

    @Test
    void aFrontendWithoutBindIsNotJudged() throws Exception {
        String text =
                HEAD
                        + "frontend a from web\n    bind 127.0.0.1:18481\n    default_backend be\n"
                        + "frontend nobind from web\n    default_backend be\n"
                        + "listen nobind_listen from web\n    server s2 127.0.0.1:9001\n";
        assertEquals(List.of("a"), names(text));
        String h = haproxyCheck(text);
        Assumptions.assumeTrue(h != null, "haproxy is not installed: not compared with haproxy -c");
        assertTrue(h.contains("frontend 'nobind' has no 'bind' directive"), h);
        assertTrue(h.contains("proxy 'nobind_listen' has no 'bind' directive"), h);
    }

    @Test
    void aDisabledFrontendIsNotJudgedUnlessEnabledAgain() throws Exception {
        String own = HEAD + "frontend d from web\n    bind 127.0.0.1:18482\n    disabled\n";
        String inherited = HEAD + "frontend e from off\n    bind 127.0.0.1:18483\n";
        String again = HEAD + "frontend f from off\n    bind 127.0.0.1:18484\n    enabled\n";
        String undecided =
                HEAD
                        + "frontend g from web\n    bind 127.0.0.1:18485\n"
                        + ".if defined(DEJA_TEST_UNSET)\n    disabled\n.endif\n";
        assertEquals(List.of(), names(own));
        assertEquals(List.of(), names(inherited));
        assertEquals(List.of("f"), names(again));
        assertEquals(List.of("g"), names(undecided), "disabled on one path only: judged");
        String h = haproxyCheck(own);
        Assumptions.assumeTrue(h != null, "haproxy is not installed: not compared with haproxy -c");
        assertTrue(h.contains("will not start (no listener)"), h);
        h = haproxyCheck(inherited);
        assertTrue(h.contains("will not start (no listener)"), h);
        h = haproxyCheck(again);
        assertTrue(h.contains("Configuration file is valid") && h.endsWith("exit 0"), h);
    }
}
