package dev.deja.kube;

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
                            throw new InputException(
                                    display
                                            + ":"
                                            + line
                                            + ": key \""
                                            + shorten(k.getValue())
                                            + "\" already set in this mapping (line "
                                            + first
                                            + "); kubectl refuses duplicate"
                                            + " keys and the API server would keep the last value");
                        }
                    }
                    todo.push(t.getValueNode());
                    todo.push(t.getKeyNode());
                }
            } else if (n instanceof SequenceNode s) {
                s.getValue().forEach(todo::push);
            }
        }
    }

    private static String shorten(String s) {
        String t = s.replaceAll("\\p{Cntrl}", "?");
        return t.length() <= 60 ? t : t.substring(0, 57) + "...";
    }
}
