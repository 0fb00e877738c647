package dev.deja.report.sink;

import dev.deja.source.Http;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * Sends one HTTP request for a delivery (a notification, a metrics push) through {@link Http} (no
 * redirects, the whole exchange within the timeout) and turns every failure into one line. A failed
 * delivery never throws: the caller reports the line on stderr and keeps the report.
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
        HttpClient client = Http.client(timeout, null).build();
        // HTTP/1.1 on plain http (Http.version): HTTP/2 there means an 'Upgrade: h2c' request,
        // which proxies (kubectl proxy, some ingress controllers) reject
        HttpRequest req =
                Http.request(uri, timeout)
                        .header("Content-Type", contentType)
                        .method(
                                method,
                                HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                        .build();
        try {
            HttpResponse<String> resp =
                    Http.send(client, req, HttpResponse.BodyHandlers.ofString(), timeout);
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
            return method + " " + redact(uri) + " failed: " + shown(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return method + " " + redact(uri) + " interrupted";
        }
    }

    /**
     * A failure as {@link HttpClient#send} words it (which deja used before {@link Http#send}): its
     * class is one of the JDK's kinds (an SSLHandshakeException, an SSLException, a
     * ProtocolException, else an IOException), never the subclass underneath, with its message.
     */
    static String shown(IOException e) {
        String m = e.getMessage();
        IOException as =
                e instanceof SSLHandshakeException
                        ? new SSLHandshakeException(m)
                        : e instanceof SSLException
                                ? new SSLException(m, null)
                                : e instanceof ProtocolException
                                        ? new ProtocolException(m)
                                        : new IOException(m);
        return as.toString();
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
