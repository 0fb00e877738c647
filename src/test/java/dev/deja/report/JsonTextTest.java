package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The streaming writer gives the same text as the mapper's default pretty printer, value type by
 * value type.
 */
class JsonTextTest {
    @Test
    void sameTextAsTheMappersPrettyPrinter() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode root = f.objectNode();
        root.put("s", "quote \" backslash \\ tab \t newline \n unicode é \u0001");
        root.put("i", 42);
        root.put("l", 1L << 40);
        root.put("d", 0.25);
        root.put("big", 1e300);
        root.put("bi", new BigInteger("123456789012345678901234567890"));
        root.put("bd", new BigDecimal("1.50"));
        root.put("t", true);
        root.putNull("n");
        root.putArray("empty");
        root.putObject("nested").putArray("a").add(1).add("x").addObject().put("k", false);
        StringWriter w = new StringWriter();
        JsonText.writePretty(root, w);
        assertEquals(
                JsonMapper.builder()
                        .build()
                        .writerWithDefaultPrettyPrinter()
                        .writeValueAsString(root),
                w.toString());
    }

    @Test
    void theCallersWriterStaysOpen() throws IOException {
        boolean[] closed = {false};
        StringWriter w =
                new StringWriter() {
                    @Override
                    public void close() {
                        closed[0] = true;
                    }
                };
        JsonText.writePretty(JsonNodeFactory.instance.objectNode().put("a", 1), w);
        w.write("\n"); // the reporters end the document with a newline
        assertEquals(false, closed[0]);
        assertEquals("{\n  \"a\" : 1\n}\n", w.toString());
    }
}
