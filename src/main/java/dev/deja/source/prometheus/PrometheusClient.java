package dev.deja.source.prometheus;

import dev.deja.engine.InputException;
import dev.deja.model.prometheus.PrometheusPeaks;
import dev.deja.source.Http;
import dev.deja.source.TrustedCa;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Instant queries against a Prometheus-compatible HTTP API ({@code GET /api/v1/query}). HTTP/1.1 on
 * plain http (as {@link dev.deja.report.sink.Delivery}), no redirects, every request bounded by the
 * injected timeout, answers read up to {@link #MAX_ANSWER} bytes. Credentials come from files (a
 * bearer token, or {@code user:password}), never from the command line; a CA file (PEM) is trusted
 * for https.
 */
public final class PrometheusClient {
    static final int MAX_ANSWER = 64 * 1024 * 1024;
    private final URI base;
    private final String authorization;
    private final SSLContext ssl;
    private HttpClient http;
    private final Duration timeout;

    /**
     * A query that did not give a vector: why, in one line, and whether it was refused (401/403).
     */
    public static final class QueryException extends Exception {
        private static final long serialVersionUID = 1L;
        private final boolean denied;
        private final boolean unreachable;

        public QueryException(String message, boolean denied, boolean unreachable) {
            super(message);
            this.denied = denied;
            this.unreachable = unreachable;
        }

        public boolean denied() {
            return denied;
        }

        /**
         * The server could not be reached at all (connect, TLS): asking further queries is
         * pointless.
         */
        public boolean unreachable() {
            return unreachable;
        }
    }

    public PrometheusClient(
            String url, Path bearerTokenFile, Path basicAuthFile, Path caFile, Duration timeout) {
        this.base = base(url);
        if (bearerTokenFile != null && basicAuthFile != null) {
            throw new InputException(
                    "--prometheus-bearer-token-file and --prometheus-basic-auth-file exclude each other");
        }
        if (bearerTokenFile != null) {
            String t = read(bearerTokenFile, "--prometheus-bearer-token-file").strip();
            if (t.isEmpty() || t.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
                throw new InputException(
                        "--prometheus-bearer-token-file "
                                + bearerTokenFile
                                + ": expected one token (printable characters, no spaces)");
            }
            authorization = "Bearer " + t;
        } else if (basicAuthFile != null) {
            String t =
                    read(basicAuthFile, "--prometheus-basic-auth-file")
                            .lines()
                            .findFirst()
                            .orElse("")
                            .strip();
            if (t.indexOf(':') <= 0) {
                throw new InputException(
                        "--prometheus-basic-auth-file "
                                + basicAuthFile
                                + ": expected user:password on the first line");
            }
            authorization =
                    "Basic "
                            + Base64.getEncoder()
                                    .encodeToString(t.getBytes(StandardCharsets.UTF_8));
        } else {
            authorization = null;
        }
        this.ssl =
                caFile != null
                        ? sslContext(caFile)
                        : base.getScheme().equals("http") ? plainHttp() : null;
        this.timeout = timeout;
    }

    /**
     * The HTTP client, built on first use. For a plain http server it gets a TLS context that
     * trusts nothing: the JDK client otherwise initialises the default one at construction, parsing
     * the whole CA store (about a second of a small machine's CPU) for a connection that never uses
     * TLS.
     */
    private synchronized HttpClient http() {
        if (http == null) {
            http = Http.client(timeout, ssl).build();
        }
        return http;
    }

