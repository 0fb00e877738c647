package dev.deja.report.sink;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback HTTP server that records requests and answers with a chosen status (and optional
 * delay). Like {@code kubectl proxy} and many ingress proxies, it answers 500 to a request asking
 * for a protocol upgrade ({@code Upgrade: h2c}, what the JDK client sends on plain http when it may
 * use HTTP/2).
 */
public final class LoopbackServer implements AutoCloseable {
    public record Request(String method, String path, String contentType, String body) {}

    private final HttpServer server;
    public final List<Request> requests = new CopyOnWriteArrayList<>();
    public volatile int status = 200;
    public volatile long delayMillis;

    /** Requests that carried an {@code Upgrade} header (answered 500). */
    public final AtomicInteger upgradeRequests = new AtomicInteger();

    public LoopbackServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext(
                "/",
                ex -> {
                    String body =
                            new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                    requests.add(
                            new Request(
                                    ex.getRequestMethod(),
                                    ex.getRequestURI().getPath(),
                                    ex.getRequestHeaders().getFirst("Content-Type"),
                                    body));
                    if (ex.getRequestHeaders().containsKey("Upgrade")) {
                        upgradeRequests.incrementAndGet();
                        byte[] no = "upgrade not supported".getBytes(StandardCharsets.UTF_8);
                        ex.sendResponseHeaders(500, no.length);
                        try (OutputStream os = ex.getResponseBody()) {
                            os.write(no);
                        }
                        return;
                    }
                    if (delayMillis > 0) {
                        try {
                            Thread.sleep(delayMillis);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    byte[] out =
                            (status / 100 == 2 ? "ok" : "no such thing")
                                    .getBytes(StandardCharsets.UTF_8);
                    ex.sendResponseHeaders(status, out.length);
                    try (OutputStream os = ex.getResponseBody()) {
                        os.write(out);
                    }
                });
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** A loopback URL where nothing listens (the port of a server that was just stopped). */
    public static String refusedUrl() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        return "http://127.0.0.1:" + port;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
