package dev.deja.rules.cel;

import dev.deja.engine.Catalog;
import dev.deja.engine.CatalogException;
import dev.deja.engine.InputException;
import dev.deja.engine.RuleMetadata;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * One rule file of a team's own: the metadata of a built-in rule's YAML plus {@code check:} (what
 * it iterates over, the CEL condition, the message template, the key). Every text of {@code check:}
 * keeps where it is written, so a CEL error names its file:line:column.
 */
record RuleFile(String path, RuleMetadata metadata, List<Check> checks) {

    /**
     * One check of the rule ({@code check:}, or each of a list of them): {@code name} as messages
     * say it ("check", "check[1]"), {@code defaultKey} the finding's key when it gives none.
     */
    record Check(
            String name,
            String defaultKey,
            List<String> over,
            Text when,
            Text message,
            Text key,
            Text severity,
            Text line,
            Text remediation) {}

    /** SnakeYAML's safe constructor, which builds the values of an already composed document. */
    private static final class Values extends SafeConstructor {
        Values(LoaderOptions opts) {
            super(opts);
        }

        Object of(Node root) {
            return constructDocument(root);
        }
    }

    static final Set<String> CHECK_KEYS =
            Set.of("for", "when", "message", "key", "severity", "line", "remediation");

    /** A text of the rule file and the way back from a position in it to the file's. */
    record Text(String value, String path, int[] lineOf, int[] columnOf) {
        /** "rules/x.yaml:12:7" for the character at {@code offset} of the value. */
        String where(int offset) {
            int o = Math.max(0, Math.min(offset, lineOf.length - 1));
            return path + ":" + lineOf[o] + ":" + columnOf[o];
        }
    }

    static RuleFile parse(String path, String yamlText) {
        Map<String, Object> doc;
        Node root;
        try {
            LoaderOptions opts = new LoaderOptions();
            opts.setAllowDuplicateKeys(false);
            // parsed once: the node tree (where each text is written) gives the values too
            Values values = new Values(opts);
            root = new Yaml(values).compose(new StringReader(yamlText));
            Object o = root == null ? null : values.of(root);
            if (!(o instanceof Map<?, ?> m) || root == null) {
                throw new InputException(path + ": expected a mapping at the top level");
            }
            doc = new LinkedHashMap<>();
            m.forEach((k, v) -> doc.put(String.valueOf(k), v));
        } catch (InputException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new InputException(path + ": not valid YAML: " + firstLine(e.getMessage()));
        }
        Object check = doc.remove("check");
        doc.remove("tests");
        RuleMetadata meta;
        try {
            meta = Catalog.userRule(doc, path);
        } catch (CatalogException e) {
            throw new InputException(e.getMessage());
        }
        Node checkNode = childNode(root, "check");
        String[] lines = yamlText.split("\n", -1);
        List<Check> checks = new ArrayList<>();
        if (check instanceof Map<?, ?> c) {
            checks.add(check(path, "check", c, checkNode, lines, "check"));
        } else if (check instanceof List<?> l && !l.isEmpty()) {
            List<Node> nodes = checkNode instanceof SequenceNode sn ? sn.getValue() : List.of();
            for (int i = 0; i < l.size(); i++) {
                String name = "check[" + i + "]";
                if (!(l.get(i) instanceof Map<?, ?> c)) {
                    throw new InputException(path + ": " + name + " is not a mapping");
                }
                checks.add(
                        check(
                                path,
                                name,
                                c,
                                i < nodes.size() ? nodes.get(i) : null,
                                lines,
                                "check " + (i + 1)));
            }
        } else {
            throw new InputException(
                    path
                            + ": no 'check:' (a mapping of for, when, message and optionally key,"
                            + " severity, line, remediation; or a list of them)");
        }
        return new RuleFile(path, meta, List.copyOf(checks));
    }

