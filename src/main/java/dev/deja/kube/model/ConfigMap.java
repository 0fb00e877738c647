package dev.deja.kube.model;

import java.util.Map;

/**
 * A ConfigMap with its data (settings of ingress controllers, HAProxy configurations kept in ConfigMaps).
 *
 * @param data     key -> value
 * @param keyLines key -> line of the key in a manifest (empty when read live); for a block scalar the value starts
 *                 on the next line
 */
public record ConfigMap(Meta meta, Map<String, String> data, Map<String, Integer> keyLines) {

    public ConfigMap {
        data = data == null ? Map.of() : Sorted.copyOf(data);
        keyLines = keyLines == null ? Map.of() : Sorted.copyOf(keyLines);
    }

    public String namespace() {
        return meta.namespace();
    }

    public String name() {
        return meta.name();
    }

    /** Line of a key in the manifest, or the object's line, or null for a live object. */
    public Integer lineOf(String key) {
        Integer l = keyLines.get(key);
        return l != null ? l : meta.line();
    }
}
