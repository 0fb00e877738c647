package dev.deja.source;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;

/**
 * The one way deja sets up the JDK HTTP client and bounds a request (Prometheus, HAProxy's stats
 * page, the report deliveries; the Kubernetes clients get the same redirect policy through {@link
 * #noRedirects}):
 *
 * <ul>
 *   <li>the connect timeout is the caller's timeout, and redirects are never followed (a redirect
 *       would carry the request's credentials to whatever host it names; deja reports it instead);
 *   <li>HTTP/1.1 on plain {@code http://}, HTTP/2 over TLS: the JDK client's HTTP/2 on cleartext
 *       sends {@code Upgrade: h2c}, which proxies (kubectl proxy, some ingress controllers) reject;
 *       over TLS HTTP/2 is negotiated by ALPN without one;
 *   <li>one deadline for the whole exchange, body included ({@link #send}): the request timeout of
 *       the JDK client covers only the headers, and a server that then sends a byte every few
 *       seconds would hold the scan without end.
 * </ul>
 */
public final class Http {
    private Http() {}

    /**
     * The JDK client's builder with this connect timeout, no redirects and, when not null, this TLS
     * context; callers may add to it (an executor) before {@code build()}.
     */
    public static HttpClient.Builder client(Duration connectTimeout, SSLContext ssl) {
        HttpClient.Builder b = noRedirects(HttpClient.newBuilder().connectTimeout(connectTimeout));
        if (ssl != null) {
            b.sslContext(ssl);
        }
        return b;
    }

    /** Redirects off on a builder made elsewhere (Fabric8's JDK client factory). */
    public static HttpClient.Builder noRedirects(HttpClient.Builder b) {
        return b.followRedirects(HttpClient.Redirect.NEVER);
    }

    /**
     * A request to {@code uri} with this timeout, deja's User-Agent and the HTTP version for its
     * scheme.
     */
    public static HttpRequest.Builder request(URI uri, Duration timeout) {
        return HttpRequest.newBuilder(uri)
                .timeout(timeout)
                .version(version(uri))
                .header("User-Agent", "deja");
    }

    /** HTTP/1.1 on plain http (no {@code Upgrade: h2c}), HTTP/2 over TLS. */
    public static HttpClient.Version version(URI uri) {
        return "http".equalsIgnoreCase(uri.getScheme())
                ? HttpClient.Version.HTTP_1_1
                : HttpClient.Version.HTTP_2;
    }

    /** The exchange outlived its deadline (a subclass of the JDK's timeout: callers may tell). */
    public static final class DeadlinePassed extends HttpTimeoutException {
        private static final long serialVersionUID = 1L;

        public DeadlinePassed(Duration deadline) {
            super("deadline (" + deadline.toMillis() + " ms)");
        }
    }

    /**
     * Sends the request and waits for the whole answer, body included, at most {@code deadline};
     * past it the exchange is cancelled and {@link DeadlinePassed} thrown. Any other failure is the
     * client's own {@link IOException} (a cause that is not one is wrapped, its text the message).
     */
    public static <T> HttpResponse<T> send(
            HttpClient client,
            HttpRequest request,
            HttpResponse.BodyHandler<T> body,
            Duration deadline)
            throws IOException, InterruptedException {
        CompletableFuture<HttpResponse<T>> sent = client.sendAsync(request, body);
        try {
            return sent.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            sent.cancel(true);
            throw new DeadlinePassed(deadline);
        } catch (InterruptedException e) {
            sent.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException(String.valueOf(e.getCause()), e.getCause());
        }
    }
}
