package dev.deja.report.sink;

import dev.deja.engine.InputException;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import dev.deja.report.BaselineDiff;
import dev.deja.report.HtmlReporter;
import dev.deja.report.JsonReporter;
import dev.deja.report.Report;
import dev.deja.report.TextReporter;
import dev.deja.source.Retry;
import dev.deja.source.ScanRequest;
import dev.deja.source.kube.KubeClients;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import java.util.zip.GZIPOutputStream;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code --report-configmap NAMESPACE/NAME}: keeps the latest report in a ConfigMap, under {@value
 * #JSON_KEY} (the JSON report, also what {@code --baseline configmap:NAMESPACE/NAME} reads back)
 * and {@value #SUMMARY_KEY} (the summary line, counts by severity, what is new). Labelled {@code
 * app.kubernetes.io/managed-by: deja} and annotated with the scan's time ({@value #LAST_SCAN}).
 *
 * <p>An existing ConfigMap has its data replaced (get + update, which the shipped Role allows on
 * the one resourceName, read again on a conflict, retried on 429, 5xx and connection failures as
 * {@link #RETRY} says); an absent one is created (which needs {@code create} on configmaps in that
 * namespace). The data must fit the API server's 1 MiB limit for a ConfigMap: the JSON is
 * pretty-printed when that fits, else compact, else cut to the first findings that fit (most severe
 * first) with {@code "truncated": true} and a {@code truncation} object giving the counts; it is
 * always a complete, valid document.
 *
 * <p>Loaded by name from the CLI ({@code dev.deja.cli.Outputs}) only when the option is used, so no
 * other run loads Fabric8's typed client. Failures (403, unreachable API) surface as one-line
 * {@link IOException}s.
 */
public final class ConfigMapReportSink implements ReportSink {
    public static final String JSON_KEY = "deja.json";
    public static final String SUMMARY_KEY = "summary.txt";

    /**
     * binaryData: the HTML report, gzip-compressed ({@code deja report --from-configmap NS/NAME}
     * reads it back).
     */
    public static final String HTML_KEY = "report.html.gz";

    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    public static final String LAST_SCAN = "deja.dev/last-scan";
    public static final String FINDINGS = "deja.dev/findings";
    public static final String TRUNCATED = "deja.dev/truncated";

    /**
     * The API server refuses a ConfigMap whose data (keys and values) exceeds 1 MiB; keep a margin.
     */
    public static final int DEFAULT_LIMIT = 1024 * 1024 - 8 * 1024;

    static final int WRITE_RETRIES = 2;

    /**
     * The write (and the baseline's read): deja's retry policy with the numbers Fabric8's own
     * retries had here ({@value #WRITE_RETRIES} retries, back-off from 500 ms), for 429, 5xx and
     * connection failures; Fabric8's retries stay off ({@link KubeClients#config}).
     */
    static final Retry RETRY = Retry.DEFAULT.with(WRITE_RETRIES + 1, 500);

    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private final String namespace;
    private final String name;
    private final Config config;
    private final int limitBytes;

    /**
     * Resolves the kubeconfig now (a bad one is an input error before the scan); contacts nothing.
     */
    public ConfigMapReportSink(String namespace, String name, ScanRequest request) {
        this(namespace, name, request, DEFAULT_LIMIT);
    }

    ConfigMapReportSink(String namespace, String name, ScanRequest request, int limitBytes) {
        this.namespace = namespace;
        this.name = name;
        this.limitBytes = limitBytes;
        this.config = kubeConfig(request, "--report-configmap " + namespace + "/" + name);
    }

    @Override
    public String describe() {
        return "configmap " + namespace + "/" + name;
    }

    @Override
    public void deliver(Report report) throws IOException {
        Content content = content(report, limitBytes, namespace + "/" + name);
        Map<String, String> data = content.data();
        Instant at = report.run() != null ? report.run().startedAt() : Instant.now();
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put(LAST_SCAN, at.truncatedTo(ChronoUnit.SECONDS).toString());
        annotations.put(FINDINGS, Integer.toString(report.result().findings().size()));
        annotations.put("deja.dev/version", report.toolVersion());
        boolean truncated = MAPPER.readTree(data.get(JSON_KEY)).path("truncated").asBoolean(false);
        try (KubernetesClient client = KubeClients.create(config)) {
            for (int attempt = 0; ; attempt++) {
                try {
                    retried(
                            () -> {
                                write(client, content, annotations, truncated);
                                return null;
                            });
                    return;
                } catch (KubernetesClientException e) {
                    if (e.getCode() == 409
                            && attempt < 3) { // changed or created meanwhile: read it again
                        continue;
                    }
                    throw new IOException(why(e), e);
                }
            }
        }
    }

    /**
     * The call's value, the call made again as {@link #RETRY} says while it fails with 429, a 5xx
     * or a connection failure; then its last failure.
     */
    static <T> T retried(Supplier<T> call) throws InterruptedIOException {
        Retry.Attempts tries = RETRY.start();
        while (true) {
            try {
                return call.get();
            } catch (KubernetesClientException e) {
                boolean retryable =
                        e.getCode() > 0 ? Retry.retryable(e.getCode()) : Retry.connectionFailure(e);
                if (!retryable || !again(tries, e)) {
                    throw e;
                }
            }
        }
    }

    /** Waits for one more attempt, honouring the Status's retryAfterSeconds; false when none. */
    private static boolean again(Retry.Attempts tries, KubernetesClientException e)
            throws InterruptedIOException {
        Integer after =
                e.getStatus() == null || e.getStatus().getDetails() == null
                        ? null
                        : e.getStatus().getDetails().getRetryAfterSeconds();
        try {
            return tries.again(after == null ? null : after.toString());
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted");
        }
    }

    private void write(
            KubernetesClient client,
            Content content,
            Map<String, String> annotations,
            boolean truncated) {
        Map<String, String> data = content.data();
        Map<String, String> binary = content.binaryData();
        ConfigMap current = client.configMaps().inNamespace(namespace).withName(name).get();
        if (current == null) {
            ConfigMap cm =
                    new ConfigMapBuilder()
                            .withNewMetadata()
                            .withNamespace(namespace)
                            .withName(name)
                            .addToLabels(MANAGED_BY, "deja")
                            .addToLabels("app.kubernetes.io/name", "deja")
                            .addToAnnotations(annotations)
                            .endMetadata()
                            .withData(data)
                            .withBinaryData(binary.isEmpty() ? null : binary)
                            .build();
            if (truncated) {
                cm.getMetadata().getAnnotations().put(TRUNCATED, "true");
            }
            client.configMaps().inNamespace(namespace).resource(cm).create();
            return;
        }
        Map<String, String> labels =
                new LinkedHashMap<>(
                        current.getMetadata().getLabels() == null
                                ? Map.of()
                                : current.getMetadata().getLabels());
        labels.put(MANAGED_BY, "deja");
        Map<String, String> ann =
                new LinkedHashMap<>(
                        current.getMetadata().getAnnotations() == null
                                ? Map.of()
                                : current.getMetadata().getAnnotations());
        ann.putAll(annotations);
        if (truncated) {
            ann.put(TRUNCATED, "true");
        } else {
            ann.remove(TRUNCATED);
        }
        current.getMetadata().setLabels(labels);
        current.getMetadata().setAnnotations(ann);
        current.setData(data); // replaces every key: the ConfigMap holds only deja's report
        current.setBinaryData(binary.isEmpty() ? null : binary);
        // PUT with the resourceVersion just read: a concurrent change gives 409 and a fresh attempt
        client.configMaps().inNamespace(namespace).resource(current).update();
    }

    private String why(KubernetesClientException e) {
        int code = e.getCode();
        String msg = message(e);
        if (code == 403) {
            return "forbidden (the service account needs get and update on configmaps/"
                    + name
                    + " in namespace "
                    + namespace
                    + ", and create when it does not exist yet): "
                    + msg;
        }
        if (code <= 0) {
            return "cannot reach the API server " + config.getMasterUrl() + ": " + msg;
        }
        return "HTTP " + code + ": " + msg;
    }

    /**
     * The cluster's client configuration as {@link KubeClients#config} resolves it; its errors
     * named by {@code option} ("--report-configmap deja/deja-report: ...") instead of --cluster.
     */
    static Config kubeConfig(ScanRequest request, String option) {
        try {
            return KubeClients.config(request);
        } catch (InputException e) {
            String m =
                    e.getMessage().startsWith("--cluster: ")
                            ? e.getMessage().substring(11)
                            : e.getMessage();
            throw new InputException(option + ": " + m);
        }
    }

    /**
     * The API server's Status message, or the root cause (connection refused, timeout), on one
     * line.
     */
    static String message(KubernetesClientException e) {
        if (e.getCode() > 0 && e.getStatus() != null && e.getStatus().getMessage() != null) {
            String msg = e.getStatus().getMessage();
            return msg.lines().findFirst().orElse(msg).strip();
        }
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof ConnectException) {
                return "connection refused";
            }
            if (t instanceof HttpTimeoutException || t instanceof SocketTimeoutException) {
                return "timed out";
            }
            if (t instanceof UnknownHostException) {
                return "unknown host " + t.getMessage();
            }
        }
        return KubeClients.rootMessage(e.getCause() != null ? e.getCause() : e);
    }

    // ------------------------------------------------------------------ content

    /** A ConfigMap's content: text data, and binaryData (base64, as the API carries it). */
    record Content(Map<String, String> data, Map<String, String> binaryData) {}

    /**
     * The JSON report and summary, plus the HTML report gzip-compressed when both fit the limit
     * with the JSON whole (the JSON is the next run's baseline: it comes first; the HTML is left
     * out, and summary.txt says so, rather than cutting findings from the JSON).
     */
    static Content content(Report report, int limitBytes, String where) {
        byte[] gz = gzip(html(report));
        int htmlCost = bytes(HTML_KEY) + gz.length;
        String fetch = "deja report --from-configmap " + where + " -o report.html";
        if (htmlCost < limitBytes) {
            Map<String, String> data = data(report, limitBytes - htmlCost - 200);
            if (!MAPPER.readTree(data.get(JSON_KEY)).path("truncated").asBoolean(false)) {
                data.put(
                        SUMMARY_KEY,
                        data.get(SUMMARY_KEY)
                                + "html: "
                                + HTML_KEY
                                + " ("
                                + gz.length
                                + " bytes gzip): "
                                + fetch
                                + "\n");
                return new Content(data, Map.of(HTML_KEY, Base64.getEncoder().encodeToString(gz)));
            }
        }
        Map<String, String> data = data(report, limitBytes);
        data.put(
                SUMMARY_KEY,
                data.get(SUMMARY_KEY)
                        + "html: left out (with it the JSON report would not fit the"
                        + " ConfigMap size limit)\n");
        return new Content(data, Map.of());
    }

    static String html(Report report) {
        StringWriter w = new StringWriter();
        try {
            new HtmlReporter().write(report.withColor(false), w);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }

    static byte[] gzip(String text) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(bytes)) {
            z.write(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * The ConfigMap's data for a report, within {@code limitBytes} (keys and UTF-8 values
     * together).
     */
    public static Map<String, String> data(Report report, int limitBytes) {
        String summary = summary(report);
        int budget = limitBytes - bytes(JSON_KEY) - bytes(SUMMARY_KEY) - bytes(summary);
        ObjectNode full = JsonReporter.tree(report);
        String json = MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(full) + "\n";
        if (bytes(json) > budget) {
            json = MAPPER.writeValueAsString(full);
        }
        if (bytes(json) > budget) {
            json = truncated(full, budget, limitBytes);
            summary =
                    summary
                            + "truncated: "
                            + JSON_KEY
                            + " keeps "
                            + MAPPER.readTree(json).path("truncation").path("findingsKept").asInt()
                            + " of "
                            + report.result().findings().size()
                            + " findings (ConfigMap size limit)\n";
        }
        Map<String, String> data = new LinkedHashMap<>();
        data.put(JSON_KEY, json);
        data.put(SUMMARY_KEY, summary);
        return data;
    }

    /**
     * The longest prefix of the findings (most severe first) whose compact document fits;
     * suppressed ones dropped.
     */
    private static String truncated(ObjectNode full, int budget, int limitBytes) {
        ArrayNode findings = (ArrayNode) full.path("findings");
        ArrayNode suppressed = (ArrayNode) full.path("suppressed");
        int lo = 0;
        int hi = findings.size();
        String best = null;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            String s = MAPPER.writeValueAsString(cut(full, findings, suppressed, mid, limitBytes));
            if (bytes(s) <= budget) {
                best = s;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (best == null) {
            throw new IllegalStateException(
                    "the report does not fit a ConfigMap even without findings");
        }
        return best;
    }

    private static ObjectNode cut(
            ObjectNode full, ArrayNode findings, ArrayNode suppressed, int keep, int limitBytes) {
        ObjectNode o = full.deepCopy();
        ArrayNode f = o.putArray("findings");
        for (int i = 0; i < keep; i++) {
            f.add(findings.get(i));
        }
        o.putArray("suppressed");
        o.put("truncated", true);
        ObjectNode t = o.putObject("truncation");
        t.put("reason", "ConfigMap size limit");
        t.put("limitBytes", limitBytes);
        t.put("findings", findings.size());
        t.put("findingsKept", keep);
        t.put("suppressed", suppressed.size());
        t.put("suppressedKept", 0);
        return o;
    }

    /**
     * summary.txt: the text report's summary line, counts by severity, the baseline comparison, the
     * outcome.
     */
    static String summary(Report report) {
        ScanResult r = report.result();
        StringBuilder sb = new StringBuilder();
        sb.append(TextReporter.summary(r)).append('\n');
        for (int i = Severity.values().length - 1; i >= 0; i--) {
            Severity s = Severity.values()[i];
            sb.append(s.id()).append(": ").append(r.count(s)).append('\n');
        }
        sb.append("suppressed: ").append(r.suppressed().size()).append('\n');
        BaselineDiff b = report.baseline();
        if (b != null) {
            sb.append("new: ")
                    .append(b.newFindings().size())
                    .append(
                            b.found()
                                    ? " (against "
                                            + b.source()
                                            + ": "
                                            + b.unchanged()
                                            + " unchanged, "
                                            + b.fixed()
                                            + " fixed)"
                                    : " (no baseline at "
                                            + b.source()
                                            + " yet: every finding is new)")
                    .append('\n');
        }
        sb.append("complete: ").append(r.coverage().complete()).append('\n');
        sb.append("failed: ")
                .append(report.failed())
                .append(" (fail-on ")
                .append(report.failOn() == null ? "none" : report.failOn().id())
                .append(")\n");
        if (report.run() != null) {
            sb.append("scanned at: ")
                    .append(report.run().startedAt().truncatedTo(ChronoUnit.SECONDS))
                    .append('\n');
        }
        sb.append("deja ").append(report.toolVersion()).append('\n');
        return sb.toString();
    }

    private static int bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
