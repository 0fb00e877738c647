package dev.deja.haproxy;

import dev.deja.engine.InputException;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.source.SnapshotCodec;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The runtime API answers in a saved snapshot: {@code "haproxyRuntime": {"instances": [{"address": ...,
 * "showInfo": "...", "showStat": "..."}]}}, the text exactly as HAProxy answered it.
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
            o.put("showInfo", in.showInfo());
            o.put("showStat", in.showStat());
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
            if (!o.path("address").isString() || !o.path("showInfo").isString() || !o.path("showStat").isString()) {
                throw new InputException(where + ": needs address, showInfo and showStat (strings)");
            }
            HaproxyRuntime.Instance in = new HaproxyRuntime.Instance(o.get("address").asString(),
                    o.get("showInfo").asString(), o.get("showStat").asString());
            try {
                in.info();
                in.rows();
            } catch (IllegalArgumentException e) {
                throw new InputException(where + ": " + e.getMessage());
            }
            list.add(in);
        }
        out.put(HaproxyRuntime.class, new HaproxyRuntime(list));
    }
}
