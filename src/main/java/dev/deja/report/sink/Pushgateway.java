package dev.deja.report.sink;

import dev.deja.report.PrometheusReporter;
import dev.deja.report.Report;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;

/**
 * {@code --pushgateway URL}: PUTs the metrics of {@link PrometheusReporter} to a Prometheus
 * Pushgateway, replacing the group (so findings that went away disappear too). The group is {@code
 * URL/metrics/job/deja}, unless the URL already names one ({@code
 * .../metrics/job/NAME[/LABEL/VALUE...]}).
 */
public final class Pushgateway {
    private Pushgateway() {}

    public static String groupUrl(String url) {
        if (url.contains("/metrics/job/")) {
            return url;
        }
        return (url.endsWith("/") ? url.substring(0, url.length() - 1) : url) + "/metrics/job/deja";
    }

    /** Null when pushed, else why not (one line). */
    public static String push(String url, Report report, Duration timeout) {
        StringWriter w = new StringWriter();
        try {
            new PrometheusReporter().write(report, w);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Delivery.send(
                "PUT", groupUrl(url), PrometheusReporter.CONTENT_TYPE, w.toString(), timeout);
    }
}
