package dev.deja.prove;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The backend every {@code server} of the sandbox points at: the JDK's HTTP server on 127.0.0.1
 * that answers 200 to any request after a configurable service time, on a bounded pool of threads.
 * It never reaches the user's servers.
 */
final class StubBackend implements AutoCloseable {
    private static final byte[] BODY = "ok\n".getBytes(StandardCharsets.US_ASCII);
    private final HttpServer server;
    private final ExecutorService pool;

    StubBackend(long serviceTimeMs, int threads) throws IOException {
        server =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        pool =
                new ThreadPoolExecutor(
                        threads,
                        threads,
                        30,
                        TimeUnit.SECONDS,
                        new LinkedBlockingQueue<>(),
                        r -> {
                            Thread t = new Thread(r, "deja-prove-stub");
                            t.setDaemon(true);
                            return t;
                        });
        server.setExecutor(pool);
        server.createContext(
                "/",
                exchange -> {
                    try (InputStream in = exchange.getRequestBody();
                            OutputStream out = exchange.getResponseBody()) {
                        in.readAllBytes();
                        if (serviceTimeMs > 0) {
                            try {
                                Thread.sleep(serviceTimeMs);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                        exchange.getResponseHeaders().set("Content-Type", "text/plain");
                        exchange.sendResponseHeaders(200, BODY.length);
                        out.write(BODY);
                    }
                });
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
