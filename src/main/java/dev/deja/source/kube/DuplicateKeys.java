package dev.deja.source.kube;

import dev.deja.engine.InputException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * A key written twice in one mapping ({@code replicas: 1} then {@code replicas: 5}) is refused as
 * kubectl refuses it (its YAML decoding is strict about duplicate keys): the API server's JSON
 * decoding would keep the last value while a lenient reader keeps the first, so the manifest does
 * not say one thing. Merge keys ({@code <<}) are not counted.
 */
final class DuplicateKeys {
    private DuplicateKeys() {}

    /**
     * Throws an {@link InputException} naming file:line of the second key and the line of the
     * first.
     */
    static void check(Node root, String display) {
        Dup d = find(root);
        if (d != null) {
            throw new InputException(
                    display
                            + ":"
                            + d.line()
                            + ": key \""
                            + shorten(d.key())
                            + "\" already set in this mapping (line "
                            + d.first()
                            + "); kubectl refuses duplicate"
                            + " keys and the API server would keep the last value");
        }
    }

    /** A key set twice: the key, the line of its second and of its first setting. */
    record Dup(String key, int line, int first) {
        String shortKey() {
            return shorten(key);
        }
    }

    /** The first key set twice in one mapping under {@code root}, or null. */
    static Dup find(Node root) {
        Set<Node> seen =
                Collections.newSetFromMap(new IdentityHashMap<>()); // an alias is walked once
        Deque<Node> todo = new ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            Node n = todo.pop();
            if (!seen.add(n)) {
                continue;
            }
            if (n instanceof MappingNode m) {
                Map<String, Integer> keys = new HashMap<>();
                for (NodeTuple t : m.getValue()) {
                    if (t.getKeyNode() instanceof ScalarNode k && !"<<".equals(k.getValue())) {
                        int line = k.getStartMark() == null ? 0 : k.getStartMark().getLine() + 1;
                        Integer first = keys.putIfAbsent(k.getValue(), line);
                        if (first != null) {
                            return new Dup(k.getValue(), line, first);
                        }
                    }
                    todo.push(t.getValueNode());
                    todo.push(t.getKeyNode());
                }
            } else if (n instanceof SequenceNode s) {
                s.getValue().forEach(todo::push);
            }
        }
        return null;
    }

    /**
     * "Kind namespace/name" of a document's top-level object, as far as its scalars say, or null.
     */
    static String objectOf(Node doc) {
        if (!(doc instanceof MappingNode m)) {
            return null;
        }
        String kind = scalar(m, "kind");
        if (kind == null) {
            return null;
        }
        String name = null;
        String ns = null;
        for (NodeTuple t : m.getValue()) {
            if (t.getKeyNode() instanceof ScalarNode k
                    && k.getValue().equals("metadata")
                    && t.getValueNode() instanceof MappingNode meta) {
                name = scalar(meta, "name");
                ns = scalar(meta, "namespace");
            }
        }
        return shorten(kind)
                + (name == null ? "" : " " + (ns == null ? "" : shorten(ns) + "/") + shorten(name));
    }

    private static String scalar(MappingNode m, String key) {
        for (NodeTuple t : m.getValue()) {
            if (t.getKeyNode() instanceof ScalarNode k
                    && k.getValue().equals(key)
                    && t.getValueNode() instanceof ScalarNode v) {
                return v.getValue();
            }
        }
        return null;
    }

    private static String shorten(String s) {
        String t = s.replaceAll("\\p{Cntrl}", "?");
        return t.length() <= 60 ? t : t.substring(0, 57) + "...";
    }
}
