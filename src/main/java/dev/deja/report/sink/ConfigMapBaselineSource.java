package dev.deja.report.sink;

import dev.deja.source.ScanRequest;
import dev.deja.source.kube.KubeClients;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.util.Optional;

/**
 * {@code --baseline configmap:NAMESPACE/NAME}: the previous report kept by {@code
 * --report-configmap}, read from the key {@value ConfigMapReportSink#JSON_KEY}. An absent
 * ConfigMap, or one without that key (the empty ConfigMap the kustomization ships), is no baseline
 * yet: every finding is new. A refused or failed read is an {@link IOException} with one line (the
 * CLI reports it as an input error before the scan). Loaded by name from {@code
 * dev.deja.cli.BaselineSources}.
 */
public final class ConfigMapBaselineSource implements BaselineSource {
    private final String namespace;
    private final String name;
    private final ScanRequest request;
    private volatile String absence = "not found";

    public ConfigMapBaselineSource(String namespace, String name, ScanRequest request) {
        this.namespace = namespace;
        this.name = name;
        this.request = request;
    }

    @Override
    public String describe() {
        return "configmap:" + namespace + "/" + name;
    }

    @Override
    public String absence() {
        return absence;
    }

    @Override
    public Optional<String> read() throws IOException {
        Config cfg = ConfigMapReportSink.kubeConfig(request, "--baseline " + describe());
        try (KubernetesClient client = KubeClients.create(cfg)) {
            // 429, 5xx and connection failures retried as the report's write is
            ConfigMap cm =
                    ConfigMapReportSink.retried(
                            () -> client.configMaps().inNamespace(namespace).withName(name).get());
            if (cm == null) {
                absence = "not found";
                return Optional.empty();
            }
            String json =
                    cm.getData() == null ? null : cm.getData().get(ConfigMapReportSink.JSON_KEY);
            if (json == null || json.isBlank()) {
                // the empty ConfigMap the example ships: there, but no run has written a report
                // into it yet
                absence =
                        "holds no report yet (no "
                                + ConfigMapReportSink.JSON_KEY
                                + " key: a first run)";
                return Optional.empty();
            }
            return Optional.of(json);
        } catch (KubernetesClientException e) {
            String msg = ConfigMapReportSink.message(e);
            throw new IOException(
                    e.getCode() == 403
                            ? "forbidden: " + msg
                            : e.getCode() <= 0
                                    ? "cannot reach the API server "
                                            + cfg.getMasterUrl()
                                            + ": "
                                            + msg
                                    : "HTTP " + e.getCode() + ": " + msg,
                    e);
        }
    }
}
