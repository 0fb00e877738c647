package dev.deja.report.sink;

import dev.deja.engine.InputException;
import dev.deja.source.ScanRequest;
import dev.deja.source.kube.KubeClients;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.zip.GZIPInputStream;

/**
 * {@code deja report --from-configmap NAMESPACE/NAME}: the HTML report a scheduled scan kept in its
 * report ConfigMap ({@value ConfigMapReportSink#HTML_KEY} in binaryData, written by {@link
 * ConfigMapReportSink}), so that it can be opened after the job's pod is gone. Failures are one
 * line: an {@link InputException} (exit 2) for a missing ConfigMap or key, a refused read or an
 * unreachable API server.
 */
public final class ConfigMapReportReader {
    /**
     * Refuse to inflate more than this (a report is a few MiB at most; a ConfigMap holds 1 MiB
     * compressed).
     */
    static final int MAX_HTML_BYTES = 64 * 1024 * 1024;

    private ConfigMapReportReader() {}

    public static String html(String namespace, String name, ScanRequest request) {
        String where = "configmap " + namespace + "/" + name;
        Config cfg =
                ConfigMapReportSink.kubeConfig(
                        request, "--from-configmap " + namespace + "/" + name);
        ConfigMap cm;
        try (KubernetesClient client = KubeClients.create(cfg)) {
            cm = client.configMaps().inNamespace(namespace).withName(name).get();
        } catch (KubernetesClientException e) {
            String msg = ConfigMapReportSink.message(e);
            throw new InputException(
                    where
                            + ": "
                            + (e.getCode() == 403
                                    ? "forbidden (get on configmaps/"
                                            + name
                                            + " in namespace "
                                            + namespace
                                            + "): "
                                            + msg
                                    : e.getCode() <= 0
                                            ? "cannot reach the API server "
                                                    + cfg.getMasterUrl()
                                                    + ": "
                                                    + msg
                                            : "HTTP " + e.getCode() + ": " + msg));
        }
        if (cm == null) {
            throw new InputException(
                    where
                            + ": not found (a scan with --report-configmap "
                            + namespace
                            + "/"
                            + name
                            + " creates it)");
        }
        String b64 =
                cm.getBinaryData() == null
                        ? null
                        : cm.getBinaryData().get(ConfigMapReportSink.HTML_KEY);
        if (b64 == null) {
            boolean json =
                    cm.getData() != null && cm.getData().containsKey(ConfigMapReportSink.JSON_KEY);
            throw new InputException(
                    where
                            + ": holds no HTML report ("
                            + (json
                                    ? "its summary.txt says why: the JSON report alone filled the ConfigMap, or an older deja wrote it"
                                    : "no scan has written a report into it yet")
                            + ")");
        }
        try (GZIPInputStream in =
                new GZIPInputStream(new ByteArrayInputStream(Base64.getDecoder().decode(b64)))) {
            byte[] html = in.readNBytes(MAX_HTML_BYTES + 1);
            if (html.length > MAX_HTML_BYTES) {
                throw new InputException(
                        where
                                + ": "
                                + ConfigMapReportSink.HTML_KEY
                                + " inflates to more than "
                                + MAX_HTML_BYTES / (1024 * 1024)
                                + " MiB; refused");
            }
            return new String(html, StandardCharsets.UTF_8);
        } catch (IOException | IllegalArgumentException e) {
            throw new InputException(
                    where
                            + ": "
                            + ConfigMapReportSink.HTML_KEY
                            + " is not a gzip-compressed report: "
                            + e.getMessage());
        }
    }
}
