package dev.deja.source.kube;

import dev.deja.model.kube.Tree;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/** A SnakeYAML node (from {@code compose}, so with marks) as a {@link Tree}. */
final class YamlTree implements Tree {
    private final Node node;

    /** The key that holds this node (for a sequence's items, the sequence's key), for messages. */
    private final String key;

    /** Where values of the wrong type are reported ("line: key: what"), or null. */
    private final List<String> problems;

    YamlTree(Node node) {
        this(node, null, null);
    }

    private YamlTree(Node node, String key, List<String> problems) {
        this.node = node;
        this.key = key;
        this.problems = problems;
    }

    static Tree of(Node n) {
        return of(n, null);
    }

    /**
     * A document whose values of the wrong type (a word where a number or a list belongs) go to
     * {@code problems}.
     */
    static Tree of(Node n, List<String> problems) {
        return n == null ? null : new YamlTree(n, null, problems);
    }

    private void problem(Node at, String what) {
        if (problems != null) {
            problems.add(
                    (at.getStartMark() == null ? "?" : at.getStartMark().getLine() + 1)
                            + ": "
                            + what);
        }
    }

    @Override
    public void notANumber(String k, String value) {
        problem(
                tuple(k).getValueNode(),
                k + ": '" + value + "' is not a whole number (read as unset)");
    }

    Node node() {
        return node;
    }

    private NodeTuple tuple(String key) {
        if (node instanceof MappingNode m) {
            for (NodeTuple t : m.getValue()) {
                if (t.getKeyNode() instanceof ScalarNode k && key.equals(k.getValue())) {
                    return t;
                }
            }
        }
        return null;
    }

    @Override
    public Tree get(String key) {
        NodeTuple t = tuple(key);
        if (t == null) {
            return null;
        }
        Node v = t.getValueNode();
        if (v instanceof ScalarNode s && "tag:yaml.org,2002:null".equals(s.getTag().getValue())) {
            return null;
        }
        return new YamlTree(v, key, problems);
    }

    @Override
    public String text() {
        if (node instanceof ScalarNode s) {
            if ("tag:yaml.org,2002:null".equals(s.getTag().getValue())) {
                return null;
            }
            return s.getValue();
        }
        return null;
    }

    @Override
    public List<Tree> items() {
        if (node instanceof SequenceNode s) {
            List<Tree> out = new ArrayList<>(s.getValue().size());
            for (Node n : s.getValue()) {
                out.add(new YamlTree(n, key, problems));
            }
            return out;
        }
        if (key != null) {
            problem(node, key + ": not a list (read as empty)");
        }
        return List.of();
    }

    @Override
    public List<Map.Entry<String, Tree>> entries() {
        if (node instanceof MappingNode m) {
            List<Map.Entry<String, Tree>> out = new ArrayList<>(m.getValue().size());
            for (NodeTuple t : m.getValue()) {
                if (t.getKeyNode() instanceof ScalarNode k) {
                    out.add(
                            new AbstractMap.SimpleImmutableEntry<>(
                                    k.getValue(),
                                    new YamlTree(t.getValueNode(), k.getValue(), problems)));
                }
            }
            return out;
        }
        if (key != null) {
            problem(node, key + ": not a mapping (read as empty)");
        }
        return List.of();
    }

    @Override
    public boolean isMapping() {
        return node instanceof MappingNode;
    }

    @Override
    public Integer line() {
        return node.getStartMark() == null ? null : node.getStartMark().getLine() + 1;
    }

    @Override
    public Integer keyLine(String key) {
        NodeTuple t = tuple(key);
        return t == null || t.getKeyNode().getStartMark() == null
                ? null
                : t.getKeyNode().getStartMark().getLine() + 1;
    }
}
