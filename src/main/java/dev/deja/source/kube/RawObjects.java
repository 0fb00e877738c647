package dev.deja.source.kube;

import dev.deja.model.kube.KubeRaw;
import dev.deja.model.kube.Meta;
import dev.deja.model.kube.ViewReader;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import tools.jackson.databind.JsonNode;

/**
 * Objects as the API returns them ({@link KubeRaw}), from a manifest's YAML nodes, a list page's
 * parsed item or a snapshot's JSON: JSON values (string-keyed maps, lists, strings, longs, doubles,
 * booleans; nulls left out), without {@code metadata.managedFields} and the {@value
 * ViewReader#LAST_APPLIED} annotation, within {@link KubeRaw.Budget}'s bounds. Maps and lists are
 * unmodifiable.
 */
public final class RawObjects {
    private RawObjects() {}

    /**
     * The object of a manifest document's mapping; YAML's scalars typed as the YAML 1.1 resolver
     * reads them (the way the API server's YAML decoder does): ints, floats, booleans, nulls,
     * strings.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> fromYaml(Node doc) {
        Object o = yaml(doc, 0, new KubeRaw.Budget(), null);
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    private static Object yaml(Node n, int depth, KubeRaw.Budget budget, String path) {
        budget.take(depth);
        if (n instanceof MappingNode m) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (NodeTuple t : m.getValue()) {
                if (!(t.getKeyNode() instanceof ScalarNode k)) {
                    continue;
                }
                String key = k.getValue();
                if (skipped(path, key)) {
                    continue;
                }
                budget.take(depth + 1);
                Object v = yaml(t.getValueNode(), depth + 1, budget, child(path, depth, key));
                if (v != null) {
                    out.put(key, v);
                }
            }
            return Collections.unmodifiableMap(out);
        }
        if (n instanceof SequenceNode s) {
            List<Object> out = new ArrayList<>(s.getValue().size());
            for (Node i : s.getValue()) {
                Object v = yaml(i, depth + 1, budget, "");
                if (v != null) {
                    out.add(v);
                }
            }
            return Collections.unmodifiableList(out);
        }
        if (n instanceof ScalarNode s) {
            return scalar(s);
        }
        return null;
    }

    /** "metadata" for the object's metadata, "metadata.annotations" for its annotations. */
    private static String child(String path, int depth, String key) {
        if (depth == 0 && key.equals("metadata")) {
            return "metadata";
        }
        if ("metadata".equals(path) && key.equals("annotations")) {
            return "metadata.annotations";
        }
        return "";
    }

    /** What is not kept: {@code metadata.managedFields}, the last-applied annotation. */
    private static boolean skipped(String path, String key) {
        return "metadata".equals(path) && key.equals("managedFields")
                || "metadata.annotations".equals(path) && key.equals(ViewReader.LAST_APPLIED);
    }

    private static Object scalar(ScalarNode s) {
        Tag tag = s.getTag();
        String v = s.getValue();
        if (Tag.NULL.equals(tag)) {
            return null;
        }
        if (Tag.BOOL.equals(tag)) {
            String b = v.toLowerCase(Locale.ROOT);
            return b.equals("true") || b.equals("yes") || b.equals("on") || b.equals("y");
        }
        if (Tag.INT.equals(tag)) {
            Object i = integer(v);
            return i == null ? v : i;
        }
        if (Tag.FLOAT.equals(tag)) {
            String f = v.replace("_", "");
            String low = f.toLowerCase(Locale.ROOT);
            if (low.endsWith(".inf")) {
                return low.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
            }
            if (low.equals(".nan")) {
                return Double.NaN;
            }
            try {
                return Double.parseDouble(f);
            } catch (NumberFormatException e) {
                return v;
            }
        }
        return v; // strings, timestamps (JSON has no other type for them), binary as written
    }

