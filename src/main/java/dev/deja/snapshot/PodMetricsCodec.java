package dev.deja.snapshot;

import dev.deja.engine.InputException;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.prometheus.PodMetrics;
import dev.deja.model.prometheus.PrometheusPeaks;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The ingress-nginx pods read by --live-metrics in a saved snapshot: {@code "podMetrics": {"pods":
 * [{"namespace": ..., "name": ..., "port": 10254, "workloadKind": "Deployment", "workloadName":
 * ..., "samples": [{"labels": {...}, "value": 1900}], "node": "n1", "nodeCpus": 4}]}} ({@code node}
 * and {@code nodeCpus} only when the pod's node was read).
 */
public final class PodMetricsCodec implements SnapshotCodec {
    @Override
    public JsonNode write(Snapshot snapshot, JsonNodeFactory f) {
        PodMetrics p = snapshot.part(PodMetrics.class).orElse(null);
        if (p == null) {
            return null;
        }
        ObjectNode root = f.objectNode();
        ArrayNode pods = root.putArray("pods");
        for (PodMetrics.Pod pod : p.pods()) {
            ObjectNode o = pods.addObject();
            o.put("namespace", pod.namespace());
            o.put("name", pod.name());
            o.put("port", pod.port());
            o.put("workloadKind", pod.workloadKind());
            o.put("workloadName", pod.workloadName());
            if (pod.node() != null && pod.nodeCpus() > 0) {
                o.put("node", pod.node());
                o.put("nodeCpus", pod.nodeCpus());
            }
            PrometheusCodec.putSamples(o, pod.samples());
        }
        return root;
    }

    @Override
    public void read(JsonNode part, String display, SnapshotBuilder out) {
        String where = display + ": podMetrics";
        if (!part.path("pods").isArray()) {
            throw new InputException(where + ": needs pods (a list)");
        }
        List<PodMetrics.Pod> pods = new ArrayList<>();
        int i = 0;
        for (JsonNode p : part.path("pods")) {
            String pw = where + ".pods[" + i++ + "]";
            for (String k : List.of("namespace", "name", "workloadKind", "workloadName")) {
                if (!p.path(k).isString()) {
                    throw new InputException(pw + ": needs " + k + " (a string)");
                }
            }
            if (!p.path("port").isInt() || !p.path("samples").isArray()) {
                throw new InputException(pw + ": needs port (a number) and samples (a list)");
            }
            List<PrometheusPeaks.Sample> ss = PrometheusCodec.samples(p.path("samples"), pw);
            boolean hasNode = p.has("node") || p.has("nodeCpus");
            if (hasNode
                    && (!p.path("node").isString()
                            || !p.path("nodeCpus").isInt()
                            || p.path("nodeCpus").asInt() < 1)) {
                throw new InputException(
                        pw + ": node (a string) and nodeCpus (a positive number) go together");
            }
            pods.add(
                    new PodMetrics.Pod(
                            p.path("namespace").asString(),
                            p.path("name").asString(),
                            p.path("port").asInt(),
                            p.path("workloadKind").asString(),
                            p.path("workloadName").asString(),
                            ss,
                            hasNode ? p.path("node").asString() : null,
                            hasNode ? p.path("nodeCpus").asInt() : 0));
        }
        out.put(PodMetrics.class, new PodMetrics(pods));
    }
}
