package dev.deja.source.prometheus;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * A loopback Prometheus API: {@code /api/v1/query} answers what the test's function returns for the
 * PromQL (status and body), or never answers (null). Records the Authorization header of every
 * request.
 */
final class FakePrometheus implements AutoCloseable {
    record Answer(int status, String body) {}

    private final HttpServer server;
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    final Map<String, Integer> asked = new ConcurrentHashMap<>();
    private final CountDownLatch closing = new CountDownLatch(1);

    FakePrometheus(Function<String, Answer> answers) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.setExecutor(
                Executors.newCachedThreadPool(
                        r -> {
                            Thread t = new Thread(r, "fake-prometheus");
                            t.setDaemon(true);
                            return t;
                        }));
        server.createContext(
                "/api/v1/query",
                ex -> {
                    String raw = ex.getRequestURI().getRawQuery();
                    String q = "";
                    for (String kv : raw == null ? new String[0] : raw.split("&")) {
                        if (kv.startsWith("query=")) {
                            q = URLDecoder.decode(kv.substring(6), StandardCharsets.UTF_8);
                        }
                    }
                    asked.merge(q, 1, Integer::sum);
                    String auth = ex.getRequestHeaders().getFirst("Authorization");
                    authorizations.add(auth == null ? "" : auth);
                    Answer a = answers.apply(q);
                    if (a == null) { // silent: hold the exchange until the test ends
                        try {
                            closing.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        ex.close();
                        return;
                    }
                    byte[] b = a.body().getBytes(StandardCharsets.UTF_8);
                    ex.getResponseHeaders().set("Content-Type", "application/json");
                    ex.sendResponseHeaders(a.status(), b.length);
                    try (OutputStream o = ex.getResponseBody()) {
                        o.write(b);
                    }
                });
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** A success answer with a vector of (labels, value). */
    static Answer vector(Object... labelsAndValues) {
        StringBuilder sb =
                new StringBuilder(
                        "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[");
        for (int i = 0; i < labelsAndValues.length; i += 2) {
            @SuppressWarnings("unchecked")
            Map<String, String> labels = (Map<String, String>) labelsAndValues[i];
            if (i > 0) {
                sb.append(',');
            }
            sb.append("{\"metric\":{");
            int k = 0;
            for (Map.Entry<String, String> l : new TreeMap<>(labels).entrySet()) {
                sb.append(k++ > 0 ? "," : "")
                        .append('"')
                        .append(l.getKey())
                        .append("\":\"")
                        .append(l.getValue())
                        .append('"');
            }
            sb.append("},\"value\":[1764550000.123,\"")
                    .append(labelsAndValues[i + 1])
                    .append("\"]}");
        }
        return new Answer(200, sb.append("]}}").toString());
    }

    static Answer error(int status, String type, String message) {
        return new Answer(
                status,
                "{\"status\":\"error\",\"errorType\":\""
                        + type
                        + "\",\"error\":\""
                        + message
                        + "\"}");
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
    }
}
