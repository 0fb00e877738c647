package dev.deja.report.sink;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Sends one HTTP request for a delivery (a notification, a metrics push) and turns every failure
 * into one line. A failed delivery never throws: the caller reports the line on stderr and keeps
 * the report.
 */
public final class Delivery {
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    private Delivery() {}

    /** Null when delivered (2xx), else why not, in one line. */
    public static String send(
            String method, String url, String contentType, String body, Duration timeout) {
        URI uri;
        try {
            uri = URI.create(url);
            if (uri.getScheme() == null
                    || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                    || uri.getHost() == null) {
                return "not an http(s) URL: " + url;
            }
        } catch (IllegalArgumentException e) {
            return "not a URL: " + url;
        }
        HttpClient client =
                HttpClient.newBuilder()
                        .connectTimeout(timeout)
                        .followRedirects(HttpClient.Redirect.NEVER)
                        .build();
        // HTTP/1.1 on plain http: HTTP/2 there means an 'Upgrade: h2c' request, which proxies
        // (kubectl proxy, some
        // ingress controllers) reject; over TLS HTTP/2 is negotiated without one
        HttpRequest req =
                HttpRequest.newBuilder(uri)
                        .timeout(timeout)
                        .version(
                                uri.getScheme().equals("http")
                                        ? HttpClient.Version.HTTP_1_1
                                        : HttpClient.Version.HTTP_2)
                        .header("Content-Type", contentType)
                        .header("User-Agent", "deja")
                        .method(
                                method,
                                HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                        .build();
        try {
            HttpResponse<String> resp = client.send(req, HttpResponse.BodyHandlers.ofString());
            int code = resp.statusCode();
            if (code / 100 == 2) {
                return null;
            }
            String text = resp.body() == null ? "" : resp.body().strip();
            text = text.lines().findFirst().orElse("");
            if (text.length() > 200) {
                text = text.substring(0, 200) + "...";
            }
            return method
                    + " "
                    + redact(uri)
                    + " answered HTTP "
                    + code
                    + (text.isEmpty() ? "" : ": " + text);
        } catch (HttpTimeoutException e) {
            return method
                    + " "
                    + redact(uri)
                    + " timed out after "
                    + (timeout.toMillis() % 1000 == 0
                            ? timeout.toSeconds() + " s"
                            : timeout.toMillis() + " ms");
        } catch (ConnectException e) {
            return method
                    + " "
                    + redact(uri)
                    + " failed: cannot connect ("
                    + (e.getMessage() == null ? "connection refused" : e.getMessage())
                    + ")";
        } catch (IOException e) {
            return method + " " + redact(uri) + " failed: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return method + " " + redact(uri) + " interrupted";
        }
    }

    /**
     * The URL without what may be secret: Slack-style webhook URLs carry their token in the path,
     * so only the scheme, host and port are shown.
     */
    static String redact(URI uri) {
        return uri.getScheme()
                + "://"
                + uri.getHost()
                + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
                + "/...";
    }
}
