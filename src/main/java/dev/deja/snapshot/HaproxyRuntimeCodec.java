package dev.deja.snapshot;

import dev.deja.engine.InputException;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.haproxy.HaproxyRuntime;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The live figures in a saved snapshot: {@code "haproxyRuntime": {"instances": [{"address": ...,
 * "showInfo": "...", "showStat": "..."}]}} for the runtime API; {@code "format": "statsCsv"} with
 * {@code "showStat"} (the CSV) for the stats page; {@code "format": "prometheus"} with {@code
 * "metrics"} for the exporter. The text exactly as HAProxy answered it; no credentials. A snapshot
 * without "format" was read from the runtime API (as before the HTTP forms).
 */
public final class HaproxyRuntimeCodec implements SnapshotCodec {
    @Override
    public JsonNode write(Snapshot snapshot, JsonNodeFactory f) {
        HaproxyRuntime rt = snapshot.part(HaproxyRuntime.class).orElse(null);
        if (rt == null) {
            return null;
        }
        ObjectNode root = f.objectNode();
        ArrayNode arr = root.putArray("instances");
        for (HaproxyRuntime.Instance in : rt.instances()) {
            ObjectNode o = arr.addObject();
            o.put("address", in.address());
            if (in.format() != HaproxyRuntime.Format.RUNTIME_API) {
                o.put("format", name(in.format()));
            }
            if (in.showInfo() != null) {
                o.put("showInfo", in.showInfo());
            }
            if (in.showStat() != null) {
                o.put("showStat", in.showStat());
            }
            if (in.metrics() != null) {
                o.put("metrics", in.metrics());
            }
        }
        return root;
    }

    @Override
    public void read(JsonNode part, String display, SnapshotBuilder out) {
        List<HaproxyRuntime.Instance> list = new ArrayList<>();
        JsonNode arr = part.path("instances");
        if (!arr.isArray()) {
            throw new InputException(display + ": haproxyRuntime.instances is not a list");
        }
        int i = 0;
        for (JsonNode o : arr) {
            String where = display + ": haproxyRuntime.instances[" + i++ + "]";
            HaproxyRuntime.Format format = format(o.path("format"), where);
            List<String> need =
                    switch (format) {
                        case RUNTIME_API -> List.of("address", "showInfo", "showStat");
                        case STATS_CSV -> List.of("address", "showStat");
                        case PROMETHEUS -> List.of("address", "metrics");
                    };
            for (String k : need) {
                if (!o.path(k).isString()) {
                    throw new InputException(
                            where + ": needs " + String.join(", ", need) + " (strings)");
                }
            }
            String address = o.get("address").asString();
            HaproxyRuntime.Instance in =
                    switch (format) {
                        case RUNTIME_API ->
                                new HaproxyRuntime.Instance(
                                        address,
                                        o.get("showInfo").asString(),
                                        o.get("showStat").asString());
                        case STATS_CSV ->
                                HaproxyRuntime.Instance.statsCsv(
                                        address, o.get("showStat").asString());
                        case PROMETHEUS ->
                                HaproxyRuntime.Instance.prometheus(
                                        address, o.get("metrics").asString());
                    };
            try {
                in.check();
            } catch (IllegalArgumentException e) {
                throw new InputException(where + ": " + e.getMessage());
            }
            list.add(in);
        }
        out.put(HaproxyRuntime.class, new HaproxyRuntime(list));
    }

    static String name(HaproxyRuntime.Format f) {
        return switch (f) {
            case RUNTIME_API -> "runtimeApi";
            case STATS_CSV -> "statsCsv";
            case PROMETHEUS -> "prometheus";
        };
    }

    private static HaproxyRuntime.Format format(JsonNode n, String where) {
        if (n.isMissingNode() || n.isNull()) {
            return HaproxyRuntime.Format.RUNTIME_API;
        }
        for (HaproxyRuntime.Format f : HaproxyRuntime.Format.values()) {
            if (n.isString() && name(f).equals(n.asString())) {
                return f;
            }
        }
        throw new InputException(
                where + ": format must be runtimeApi, statsCsv or prometheus, not " + n);
    }
}