    private static SSLContext plainHttp() {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(
                    new KeyManager[0],
                    new TrustManager[] {
                        new X509TrustManager() {
                            @Override
                            public void checkClientTrusted(X509Certificate[] chain, String authType)
                                    throws CertificateException {
                                throw new CertificateException("no TLS on a plain http server");
                            }

                            @Override
                            public void checkServerTrusted(X509Certificate[] chain, String authType)
                                    throws CertificateException {
                                throw new CertificateException("no TLS on a plain http server");
                            }

                            @Override
                            public X509Certificate[] getAcceptedIssuers() {
                                return new X509Certificate[0];
                            }
                        }
                    },
                    null);
            return ctx;
        } catch (GeneralSecurityException e) {
            return null; // the JDK's default context then
        }
    }

    /**
     * Credentials would go over plain http to another host (not refused: a trusted network may
     * carry them).
     */
    public boolean plainCredentials() {
        return authorization != null
                && base.getScheme().equals("http")
                && !loopback(base.getHost());
    }

    private static boolean loopback(String host) {
        return host.equals("localhost")
                || host.startsWith("127.")
                || host.equals("[::1]")
                || host.equals("::1");
    }

    /** http(s)://host[:port][/prefix], without query, fragment or credentials; else exit 2. */
    public static URI base(String url) {
        URI u;
        try {
            u = URI.create(url.strip());
        } catch (IllegalArgumentException e) {
            throw new InputException(
                    "--prometheus " + url + ": not a URL (expected http(s)://host:port)");
        }
        if (u.getScheme() == null
                || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
                || u.getHost() == null) {
            throw new InputException(
                    "--prometheus " + url + ": expected an http(s)://host:port URL");
        }
        if (u.getRawUserInfo() != null) {
            throw new InputException(
                    "--prometheus: credentials in the URL are not accepted (they would show in the"
                            + " process list and the report): use --prometheus-basic-auth-file");
        }
        if (u.getRawQuery() != null || u.getRawFragment() != null) {
            throw new InputException(
                    "--prometheus "
                            + url
                            + ": the URL of the server (or its path prefix), without"
                            + " a query");
        }
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (path.endsWith("/api/v1/query")) {
            path = path.substring(0, path.length() - "/api/v1/query".length());
        }
        return URI.create(u.getScheme() + "://" + u.getRawAuthority() + path);
    }

    /** The server as shown in reports. */
    public String display() {
        return base.toString();
    }

    private static String read(Path f, String option) {
        try {
            return Files.readString(f, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            throw new InputException(
                    option
                            + " "
                            + f
                            + ": cannot read: "
                            + (e.getMessage() == null
                                    ? e.getClass().getSimpleName()
                                    : e.getMessage()));
        }
    }

    static SSLContext sslContext(Path caFile) {
        return TrustedCa.sslContext("--prometheus-ca-file", caFile);
    }

    /** Runs an instant query and returns its vector: labels (without __name__) -> value. */
    public List<PrometheusPeaks.Sample> query(String promql) throws QueryException {
        URI uri =
                URI.create(
                        base
                                + "/api/v1/query?query="
                                + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        HttpRequest.Builder rb =
                Http.request(uri, timeout).GET().header("Accept", "application/json");
        if (authorization != null) {
            rb.header("Authorization", authorization);
        }
        int code;
        byte[] body;
        try {
            // one deadline for the whole exchange, body included (Http.send)
            HttpResponse<byte[]> resp =
                    Http.send(
                            http(),
                            rb.build(),
                            info ->
                                    new dev.deja.source.CappedBody(
                                            MAX_ANSWER, MAX_ANSWER / (1024 * 1024) + " MiB"),
                            timeout);
            code = resp.statusCode();
            body = resp.body();
        } catch (HttpTimeoutException e) {
            throw new QueryException("no answer within " + seconds(timeout), false, false);
        } catch (ConnectException e) {
            throw new QueryException(
                    "cannot connect to "
                            + display()
                            + " ("
                            + (e.getMessage() == null ? "connection refused" : e.getMessage())
                            + ")",
                    false,
                    true);
        } catch (SSLException e) {
            throw new QueryException(
                    "TLS with "
                            + display()
                            + " failed: "
                            + e.getMessage()
                            + " (--prometheus-ca-file names the CA to trust)",
                    false,
                    true);
        } catch (IOException e) {
            String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw new QueryException(
                    "cannot read from " + display() + ": " + m,
                    false,
                    e instanceof UnknownHostException
                            || e.getCause() instanceof UnknownHostException);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueryException("interrupted", false, false);
        }
        return parse(code, body);
    }

    static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    static byte[] bounded(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[64 * 1024];
        int n;
        while ((n = in.read(buf)) >= 0) {
            out.write(buf, 0, n);
            if (out.size() > MAX_ANSWER) {
                throw new IOException("the answer exceeds " + MAX_ANSWER / (1024 * 1024) + " MiB");
            }
        }
        return out.toByteArray();
    }

    static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * The vector of a /api/v1/query answer, or why there is none (HTTP status, Prometheus' error,
     * not a vector).
     */
    static List<PrometheusPeaks.Sample> parse(int code, byte[] body) throws QueryException {
        String text = new String(body, StandardCharsets.UTF_8);
        JsonNode root = null;
        try {
            root = JSON.readTree(text);
        } catch (JacksonException e) {
            // below: the status says more
        }
        if (code == 401 || code == 403) {
            throw new QueryException(
                    "HTTP "
                            + code
                            + (code == 401
                                    ? " (unauthorised: check the bearer token or basic"
                                            + " auth file)"
                                    : " (forbidden)")
                            + snippet(root, text),
                    true,
                    false);
        }
        if (root != null && "error".equals(root.path("status").asString(""))) {
            throw new QueryException(
                    "HTTP "
                            + code
                            + ": "
                            + root.path("errorType").asString("error")
                            + ": "
                            + oneLine(root.path("error").asString("")),
                    false,
                    false);
        }
        if (code / 100 != 2) {
            throw new QueryException("HTTP " + code + snippet(root, text), false, false);
        }
        if (root == null || !"success".equals(root.path("status").asString(""))) {
            throw new QueryException(
                    "not a Prometheus API answer (HTTP " + code + "): " + oneLine(text),
                    false,
                    false);
        }
        JsonNode data = root.path("data");
        String type = data.path("resultType").asString("");
        if (!type.equals("vector")) {
            throw new QueryException(
                    "the answer is a "
                            + (type.isEmpty() ? "missing result" : type)
                            + ", not an instant vector",
                    false,
                    false);
        }
        List<PrometheusPeaks.Sample> out = new ArrayList<>();
        for (JsonNode r : data.path("result")) {
            Map<String, String> labels = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> l : r.path("metric").properties()) {
                if (!l.getKey().equals("__name__")) {
                    labels.put(l.getKey(), l.getValue().asString(""));
                }
            }
            JsonNode v = r.path("value");
            if (!v.isArray() || v.size() != 2) {
                throw new QueryException(
                        "a series without a [time, value] pair: " + oneLine(r.toString()),
                        false,
                        false);
            }
            double d;
            try {
                d = Double.parseDouble(v.get(1).asString(""));
            } catch (NumberFormatException e) {
                throw new QueryException(
                        "a value that is not a number: " + oneLine(v.get(1).toString()),
                        false,
                        false);
            }
            out.add(new PrometheusPeaks.Sample(labels, d));
        }
        return out;
    }

    private static String snippet(JsonNode root, String text) {
        String m =
                root != null && root.path("error").isString()
                        ? root.path("error").asString()
                        : text;
        m = oneLine(m);
        return m.isEmpty() ? "" : ": " + m;
    }

    static String oneLine(String s) {
        String t = s.strip().lines().findFirst().orElse("").replaceAll("\\p{Cntrl}", "?");
        return t.length() <= 200 ? t : t.substring(0, 197) + "...";
    }
}
