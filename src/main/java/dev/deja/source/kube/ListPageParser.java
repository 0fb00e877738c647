package dev.deja.source.kube;

import dev.deja.model.kube.ViewReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;

/**
 * Reads one page of a list from the API server ({@code {"metadata": {"continue": ...}, "items":
 * [...]}}) with a streaming parser, without building a tree of the whole page:
 *
 * <ul>
 *   <li>the {@code continue} token is handed over as soon as it is read (the API server writes
 *       {@code metadata} before {@code items}), so that the next page can be requested while this
 *       one is still being read;
 *   <li>each item becomes a small tree of maps, lists and strings, handed over at once and then
 *       dropped;
 *   <li>what no view reads is skipped without being built: an item's {@code status}, {@code
 *       metadata.managedFields}, the {@value ViewReader#LAST_APPLIED} annotation (a copy of the
 *       whole object), a container's fields other than {@link ViewReader#CONTAINER_FIELDS}
 *       (environment, mounts, resources) and a pod spec's {@link ViewReader#POD_SPEC_SKIPPED}
 *       (volumes, tolerations).
 * </ul>
 *
 * Scalars are kept as their JSON text ({@code 3}, {@code true}), as {@link Tree#text()} reads them;
 * JSON nulls are left out, as if absent.
 */
final class ListPageParser {
    private static final JsonFactory JSON = new JsonFactory();

    private ListPageParser() {}

    /**
     * Parses a page; {@code onContinue} gets the non-empty continue token (at most once), {@code
     * onItem} each item.
     *
     * @throws JacksonException when the body is not a JSON object
     */
    static void parse(
            byte[] body, Consumer<String> onContinue, Consumer<Map<String, Object>> onItem) {
        parse(body, onContinue, onItem, false);
    }

    /**
     * As {@link #parse(byte[], Consumer, Consumer)}; with {@code whole}, each item is read whole
     * (its {@code status}, every container and pod spec field) with JSON's types (longs, doubles,
     * booleans), for {@link dev.deja.model.kube.KubeRaw}: only {@code metadata.managedFields} and
     * the last-applied annotation are skipped.
     */
    static void parse(
            byte[] body,
            Consumer<String> onContinue,
            Consumer<Map<String, Object>> onItem,
            boolean whole) {
        parse(new Chunks(List.of(body), body.length), onContinue, onItem, whole);
    }

    /** As {@link #parse(byte[], Consumer, Consumer, boolean)}, over the chunks of an answer. */
    static void parse(
            Chunks body,
            Consumer<String> onContinue,
            Consumer<Map<String, Object>> onItem,
            boolean whole) {
        try (JsonParser p = JSON.createParser(ObjectReadContext.empty(), body.stream())) {
            parse(p, onContinue, onItem, whole);
        }
    }

    private static void parse(
            JsonParser p,
            Consumer<String> onContinue,
            Consumer<Map<String, Object>> onItem,
            boolean whole) {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new IllegalArgumentException("a list page must be a JSON object");
        }
        boolean items = false;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            JsonToken t = p.nextToken();
            if (name.equals("metadata") && t == JsonToken.START_OBJECT) {
                String token = continueToken(p);
                if (token != null && !token.isEmpty()) {
                    onContinue.accept(token);
                }
            } else if (name.equals("items") && t == JsonToken.START_ARRAY) {
                items = true;
                int n = 0;
                for (JsonToken item = p.nextToken();
                        item != JsonToken.END_ARRAY;
                        item = p.nextToken()) {
                    if (item != JsonToken.START_OBJECT) {
                        throw new IllegalArgumentException(
                                "item "
                                        + n
                                        + " of the list is not an object: "
                                        + (item == JsonToken.START_ARRAY
                                                ? "an array"
                                                : p.getString()));
                    }
                    onItem.accept(object(p, 0, null, whole));
                    n++;
                }
            } else {
                p.skipChildren();
            }
        }
        if (!items) { // an API server always sends "items", even empty: this is another kind of
            // server
            throw new IllegalArgumentException(
                    "a JSON object without \"items\", not a Kubernetes list");
        }
    }

    /**
     * A top-level string field of a JSON object (e.g. the {@code message} of a Status), or null.
     */
    static String topLevelString(byte[] body, String key) {
        try (JsonParser p = JSON.createParser(ObjectReadContext.empty(), body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String name = p.currentName();
                if (p.nextToken() == JsonToken.VALUE_STRING && name.equals(key)) {
                    return p.getString();
                }
                p.skipChildren();
            }
            return null;
        } catch (JacksonException e) {
            return null;
        }
    }

    private static String continueToken(JsonParser p) {
        String token = null;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            JsonToken t = p.nextToken();
            if (name.equals("continue") && t == JsonToken.VALUE_STRING) {
                token = p.getString();
            } else {
                p.skipChildren();
            }
        }
        return token;
    }

    /**
     * The object the parser is at (its START_OBJECT read); {@code depth} 0 is an item, 1 its
     * fields, and so on; {@code holder} is the key that holds it (for the elements of an array, the
     * array's key).
     */
    private static Map<String, Object> object(
            JsonParser p, int depth, String holder, boolean whole) {
        Map<String, Object> m = new LinkedHashMap<>();
        boolean container = !whole && "containers".equals(holder);
        boolean podSpec =
                !whole
                        && "spec".equals(holder)
                        && depth > 1; // a workload's template.spec (an item's own is depth 1)
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            JsonToken t = p.nextToken();
            if ((whole ? skippedWhole(depth, name) : skipped(depth, name))
                    || container && !ViewReader.CONTAINER_FIELDS.contains(name)
                    || podSpec && ViewReader.POD_SPEC_SKIPPED.contains(name)) {
                p.skipChildren();
                continue;
            }
            Object v = value(p, t, depth + 1, name, whole);
            if (v != null) {
                m.put(name, v);
            }
        }
        return m;
    }

    /** What a whole item leaves out: {@code metadata.managedFields}, the last-applied copy. */
    private static boolean skippedWhole(int depth, String name) {
        return depth == 1 && name.equals("managedFields")
                || depth == 2 && name.equals(ViewReader.LAST_APPLIED);
    }

    /** Fields no view reads: the item is the root (depth 0), so depth and name tell them apart. */
    private static boolean skipped(int depth, String name) {
        return depth == 0 && name.equals("status")
                || depth == 1 && name.equals("managedFields")
                || depth == 2 && name.equals(ViewReader.LAST_APPLIED);
    }

    private static Object value(JsonParser p, JsonToken t, int depth, String key, boolean whole) {
        if (whole) {
            switch (t) {
                case VALUE_NUMBER_INT:
                    return p.getNumberType() == JsonParser.NumberType.INT
                                    || p.getNumberType() == JsonParser.NumberType.LONG
                            ? (Object) p.getLongValue()
                            : (Object) p.getDoubleValue();
                case VALUE_NUMBER_FLOAT:
                    return p.getDoubleValue();
                case VALUE_TRUE:
                    return Boolean.TRUE;
                case VALUE_FALSE:
                    return Boolean.FALSE;
                default:
                    break;
            }
        }
        return switch (t) {
            case START_OBJECT -> object(p, depth, key, whole);
            case START_ARRAY -> {
                List<Object> l = new ArrayList<>();
                for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
                    Object v = value(p, e, depth + 1, key, whole);
                    if (v != null) {
                        l.add(v);
                    }
                }
                yield l;
            }
            case VALUE_NULL -> null;
            default -> p.getString();
        };
    }
}
