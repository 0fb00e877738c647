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
import org.junit.jupiter.api.Test;

class MainTest {
    static boolean selectorAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.isAlive() && t.getName().matches("HttpClient-\\d+-SelectorManager"));
    }

    @Test
    void theHttpClientsSelectorThreadIsStoppedBeforeExit() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", x -> {
            x.sendResponseHeaders(200, 2);
            x.getResponseBody().write("ok".getBytes());
            x.close();
        });
        server.start();
        try {
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/")).build(),
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