    private static Check check(
            String path, String name, Map<?, ?> c, Node node, String[] lines, String defaultKey) {
        for (Object k : c.keySet()) {
            if (!CHECK_KEYS.contains(String.valueOf(k))) {
                throw new InputException(
                        path
                                + ":"
                                + line(node, String.valueOf(k))
                                + ": unknown key "
                                + name
                                + "."
                                + k
                                + " (expected "
                                + new TreeSet<>(CHECK_KEYS)
                                + ")");
            }
        }
        List<String> over = new ArrayList<>();
        Object f = c.get("for");
        if (f instanceof List<?> l) {
            l.forEach(x -> over.add(String.valueOf(x)));
        } else if (f != null) {
            over.add(String.valueOf(f));
        }
        if (over.isEmpty()) {
            throw new InputException(
                    path + ": " + name + ".for is missing (what the rule looks at)");
        }
        return new Check(
                name,
                defaultKey,
                List.copyOf(over),
                text(node, lines, path, name, "when", true),
                text(node, lines, path, name, "message", true),
                text(node, lines, path, name, "key", false),
                text(node, lines, path, name, "severity", false),
                text(node, lines, path, name, "line", false),
                text(node, lines, path, name, "remediation", false));
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).strip();
    }

    private static ScalarNode child(Node n, String key) {
        if (n instanceof MappingNode m) {
            for (NodeTuple t : m.getValue()) {
                if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals(key)) {
                    return t.getValueNode() instanceof ScalarNode v ? v : null;
                }
            }
        }
        return null;
    }

    private static Node childNode(Node n, String key) {
        if (n instanceof MappingNode m) {
            for (NodeTuple t : m.getValue()) {
                if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals(key)) {
                    return t.getValueNode();
                }
            }
        }
        return null;
    }

    private static int line(Node p, String key) {
        if (p instanceof MappingNode m) {
            for (NodeTuple t : m.getValue()) {
                if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals(key)) {
                    return k.getStartMark().getLine() + 1;
                }
            }
        }
        return p == null ? 1 : p.getStartMark().getLine() + 1;
    }

    /**
     * check.NAME as a text with the file position of each of its characters: a plain or quoted
     * scalar on its line, a block scalar ({@code |} or {@code >}) line by line.
     */
    private static Text text(
            Node check,
            String[] lines,
            String path,
            String checkName,
            String name,
            boolean required) {
        ScalarNode s = child(check, name);
        if (s == null) {
            if (required) {
                throw new InputException(
                        path
                                + ":"
                                + (check == null ? 1 : check.getStartMark().getLine() + 1)
                                + ": "
                                + checkName
                                + "."
                                + name
                                + " is missing or not a text");
            }
            return null;
        }
        String v = s.getValue();
        int n = v.length() + 1;
        int[] lineOf = new int[n];
        int[] colOf = new int[n];
        int startLine = s.getStartMark().getLine(); // 0-based
        int startCol = s.getStartMark().getColumn(); // 0-based
        DumperOptions.ScalarStyle style = s.getScalarStyle();
        if (style == DumperOptions.ScalarStyle.LITERAL
                || style == DumperOptions.ScalarStyle.FOLDED) {
            // the value's lines are the block's lines without their indentation, joined by one
            // character (a newline, or a space when folded)
            int fileLine = startLine + 1;
            int i = 0;
            int block = -1; // the block's indentation: its first line's
            while (i < n) {
                while (fileLine < lines.length && lines[fileLine].isBlank()) {
                    fileLine++;
                }
                String raw = fileLine < lines.length ? lines[fileLine] : "";
                int lead = raw.length() - raw.stripLeading().length();
                if (block < 0) {
                    block = lead;
                }
                // a more-indented line keeps its extra spaces in the value
                int indent = Math.min(lead, block);
                int len = Math.max(0, raw.stripTrailing().length() - indent);
                for (int c = 0; c <= len && i < n; c++, i++) {
                    lineOf[i] = fileLine + 1;
                    colOf[i] = indent + c + 1;
                }
                fileLine++;
            }
        } else {
            int quote =
                    style == DumperOptions.ScalarStyle.SINGLE_QUOTED
                                    || style == DumperOptions.ScalarStyle.DOUBLE_QUOTED
                            ? 1
                            : 0;
            for (int i = 0; i < n; i++) {
                lineOf[i] = startLine + 1;
                colOf[i] = startCol + quote + i + 1;
            }
        }
        return new Text(v, path, lineOf, colOf);
    }
}
