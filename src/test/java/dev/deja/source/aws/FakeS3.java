package dev.deja.source.aws;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A small S3-compatible server on the loopback interface for the calls deja makes, path-style:
 * PutObject (plain or aws-chunked bodies), ListObjectsV2 with paging ({@code pageSize} keys a page,
 * continuation tokens), GetObject. Objects keep a last-modified time the test may set. {@code
 * denyWrites} answers PutObject with 403 AccessDenied as S3 does; unknown buckets are 404
 * NoSuchBucket.
 */
public final class FakeS3 implements AutoCloseable {
    // The bytes as stored, handed out as they are; an Obj is never compared or hashed, so the
    // array's identity equals/hashCode do not matter.
    @SuppressWarnings("ArrayRecordComponent")
    public record Obj(byte[] body, Instant lastModified, String contentType) {}

    private final HttpServer server;
    public final Map<String, ConcurrentSkipListMap<String, Obj>> buckets =
            new ConcurrentHashMap<>();

    /** Requests seen: "PUT /bucket/key", "GET /bucket?list-type=2...". */
    public final List<String> requests = new CopyOnWriteArrayList<>();

    public volatile int pageSize = 1000;

    /**
     * A hostile store: when set, every list page says it is truncated and gives this same
     * NextContinuationToken.
     */
    public volatile String stuckToken;

    public volatile boolean denyWrites;

    public FakeS3(String... bucketNames) throws IOException {
        for (String b : bucketNames) {
            buckets.put(b, new ConcurrentSkipListMap<>());
        }
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public void put(String bucket, String key, String body, Instant lastModified) {
        buckets.get(bucket)
                .put(
                        key,
                        new Obj(
                                body.getBytes(StandardCharsets.UTF_8),
                                lastModified,
                                "application/json"));
    }

    public String body(String bucket, String key) {
        Obj o = buckets.get(bucket).get(key);
        return o == null ? null : new String(o.body(), StandardCharsets.UTF_8);
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getPath(); // decoded
            String query = ex.getRequestURI().getRawQuery();
            requests.add(ex.getRequestMethod() + " " + path + (query == null ? "" : "?" + query));
            byte[] in = ex.getRequestBody().readAllBytes();
            String p = path.startsWith("/") ? path.substring(1) : path;
            int slash = p.indexOf('/');
            String bucket = slash < 0 ? p : p.substring(0, slash);
            String key = slash < 0 ? "" : p.substring(slash + 1);
            ConcurrentSkipListMap<String, Obj> objects = buckets.get(bucket);
            if (objects == null) {
                error(ex, 404, "NoSuchBucket", "The specified bucket does not exist");
                return;
            }
            Map<String, String> q = query(query);
            switch (ex.getRequestMethod()) {
                case "PUT" -> {
                    if (denyWrites) {
                        error(ex, 403, "AccessDenied", "Access Denied");
                        return;
                    }
                    String enc = ex.getRequestHeaders().getFirst("Content-Encoding");
                    String sha = ex.getRequestHeaders().getFirst("x-amz-content-sha256");
                    boolean chunked =
                            (enc != null && enc.contains("aws-chunked"))
                                    || (sha != null && sha.startsWith("STREAMING-"));
                    objects.put(
                            key,
                            new Obj(
                                    chunked ? dechunk(in) : in,
                                    Instant.now(),
                                    ex.getRequestHeaders().getFirst("Content-Type")));
                    ex.getResponseHeaders()
                            .add("ETag", "\"" + Integer.toHexString(Arrays.hashCode(in)) + "\"");
                    ex.sendResponseHeaders(200, -1);
                }
                case "GET" -> {
                    if (key.isEmpty() && "2".equals(q.get("list-type"))) {
                        list(ex, bucket, objects, q);
                        return;
                    }
                    Obj o = objects.get(key);
                    if (o == null) {
                        error(ex, 404, "NoSuchKey", "The specified key does not exist.");
                        return;
                    }
                    ex.getResponseHeaders()
                            .add(
                                    "Content-Type",
                                    o.contentType() == null
                                            ? "application/octet-stream"
                                            : o.contentType());
                    ex.getResponseHeaders()
                            .add(
                                    "Last-Modified",
                                    DateTimeFormatter.RFC_1123_DATE_TIME.format(
                                            o.lastModified().atZone(ZoneOffset.UTC)));
                    ex.sendResponseHeaders(200, o.body().length == 0 ? -1 : o.body().length);
                    try (OutputStream os = ex.getResponseBody()) {
                        os.write(o.body());
                    }
                }
                default -> error(ex, 405, "MethodNotAllowed", "not faked");
            }
        }
    }

