package dev.deja.source.haproxy;

import dev.deja.model.haproxy.HaproxyRuntime;
import dev.deja.source.Http;
import dev.deja.source.TrustedCa;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLException;

/**
 * The HTTP side of {@code --haproxy-runtime}: one GET of the stats page's CSV export ({@code stats
 * uri} with {@code ;csv}) or of the built-in Prometheus exporter, told apart by the answer (the CSV
 * starts with {@code # pxname,}; the exporter's lines are {@code haproxy_*} series). HTTP/1.1 on
 * plain http (as {@code dev.deja.report.sink.Delivery}: an HTTP/2 upgrade request is refused by
 * some proxies), no redirects, the whole exchange (connect, headers, body) within the timeout, the
 * body capped at {@link HaproxyRuntimeSource#MAX_ANSWER} bytes. Basic credentials ({@code stats
 * auth}) come from {@code --haproxy-runtime-auth}, never from the URL, and are never printed.
 */
public final class HttpStats implements AutoCloseable {
    /** HTTP 401/403: the scan was not allowed to read the page (coverage DENIED, not FAILED). */
    static final class Denied extends IOException {
        Denied(String message) {
            super(message);
        }
    }

    private final long timeoutMillis;
    private final String authorization;

    /** --haproxy-runtime-ca-file, or null (the JVM's trust store). */
    private final Path caFile;

    private final ExecutorService pool;
    private final HttpClient client;

    /** {@code userPassword}: "user:password" for the stats page's {@code stats auth}, or null. */
    HttpStats(long timeoutMillis, String userPassword) {
        this(timeoutMillis, userPassword, null);
    }

    /**
     * {@code caFile}: PEM file of the CA(s) an https:// page's certificate must chain to, instead
     * of the JVM's trust store, or null.
     */
    HttpStats(long timeoutMillis, String userPassword, Path caFile) {
        this.timeoutMillis = timeoutMillis;
        this.caFile = caFile;
        this.authorization =
                userPassword == null
                        ? null
                        : "Basic "
                                + Base64.getEncoder()
                                        .encodeToString(
                                                userPassword.getBytes(StandardCharsets.UTF_8));
        this.pool =
                Executors.newCachedThreadPool(
                        r -> {
                            Thread t = new Thread(r, "deja-haproxy-http");
                            t.setDaemon(true);
                            return t;
                        });
        this.client =
                Http.client(
                                Duration.ofMillis(timeoutMillis),
                                caFile == null
                                        ? null
                                        : TrustedCa.sslContext("--haproxy-runtime-ca-file", caFile))
                        .executor(pool)
                        .build();
    }

    /**
     * Reads one URL into an instance; a failure is an IOException (or IllegalArgumentException) in
     * one line.
     */
    HaproxyRuntime.Instance read(String url) throws IOException {
        URI uri = URI.create(url);
        HttpRequest.Builder b =
                Http.request(uri, Duration.ofMillis(timeoutMillis))
                        .header("Accept", "text/plain, text/csv, */*;q=0.5")
                        .GET();
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        HttpResponse<byte[]> resp;
        try {
            resp =
                    Http.send(
                            client,
                            b.build(),
                            info ->
                                    new dev.deja.source.CappedBody(
                                            HaproxyRuntimeSource.MAX_ANSWER,
                                            HaproxyRuntimeSource.MAX_ANSWER + " bytes"),
                            Duration.ofMillis(timeoutMillis));
        } catch (Http.DeadlinePassed e) {
            throw new IOException(
                    "no complete answer within the timeout (" + timeoutMillis + " ms)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        } catch (IOException e) {
            throw failure(e, caFile);
        }
        int code = resp.statusCode();
        String body = new String(resp.body(), StandardCharsets.UTF_8);
        String type = resp.headers().firstValue("content-type").orElse("");
        if (code == 401 || code == 403) {
            throw new Denied(
                    "answered HTTP "
                            + code
                            + (authorization == null
                                    ? " (the stats page asks for a user and password: put user:password in a file and give"
                                            + " --haproxy-runtime-auth FILE)"
                                    : " (the user and password of --haproxy-runtime-auth were refused)"));
        }
        if (code / 100 != 2) {
            throw new IOException(
                    "answered HTTP "
                            + code
                            + firstLine(body)
                            + (code == 404
                                    ? " (not the stats URI with ';csv' nor the exporter's path?)"
                                    : ""));
        }
        return parse(url, type, body);
    }

    /**
     * Which answer it is, by its content: the stats CSV, the exporter's metrics, or neither
     * (one-line reason).
     */
    public static HaproxyRuntime.Instance parse(String url, String contentType, String body) {
        String head = body.stripLeading();
        if (head.startsWith("# pxname,")) {
            return HaproxyRuntime.Instance.statsCsv(url, body);
        }
        for (String l : head.split("\n", 200)) {
            if (l.startsWith("haproxy_")
                    || l.startsWith("# HELP haproxy_")
                    || l.startsWith("# TYPE haproxy_")) {
                return HaproxyRuntime.Instance.prometheus(url, body);
            }
        }
        if (head.startsWith("<") || contentType.toLowerCase(Locale.ROOT).startsWith("text/html")) {
            throw new IllegalArgumentException(
                    "an HTML page, not the stats page's CSV nor the Prometheus exporter:"
                            + " for the stats page add ';csv' to its URI (e.g. http://host:8404/stats;csv)");
        }
        throw new IllegalArgumentException(
                "neither the stats page's CSV ('# pxname,svname,...') nor HAProxy's"
                        + " Prometheus metrics (haproxy_* series)"
                        + (head.isEmpty() ? " (empty answer)" : firstLine(head)));
    }

    private static IOException failure(Throwable c, Path caFile) {
        for (Throwable t = c; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SSLException) {
                String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
                return new IOException(
                        "TLS failed: "
                                + m.lines().findFirst().orElse(m)
                                + (caFile == null
                                        ? " (a certificate signed by a private CA: give that CA's certificate"
                                                + " with --haproxy-runtime-ca-file FILE)"
                                        : " (trusting only the CA of --haproxy-runtime-ca-file "
                                                + caFile
                                                + ")"),
                        t);
            }
        }
        if (c instanceof HttpConnectTimeoutException) {
            return new IOException("cannot connect within the timeout");
        }
        if (c instanceof HttpTimeoutException) {
            return new IOException("no answer within the timeout");
        }
        if (c instanceof ConnectException) {
            return new IOException(
                    "cannot connect ("
                            + (c.getMessage() == null ? "connection refused" : c.getMessage())
                            + ")");
        }
        if (c instanceof IOException io) {
            return new IOException(
                    io.getMessage() == null ? io.getClass().getSimpleName() : io.getMessage(), io);
        }
        return new IOException(String.valueOf(c));
    }

    private static String firstLine(String body) {
        String t = body.strip().lines().findFirst().orElse("").replaceAll("\\p{Cntrl}", "?");
        if (t.isEmpty()) {
            return "";
        }
        return ": " + (t.length() > 120 ? t.substring(0, 120) + "..." : t);
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
