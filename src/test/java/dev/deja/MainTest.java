package dev.deja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {
    static boolean selectorAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(
                        t -> t.isAlive() && t.getName().matches("HttpClient-\\d+-SelectorManager"));
    }

    /**
     * The warm-up of a cluster scan must not freeze the libraries' logging before --verbose turns
     * it on.
     */
    @Test
    void verboseClusterScanShowsLibraryWarnings(@TempDir Path dir) throws Exception {
        Path plugin = dir.resolve("broken-plugin");
        Files.writeString(plugin, "#!/bin/sh\necho 'not an ExecCredential'\nexit 1\n");
        plugin.toFile().setExecutable(true);
        Path kc = dir.resolve("kubeconfig");
        Files.writeString(
                kc,
                "apiVersion: v1\nkind: Config\nclusters: [{name: t, cluster: {server: "
                        + "\"http://127.0.0.1:9\"}}]\nusers: [{name: t, user: {exec: {apiVersion: "
                        + "client.authentication.k8s.io/v1beta1, command: "
                        + plugin
                        + "}}}]\n"
                        + "contexts: [{name: t, context: {cluster: t, user: t}}]\ncurrent-context: t\n");
        Process p =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-cp",
                                System.getProperty("java.class.path"),
                                Main.class.getName(),
                                "scan",
                                "--cluster",
                                "--kubeconfig",
                                kc.toString(),
                                "--verbose")
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(3, p.waitFor(), out);
        assertTrue(
                out.contains("WARN io.fabric8"),
                out); // the plugin's bad answer, as Fabric8 logs it
    }

    @Test
    void aFileNameTheLocaleCannotReadIsOneLineAndExit2() throws Exception {
        // under LC_ALL=C, Java 17 reads file names as ASCII: "dé.cfg" cannot become a path (was
        // exit 4, a raw
        // InvalidPathException)
        ProcessBuilder pb =
                new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        Main.class.getName(),
                        "scan",
                        "dé.cfg");
        pb.environment().keySet().removeIf(k -> k.equals("LANG") || k.startsWith("LC_"));
        pb.environment().put("LC_ALL", "C");
        Process p = pb.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(2, p.waitFor(), out);
        assertEquals(1, out.strip().lines().count(), out);
        assertTrue(
                out.contains("a file name the JVM cannot read in the locale's character set"), out);
    }

    @Test
    void theHttpClientsSelectorThreadIsStoppedBeforeExit() throws Exception {
        HttpServer server =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext(
                "/",
                x -> {
                    x.sendResponseHeaders(200, 2);
                    x.getResponseBody().write("ok".getBytes(StandardCharsets.UTF_8));
                    x.close();
                });
        server.start();
        try {
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<String> r =
                    client.send(
                            HttpRequest.newBuilder(
                                            URI.create(
                                                    "http://127.0.0.1:"
                                                            + server.getAddress().getPort()
                                                            + "/"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertEquals("ok", r.body());
            assertTrue(selectorAlive(), "the client runs a selector thread");
            Main.stopHttpSelectors();
            assertFalse(selectorAlive(), "no selector thread is left to hold up the JVM's exit");
        } finally {
            server.stop(0);
        }
    }
}
