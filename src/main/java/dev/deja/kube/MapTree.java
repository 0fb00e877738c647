package dev.deja.kube;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A JSON-like tree of maps, lists and scalars (an object from the API server) as a {@link Tree}; no lines. */
final class MapTree implements Tree {
    private final Object value;

    MapTree(Object value) {
        this.value = value;
    }

    static Tree of(Object v) {
        return v == null ? null : new MapTree(v);
    }

    @Override
    public Tree get(String key) {
        return value instanceof Map<?, ?> m ? of(m.get(key)) : null;
    }

    @Override
    public String text() {
        if (value instanceof Map || value instanceof List || value == null) {
            return null;
        }
        return value.toString();
    }

    @Override
    public List<Tree> items() {
        if (value instanceof List<?> l) {
            List<Tree> out = new ArrayList<>(l.size());
            for (Object o : l) {
                out.add(new MapTree(o));
            }
            return out;
        }
        return List.of();
    }

    @Override
    public List<Map.Entry<String, Tree>> entries() {
        if (value instanceof Map<?, ?> m) {
            List<Map.Entry<String, Tree>> out = new ArrayList<>(m.size());
            for (Map.Entry<?, ?> e : m.entrySet()) {
                out.add(new java.util.AbstractMap.SimpleImmutableEntry<>(String.valueOf(e.getKey()), of(e.getValue())));
            }
            return out;
        }
        return List.of();
    }

    @Override
    public boolean isMapping() {
        return value instanceof Map;
    }

    @Override
    public Integer line() {
        return null;
    }

    @Override
    public Integer keyLine(String key) {
        return null;
    }
}
