package dev.deja.model.kube;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A read-only view of a parsed object tree, so that one {@link ViewReader} turns both manifests
 * (SnakeYAML nodes, with lines) and live objects (maps from the API server, without lines) into the
 * same views.
 */
public interface Tree {
    /** The child under a key, or null. */
    Tree get(String key);

    /** A scalar as text; null when absent or not a scalar. */
    String text();

    /** The items of a sequence (empty when not one). */
    List<Tree> items();

    /** The entries of a mapping in order (empty when not one). */
    List<Map.Entry<String, Tree>> entries();

    boolean isMapping();

    /** 1-based line where this node starts, or null when unknown (live objects). */
    Integer line();

    /** 1-based line of the key that holds {@code key}, or null. */
    Integer keyLine(String key);

    default String text(String key) {
        Tree t = get(key);
        return t == null ? null : t.text();
    }

    default Tree path(String... keys) {
        Tree t = this;
        for (String k : keys) {
            if (t == null) {
                return null;
            }
            t = t.get(k);
        }
        return t;
    }

    default Integer integer(String key) {
        String s = text(key);
        if (s == null) {
            return null;
        }
        try {
            return Integer.valueOf(s.trim());
        } catch (NumberFormatException e) {
            notANumber(key, s);
            return null;
        }
    }

    /**
     * A value under {@code key} that is not a whole number: read as unset; manifests warn about it.
     */
    default void notANumber(String key, String value) {}

    /**
     * A mapping of scalars (labels, annotations, selectors, data) as strings; non-scalar values are
     * skipped.
     */
    default Map<String, String> strings(String key) {
        Tree t = get(key);
        if (t == null) {
            return Map.of();
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (Map.Entry<String, Tree> e : t.entries()) {
            String v = e.getValue() == null ? null : e.getValue().text();
            if (v != null) {
                m.put(e.getKey(), v);
            }
        }
        return m;
    }

    /** A sequence of scalars as strings. */
    default List<String> texts(String key) {
        Tree t = get(key);
        if (t == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (Tree i : t.items()) {
            String s = i.text();
            if (s != null) {
                out.add(s);
            }
        }
        return out;
    }
}