    private void list(
            HttpExchange ex,
            String bucket,
            ConcurrentSkipListMap<String, Obj> objects,
            Map<String, String> q)
            throws IOException {
        String prefix = q.getOrDefault("prefix", "");
        String after = q.get("continuation-token");
        List<Map.Entry<String, Obj>> page = new ArrayList<>();
        boolean truncated = false;
        for (Map.Entry<String, Obj> e :
                (after == null ? objects : objects.tailMap(after, false)).entrySet()) {
            if (!e.getKey().startsWith(prefix)) {
                continue;
            }
            if (page.size() == pageSize) {
                truncated = true;
                break;
            }
            page.add(e);
        }
        if (stuckToken != null) {
            truncated = true;
        }
        StringBuilder x =
                new StringBuilder(
                        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                + "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
        x.append("<Name>")
                .append(bucket)
                .append("</Name><Prefix>")
                .append(esc(prefix))
                .append("</Prefix>");
        x.append("<KeyCount>")
                .append(page.size())
                .append("</KeyCount><MaxKeys>")
                .append(pageSize)
                .append("</MaxKeys>");
        x.append("<IsTruncated>").append(truncated).append("</IsTruncated>");
        if (after != null) {
            x.append("<ContinuationToken>").append(esc(after)).append("</ContinuationToken>");
        }
        if (truncated && stuckToken != null) {
            x.append("<NextContinuationToken>")
                    .append(esc(stuckToken))
                    .append("</NextContinuationToken>");
        } else if (truncated) {
            x.append("<NextContinuationToken>")
                    .append(esc(page.get(page.size() - 1).getKey()))
                    .append("</NextContinuationToken>");
        }
        for (Map.Entry<String, Obj> e : page) {
            x.append("<Contents><Key>")
                    .append(esc(e.getKey()))
                    .append("</Key><LastModified>")
                    .append(e.getValue().lastModified().truncatedTo(ChronoUnit.MILLIS))
                    .append("</LastModified><ETag>&quot;0&quot;</ETag><Size>")
                    .append(e.getValue().body().length)
                    .append("</Size><StorageClass>STANDARD</StorageClass></Contents>");
        }
        x.append("</ListBucketResult>");
        send(ex, 200, x.toString());
    }

    private static void error(HttpExchange ex, int status, String code, String message)
            throws IOException {
        send(
                ex,
                status,
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>"
                        + code
                        + "</Code><Message>"
                        + message
                        + "</Message><RequestId>fake</RequestId></Error>");
    }

    private static void send(HttpExchange ex, int status, String xml) throws IOException {
        byte[] b = xml.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/xml");
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(b);
        }
    }

    /** aws-chunked: "hex-size[;chunk-signature=...]\r\n data \r\n" ... "0\r\n" [trailers]. */
    static byte[] dechunk(byte[] in) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (i < in.length) {
            int eol = indexOf(in, i);
            String header = new String(in, i, eol - i, StandardCharsets.US_ASCII);
            int semi = header.indexOf(';');
            int size =
                    Integer.parseInt((semi < 0 ? header : header.substring(0, semi)).strip(), 16);
            if (size == 0) {
                break;
            }
            out.write(in, eol + 2, size);
            i = eol + 2 + size + 2;
        }
        return out.toByteArray();
    }

    private static int indexOf(byte[] b, int from) {
        for (int i = from; i + 1 < b.length; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n') {
                return i;
            }
        }
        return b.length;
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> m = new HashMap<>();
        if (raw == null) {
            return m;
        }
        for (String kv : raw.split("&")) {
            int eq = kv.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? kv : kv.substring(0, eq), StandardCharsets.UTF_8);
            String v =
                    eq < 0 ? "" : URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8);
            m.put(k, v);
        }
        return m;
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
