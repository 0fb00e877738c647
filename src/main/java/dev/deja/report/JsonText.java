package dev.deja.report;

import java.io.Writer;
import java.util.Map;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.PrettyPrinter;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.databind.JsonNode;

/**
 * Writes a JSON tree as indented text with Jackson's streaming generator: the same text as an
 * {@code ObjectMapper}'s default pretty printer, without starting the mapper's serializer machinery (tens of
 * milliseconds of a short scan's start-up).
 */
public final class JsonText {
    /** Leaves the writer open: the caller writes after it and closes it. */
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(tools.jackson.core.StreamWriteFeature.AUTO_CLOSE_TARGET).build();

    private JsonText() {
    }

    public static void writePretty(JsonNode tree, Writer out) {
        writePretty(tree, out, Map.of());
    }

    /**
     * Writes {@code tree}; a top-level field named in {@code streamed} (an empty array in the tree) gets the
     * iterator's nodes instead, made as they are written.
     */
    public static void writePretty(JsonNode tree, Writer out, Map<String, java.util.Iterator<JsonNode>> streamed) {
        ObjectWriteContext pretty = new ObjectWriteContext.Base() {
            @Override
            public PrettyPrinter getPrettyPrinter() {
                return new DefaultPrettyPrinter();
            }

            @Override
            public boolean hasPrettyPrinter() {
                return true;
            }
        };
        try (JsonGenerator g = JSON.createGenerator(pretty, out)) {
            if (streamed.isEmpty() || !tree.isObject()) {
                write(g, tree);
                return;
            }
            g.writeStartObject();
            for (Map.Entry<String, JsonNode> e : tree.properties()) {
                g.writeName(e.getKey());
                java.util.Iterator<JsonNode> items = streamed.get(e.getKey());
                if (items == null) {
                    write(g, e.getValue());
                    continue;
                }
                g.writeStartArray();
                while (items.hasNext()) {
                    write(g, items.next());
                }
                g.writeEndArray();
            }
            g.writeEndObject();
        }
    }

    private static void write(JsonGenerator g, JsonNode n) {
        switch (n.getNodeType()) {
            case OBJECT -> {
                g.writeStartObject();
                for (Map.Entry<String, JsonNode> e : n.properties()) {
                    g.writeName(e.getKey());
                    write(g, e.getValue());
                }
                g.writeEndObject();
            }
            case ARRAY -> {
                g.writeStartArray();
                for (JsonNode item : n) {
                    write(g, item);
                }
                g.writeEndArray();
            }
            case STRING -> g.writeString(n.asString());
            case BOOLEAN -> g.writeBoolean(n.booleanValue());
            case NUMBER -> {
                if (n.isIntegralNumber() && n.canConvertToLong()) {
                    g.writeNumber(n.longValue());
                } else if (n.isDouble() || n.isFloat()) {
                    g.writeNumber(n.doubleValue());
                } else if (n.isIntegralNumber()) {
                    g.writeNumber(n.bigIntegerValue());
                } else {
                    g.writeNumber(n.decimalValue());
                }
            }
            case NULL, MISSING -> g.writeNull();
            default -> g.writeString(n.asString());
        }
    }
}
