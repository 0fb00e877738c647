package dev.deja.snapshot;

import dev.deja.engine.InputException;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.prometheus.PrometheusPeaks;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The Prometheus answers in a saved snapshot: {@code "prometheus": {"url": ..., "window": "7d",
 * "queries": [{"name": "frontendPeak", "promql": "...", "samples": [{"labels": {...}, "value":
 * 790}]}]}}.
 */
public final class PrometheusCodec implements SnapshotCodec {
    @Override
    public JsonNode write(Snapshot snapshot, JsonNodeFactory f) {
        PrometheusPeaks p = snapshot.part(PrometheusPeaks.class).orElse(null);
        if (p == null) {
            return null;
        }
        ObjectNode root = f.objectNode();
        root.put("url", p.url());
        root.put("window", p.window());
        ArrayNode qs = root.putArray("queries");
        for (PrometheusPeaks.Query q : p.queries()) {
            ObjectNode o = qs.addObject();
            o.put("name", q.name());
            o.put("promql", q.promql());
            putSamples(o, q.samples());
        }
        return root;
    }

    @Override
    public void read(JsonNode part, String display, SnapshotBuilder out) {
        String where = display + ": prometheus";
        if (!part.path("url").isString()
                || !part.path("window").isString()
                || !part.path("queries").isArray()) {
            throw new InputException(where + ": needs url, window (strings) and queries (a list)");
        }
        List<PrometheusPeaks.Query> qs = new ArrayList<>();
        int i = 0;
        for (JsonNode q : part.path("queries")) {
            String qw = where + ".queries[" + i++ + "]";
            String name = q.path("name").asString("");
            if (!PrometheusPeaks.METRICS.containsKey(name)) {
                throw new InputException(
                        qw
                                + ": unknown query name '"
                                + name
                                + "' (expected one of "
                                + String.join(", ", PrometheusPeaks.METRICS.keySet())
                                + ")");
            }
            if (!q.path("promql").isString() || !q.path("samples").isArray()) {
                throw new InputException(qw + ": needs promql (a string) and samples (a list)");
            }
            qs.add(
                    new PrometheusPeaks.Query(
                            name, q.path("promql").asString(), samples(q.path("samples"), qw)));
        }
        out.put(
                PrometheusPeaks.class,
                new PrometheusPeaks(
                        part.path("url").asString(), part.path("window").asString(), qs));
    }

    /** The samples saved as {@code "samples": [{"labels": {...}, "value": 790}]} in {@code o}. */
    static void putSamples(ObjectNode o, List<PrometheusPeaks.Sample> samples) {
        ArrayNode ss = o.putArray("samples");
        for (PrometheusPeaks.Sample s : samples) {
            ObjectNode so = ss.addObject();
            ObjectNode lo = so.putObject("labels");
            s.labels().forEach(lo::put);
            so.put("value", s.value());
        }
    }

    /**
     * The samples of a saved list, each {labels: {string: string}, value: number}; {@code where}
     * names the list's owner in errors ("...queries[2]").
     */
    static List<PrometheusPeaks.Sample> samples(JsonNode list, String where) {
        List<PrometheusPeaks.Sample> ss = new ArrayList<>();
        int k = 0;
        for (JsonNode s : list) {
            String sw = where + ".samples[" + k++ + "]";
            if (!s.path("labels").isObject() || !s.path("value").isNumber()) {
                throw new InputException(
                        sw + ": needs labels (an object of strings) and value (a number)");
            }
            Map<String, String> labels = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> l : s.path("labels").properties()) {
                if (!l.getValue().isString()) {
                    throw new InputException(sw + ": label " + l.getKey() + " is not a string");
                }
                labels.put(l.getKey(), l.getValue().asString());
            }
            ss.add(new PrometheusPeaks.Sample(labels, s.path("value").asDouble()));
        }
        return ss;
    }
}
