package dev.deja.report;

import java.io.Writer;
import java.util.Map;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.PrettyPrinter;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.databind.JsonNode;

/**
 * Writes a JSON tree as indented text with Jackson's streaming generator: the same text as an
 * {@code ObjectMapper}'s default pretty printer, without starting the mapper's serializer machinery
 * (tens of milliseconds of a short scan's start-up).
 */
public final class JsonText {
    /** Leaves the writer open: the caller writes after it and closes it. */
    private static final JsonFactory JSON =
            JsonFactory.builder().disable(StreamWriteFeature.AUTO_CLOSE_TARGET).build();

    private JsonText() {}

    public static void writePretty(JsonNode tree, Writer out) {
        try (JsonGenerator g = generator(out)) {
            write(g, tree);
        }
    }

    /**
     * A generator writing indented text to {@code out} (left open when the generator is closed),
     * the same text as an {@code ObjectMapper}'s default pretty printer.
     */
    static JsonGenerator generator(Writer out) {
        return JSON.createGenerator(PRETTY, out);
    }

    private static final ObjectWriteContext PRETTY =
            new ObjectWriteContext.Base() {
                @Override
                public PrettyPrinter getPrettyPrinter() {
                    return new DefaultPrettyPrinter();
                }

                @Override
                public boolean hasPrettyPrinter() {
                    return true;
                }
            };

    static void write(JsonGenerator g, JsonNode n) {
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
