package dev.deja.model.kube;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A JSON-like tree of maps, lists and scalars (an object from the API server) as a {@link Tree}; no
 * lines.
 */
public final class MapTree implements Tree {
    private final Object value;
    private final String kind;
    private final String apiVersion;

    public MapTree(Object value) {
        this(value, null, null);
    }

    private MapTree(Object value, String kind, String apiVersion) {
        this.value = value;
        this.kind = kind;
        this.apiVersion = apiVersion;
    }

    /**
     * The same object with a kind and an apiVersion to assume when it has none (list items usually
     * omit them).
     */
    public MapTree withKind(String kind, String apiVersion) {
        return new MapTree(value, kind, apiVersion);
    }

    @Override
    public String text(String key) {
        if (kind != null && key.equals("kind") || apiVersion != null && key.equals("apiVersion")) {
            String own = Tree.super.text(key);
            return own != null ? own : key.equals("kind") ? kind : apiVersion;
        }
        return Tree.super.text(key);
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
                out.add(
                        new AbstractMap.SimpleImmutableEntry<>(
                                String.valueOf(e.getKey()), of(e.getValue())));
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
