package dev.deja.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Where a report's JSON goes, event by event: straight to text ({@link Pretty}, nothing held) or
 * into a tree ({@link Tree}, for outputs that embed the report). The report's shape is written
 * once, against this, so both give the same document.
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

    /**
     * Indented text written by {@link Pretty} into {@code out} (left open; the rest is written at
     * {@link Pretty#finish}).
     */
    static Pretty pretty(Writer out) {
        return new Pretty(out);
    }

    /**
     * Indented JSON text written by hand, character for character what Jackson's generator with its
     * {@code DefaultPrettyPrinter} writes ({@link JsonText#writePretty}): objects one member a line
     * indented by two spaces per level with {@code " : "}, arrays on one line ({@code [ a, b ]},
     * {@code [ ]}), strings escaped as the generator's defaults do (quote, backslash and the
     * control characters below U+0020 only; the rest as it is). A report of thousands of findings
     * is mostly this: the generator's layers (pretty printer, indenters, write contexts, escape
     * tables) cost a short-lived JVM ~200 more methods to compile and ~10 us per finding.
     * JsonOutPrettyTest holds it to the generator's text.
     */
    static final class Pretty extends JsonOut {
        private static final String LINE_FEED = System.lineSeparator(); // DefaultIndenter's
        private static final char[] HEX = "0123456789ABCDEF".toCharArray();
        private static final int FLUSH_AT = 8192;
        private final Writer out;
        private char[] buf = new char[FLUSH_AT + 1024];
        private int len;

        /** Per open container (innermost last): an object?, and how many values it has so far. */
        private boolean[] object = new boolean[16];

        private int[] count = new int[16];
        private int depth;

        /** Open objects: the indentation level (arrays stay on one line). */
        private int nesting;

        private Pretty(Writer out) {
            this.out = out;
        }

        /** Writes what is left to the writer (left open). */
        void finish() throws IOException {
            if (depth != 0) {
                throw new IllegalStateException(
                        "JSON text not finished: " + depth + " containers open");
            }
            out.write(buf, 0, len);
            len = 0;
        }

        private void room(int n) {
            if (len + n > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
            }
        }

        private void flushIfFull() {
            if (len >= FLUSH_AT) {
                try {
                    out.write(buf, 0, len);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                len = 0;
            }
        }

        private void append(char c) {
            room(1);
            buf[len++] = c;
        }

        private void append(String s) {
            int n = s.length();
            room(n);
            s.getChars(0, n, buf, len);
            len += n;
        }

        private void indent() {
            append(LINE_FEED);
            int n = nesting * 2;
            room(n);
            Arrays.fill(buf, len, len + n, ' ');
            len += n;
        }

        /** What goes before a value: " : " after a member's name, ", " between array items. */
        private void beforeValue() {
            if (depth == 0) {
                return;
            }
            if (object[depth - 1]) {
                append(" : ");
            } else {
                append(count[depth - 1]++ == 0 ? " " : ", ");
            }
        }

        private void push(boolean isObject) {
            if (depth == object.length) {
                object = Arrays.copyOf(object, depth * 2);
                count = Arrays.copyOf(count, depth * 2);
            }
            object[depth] = isObject;
            count[depth++] = 0;
        }

        private void pop(boolean isObject) {
            if (depth == 0 || object[depth - 1] != isObject) {
                throw new IllegalStateException(
                        (isObject ? "endObject" : "endArray") + " without its start");
            }
            depth--;
        }

        @Override
        JsonOut startObject() {
            beforeValue();
            append('{');
            push(true);
            nesting++;
            return this;
        }

        @Override
        JsonOut endObject() {
            boolean empty = depth > 0 && count[depth - 1] == 0;
            pop(true);
            nesting--;
            if (empty) {
                append(' ');
            } else {
                indent();
            }
            append('}');
            flushIfFull();
            return this;
        }

        @Override
        JsonOut startArray() {
            beforeValue();
            append('[');
            push(false);
            return this;
        }

        @Override
        JsonOut endArray() {
            pop(false);
            append(" ]");
            flushIfFull();
            return this;
        }

        @Override
        JsonOut name(String name) {
            if (depth == 0 || !object[depth - 1]) {
                throw new IllegalStateException("a member name outside an object");
            }
            if (count[depth - 1]++ > 0) {
                append(',');
            }
            indent();
            quoted(name);
            return this;
        }

        @Override
        JsonOut string(String value) {
            beforeValue();
            if (value == null) {
                append("null");
            } else {
                quoted(value);
            }
            return this;
        }

        /** The string between quotes, escaped as the generator's defaults escape it. */
        private void quoted(String s) {
            int n = s.length();
            room(n + 2);
            buf[len++] = '"';
            int start = len;
            s.getChars(0, n, buf, start);
            len += n;
            for (int i = start; i < len; i++) {
                char c = buf[i];
                if (c < 0x20 || c == '"' || c == '\\') {
                    escapeFrom(s, i - start);
                    break;
                }
            }
            append('"');
        }

        /**
         * Writes the string's characters again from index {@code from} on (they were copied as they
         * are), escaping as it goes.
         */
        private void escapeFrom(String s, int from) {
            int n = s.length();
            len -= n - from;
            for (int i = from; i < n; i++) {
                char c = s.charAt(i);
                if (c >= 0x20 && c != '"' && c != '\\') {
                    append(c);
                    continue;
                }
                switch (c) {
                    case '"' -> append("\\\"");
                    case '\\' -> append("\\\\");
                    case '\b' -> append("\\b");
                    case '\t' -> append("\\t");
                    case '\n' -> append("\\n");
                    case '\f' -> append("\\f");
                    case '\r' -> append("\\r");
                    default -> {
                        append("\\u00");
                        append(HEX[c >> 4]);
                        append(HEX[c & 0xF]);
                    }
                }
            }
        }

        @Override
        JsonOut number(int value) {
            beforeValue();
            append(Integer.toString(value));
            return this;
        }

        @Override
        JsonOut number(long value) {
            beforeValue();
            append(Long.toString(value));
            return this;
        }

        @Override
        JsonOut bool(boolean value) {
            beforeValue();
            append(value ? "true" : "false");
            return this;
        }

        /** A tree, as {@link JsonText#write} writes it through the generator. */
        @Override
        JsonOut node(JsonNode n) {
            switch (n.getNodeType()) {
                case OBJECT -> {
                    startObject();
                    for (Map.Entry<String, JsonNode> e : n.properties()) {
                        name(e.getKey());
                        node(e.getValue());
                    }
                    endObject();
                }
                case ARRAY -> {
                    startArray();
                    for (JsonNode item : n) {
                        node(item);
                    }
                    endArray();
                }
                case STRING -> string(n.asString());
                case BOOLEAN -> bool(n.booleanValue());
                case NUMBER -> {
                    if (n.isIntegralNumber() && n.canConvertToLong()) {
                        number(n.longValue());
                    } else {
                        // floating-point and big numbers (rare): the generator's own text
                        beforeValue();
                        append(JsonText.scalar(n));
                    }
                }
                case NULL, MISSING -> string(null);
                default -> string(n.asString());
            }
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
