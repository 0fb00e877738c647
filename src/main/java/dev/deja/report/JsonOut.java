package dev.deja.report;

import java.util.ArrayDeque;
import java.util.Deque;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Where a report's JSON goes, event by event: straight to text ({@link #to(JsonGenerator)}, nothing
 * held) or into a tree ({@link Tree}, for outputs that embed the report). The report's shape is
 * written once, against this, so both give the same document.
 */
abstract class JsonOut {
    abstract JsonOut startObject();

    abstract JsonOut endObject();

    abstract JsonOut startArray();

    abstract JsonOut endArray();

    /** The next member's name (inside an object). */
    abstract JsonOut name(String name);

    /** A string, or null. */
    abstract JsonOut string(String value);

    abstract JsonOut number(int value);

    abstract JsonOut number(long value);

    abstract JsonOut bool(boolean value);

    /** A JSON tree made elsewhere (e.g. a proof's evidence), as it is. */
    abstract JsonOut node(JsonNode value);

    final JsonOut put(String name, String value) {
        return name(name).string(value);
    }

    final JsonOut put(String name, int value) {
        return name(name).number(value);
    }

    final JsonOut put(String name, long value) {
        return name(name).number(value);
    }

    final JsonOut put(String name, boolean value) {
        return name(name).bool(value);
    }

    final JsonOut startObject(String name) {
        return name(name).startObject();
    }

    final JsonOut startArray(String name) {
        return name(name).startArray();
    }

    /** A member holding an array of strings. */
    final JsonOut strings(String name, Iterable<String> values) {
        startArray(name);
        for (String v : values) {
            string(v);
        }
        return endArray();
    }

    /** Written as it comes, through Jackson's streaming generator ({@link JsonText#generator}). */
    static JsonOut to(JsonGenerator g) {
        return new Text(g);
    }

    /**
     * Jackson's generator, event by event. A hand-written printer of the same text (JsonOut.Pretty,
     * 9d5a2dc) saved the 2,500-finding benchmark report ~13 ms of main-thread time, but kept no
     * benchmark row under its target (issue 31: the library comes back).
     */
    private static final class Text extends JsonOut {
        private final JsonGenerator g;

        Text(JsonGenerator g) {
            this.g = g;
        }

        @Override
        JsonOut startObject() {
            g.writeStartObject();
            return this;
        }

        @Override
        JsonOut endObject() {
            g.writeEndObject();
            return this;
        }

        @Override
        JsonOut startArray() {
            g.writeStartArray();
            return this;
        }

        @Override
        JsonOut endArray() {
            g.writeEndArray();
            return this;
        }

        @Override
        JsonOut name(String name) {
            g.writeName(name);
            return this;
        }

        @Override
        JsonOut string(String value) {
            g.writeString(value);
            return this;
        }

        @Override
        JsonOut number(int value) {
            g.writeNumber(value);
            return this;
        }

        @Override
        JsonOut number(long value) {
            g.writeNumber(value);
            return this;
        }

        @Override
        JsonOut bool(boolean value) {
            g.writeBoolean(value);
            return this;
        }

        @Override
        JsonOut node(JsonNode value) {
            JsonText.write(g, value);
            return this;
        }
    }

    /**
     * Builds the tree: each value goes into the innermost open object (under the pending name) or
     * array. Numbers keep their Java type (int -> IntNode, long -> LongNode) as {@code
     * ObjectNode.put} gives them.
     */
    public static final class Tree extends JsonOut {
        private static final JsonNodeFactory F = JsonNodeFactory.instance;
        private final Deque<JsonNode> open = new ArrayDeque<>();
        private String pending;
        private JsonNode root;

        /** The finished tree (the first value written). */
        JsonNode root() {
            if (!open.isEmpty()) {
                throw new IllegalStateException(
                        "JSON tree not finished: " + open.size() + " containers open");
            }
            return root;
        }

        private void add(JsonNode n) {
            JsonNode parent = open.peek();
            if (parent == null) {
                if (root != null) {
                    throw new IllegalStateException("a second top-level JSON value");
                }
                root = n;
            } else if (parent instanceof ObjectNode o) {
                if (pending == null) {
                    throw new IllegalStateException("a member without a name");
                }
                o.set(pending, n);
                pending = null;
            } else {
                ((ArrayNode) parent).add(n);
            }
        }

        @Override
        JsonOut startObject() {
            ObjectNode o = F.objectNode();
            add(o);
            open.push(o);
            return this;
        }

        @Override
        JsonOut endObject() {
            if (!(open.pop() instanceof ObjectNode)) {
                throw new IllegalStateException("endObject closes an array");
            }
            return this;
        }

        @Override
        JsonOut startArray() {
            ArrayNode a = F.arrayNode();
            add(a);
            open.push(a);
            return this;
        }

        @Override
        JsonOut endArray() {
            if (!(open.pop() instanceof ArrayNode)) {
                throw new IllegalStateException("endArray closes an object");
            }
            return this;
        }

        @Override
        JsonOut name(String name) {
            pending = name;
            return this;
        }

        @Override
        JsonOut string(String value) {
            add(value == null ? F.nullNode() : F.stringNode(value));
            return this;
        }

        @Override
        JsonOut number(int value) {
            add(F.numberNode(value));
            return this;
        }

        @Override
        JsonOut number(long value) {
            add(F.numberNode(value));
            return this;
        }

        @Override
        JsonOut bool(boolean value) {
            add(F.booleanNode(value));
            return this;
        }

        @Override
        JsonOut node(JsonNode value) {
            add(value);
            return this;
        }
    }
}
