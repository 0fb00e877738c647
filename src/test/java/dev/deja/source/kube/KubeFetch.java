package dev.deja.source.kube;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Benchmark reference in its own JVM: GETs the given list paths from an API server with the JDK
 * HttpClient ({@code limit} + {@code continue}, all lists in parallel), reading the bodies without
 * parsing them, and prints the bytes read. It depends on nothing but the JDK, so its process costs
 * what a minimal Java client costs.
 *
 * <p>{@code java -cp target/test-classes dev.deja.source.kube.KubeFetch BASE LIMIT PATH...}
 */
public final class KubeFetch {
    static final Pattern CONTINUE = Pattern.compile("\"continue\"\\s*:\\s*\"([^\"]+)\"");

    private KubeFetch() {}

    public static void main(String[] args) throws Exception {
        String base = args[0];
        int limit = Integer.parseInt(args[1]);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, args.length - 2));
        try {
            List<Future<Long>> fs = new ArrayList<>();
            for (int i = 2; i < args.length; i++) {
                String path = args[i];
                fs.add(
                        pool.submit(
                                () -> {
                                    long n = 0;
                                    String token = null;
                                    do {
                                        String url =
                                                base
                                                        + path
                                                        + "?limit="
                                                        + limit
                                                        + (token == null
                                                                ? ""
                                                                : "&continue="
                                                                        + URLEncoder.encode(
                                                                                token,
                                                                                StandardCharsets
                                                                                        .UTF_8));
                                        HttpResponse<byte[]> resp =
                                                http.send(
                                                        HttpRequest.newBuilder(URI.create(url))
                                                                .header(
                                                                        "Authorization",
                                                                        "Bearer not-a-real-token")
                                                                .GET()
                                                                .build(),
                                                        HttpResponse.BodyHandlers.ofByteArray());
                                        if (resp.statusCode() != 200) {
                                            throw new IOException(
                                                    url + ": HTTP " + resp.statusCode());
                                        }
                                        byte[] body = resp.body();
                                        n += body.length;
                                        Matcher m =
                                                CONTINUE.matcher(
                                                        new String(
                                                                body,
                                                                0,
                                                                Math.min(body.length, 512),
                                                                StandardCharsets.UTF_8));
                                        token = m.find() ? m.group(1) : null;
                                    } while (token != null);
                                    return n;
                                }));
            }
            long total = 0;
            for (Future<Long> f : fs) {
                total += f.get();
            }
            System.out.println(total);
        } finally {
            pool.shutdown();
        }
        // as deja does at exit: end the client's selector thread, or the JVM waits 300 ms for it
        // (Java 17)
        Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().endsWith("-SelectorManager"))
                .forEach(Thread::interrupt);
    }
}