    /** A YAML 1.1 int (signs, underscores, 0x, 0 octal, 0b), as a long; a larger one a double. */
    private static Object integer(String v) {
        String t = v.replace("_", "");
        boolean negative = t.startsWith("-");
        if (t.startsWith("-") || t.startsWith("+")) {
            t = t.substring(1);
        }
        int radix = 10;
        if (t.startsWith("0x")) {
            radix = 16;
            t = t.substring(2);
        } else if (t.startsWith("0b")) {
            radix = 2;
            t = t.substring(2);
        } else if (t.length() > 1 && t.startsWith("0")) {
            radix = 8;
            t = t.substring(1);
        }
        if (t.isEmpty() || t.contains(":")) {
            return null; // sexagesimal (190:20:30): kept as written
        }
        try {
            BigInteger b = new BigInteger(t, radix);
            if (negative) {
                b = b.negate();
            }
            return b.bitLength() < 64 ? (Object) b.longValue() : (Object) b.doubleValue();
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The object of a snapshot's JSON, bounded like the others. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> fromJson(JsonNode n) {
        Object o = json(n, 0, new KubeRaw.Budget(), null);
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
    }

    private static Object json(JsonNode n, int depth, KubeRaw.Budget budget, String path) {
        budget.take(depth);
        if (n.isObject()) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> e : n.properties()) {
                String key = e.getKey();
                if (skipped(path, key)) {
                    continue;
                }
                budget.take(depth + 1);
                Object v = json(e.getValue(), depth + 1, budget, child(path, depth, key));
                if (v != null) {
                    out.put(key, v);
                }
            }
            return Collections.unmodifiableMap(out);
        }
        if (n.isArray()) {
            List<Object> out = new ArrayList<>(n.size());
            for (JsonNode i : n) {
                Object v = json(i, depth + 1, budget, "");
                if (v != null) {
                    out.add(v);
                }
            }
            return Collections.unmodifiableList(out);
        }
        if (n.isNull() || n.isMissingNode()) {
            return null;
        }
        if (n.isBoolean()) {
            return n.booleanValue();
        }
        if (n.isIntegralNumber()) {
            return n.canConvertToLong() ? (Object) n.longValue() : (Object) n.doubleValue();
        }
        if (n.isNumber()) {
            return n.doubleValue();
        }
        return n.asString();
    }

    /**
     * A list item as {@link ListPageParser} builds it in raw mode (JSON's types already), made
     * unmodifiable and checked against the bounds; {@code null} input gives null.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> frozen(Map<String, Object> item, String kind, String apiVersion) {
        Map<String, Object> o = (Map<String, Object>) freeze(item, 0, new KubeRaw.Budget());
        if (o.containsKey("kind") && o.containsKey("apiVersion")) {
            return o;
        }
        // list items omit them; the API's GET of the object has them
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("apiVersion", apiVersion);
        out.put("kind", kind);
        out.putAll(o);
        return Collections.unmodifiableMap(out);
    }

    @SuppressWarnings("unchecked")
    private static Object freeze(Object v, int depth, KubeRaw.Budget budget) {
        budget.take(depth);
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                budget.take(depth + 1);
                out.put(String.valueOf(e.getKey()), freeze(e.getValue(), depth + 1, budget));
            }
            return Collections.unmodifiableMap(out);
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object i : l) {
                out.add(freeze(i, depth + 1, budget));
            }
            return Collections.unmodifiableList(out);
        }
        return v;
    }

    /** Keeps {@code raw} for the view, or the reason it is refused. */
    static void keepOrRefuse(Object view, RawSupplier raw, KubeRaw.Builder out) {
        Meta m = ManifestLoader.metaOf(view);
        try {
            out.add(m, raw.get());
        } catch (KubeRaw.TooLarge e) {
            out.refuse(m, KubeRaw.tooLarge(e));
        }
    }

    /** Builds an object's raw form; may throw {@link KubeRaw.TooLarge}. */
    @FunctionalInterface
    interface RawSupplier {
        Map<String, Object> get();
    }
}
