package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The hand-written JSON text ({@link JsonOut.Pretty}) is character for character what Jackson's
 * generator with its default pretty printer writes ({@link JsonText#writePretty}, itself checked
 * against the mapper in JsonTextTest): every UTF-16 code unit, every value type, every nesting.
 */
class JsonOutPrettyTest {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private static String jackson(JsonNode n) {
        StringWriter w = new StringWriter();
        JsonText.writePretty(n, w);
        return w.toString();
    }

    /** The tree as {@link JsonOut.Pretty} writes it (FigureJsonTest uses it too). */
    static String pretty(JsonNode n) throws IOException {
        StringWriter w = new StringWriter();
        JsonOut.Pretty p = JsonOut.pretty(w);
        p.node(n);
        p.finish();
        return w.toString();
    }

    /** Equal texts; when not, the first difference with some context (the texts are megabytes). */
    private static void same(JsonNode n) throws IOException {
        String expected = jackson(n);
        String actual = pretty(n);
        if (!expected.equals(actual)) {
            int i = 0;
            while (i < expected.length()
                    && i < actual.length()
                    && expected.charAt(i) == actual.charAt(i)) {
                i++;
            }
            int from = Math.max(0, i - 40);
            fail(
                    "first difference at char "
                            + i
                            + ": expected ..."
                            + expected.substring(from, Math.min(expected.length(), i + 40))
                            + "... but was ..."
                            + actual.substring(from, Math.min(actual.length(), i + 40))
                            + "...");
        }
    }

    @Test
    void everyCharacterAsAValueAndAsAName() throws IOException {
        ArrayNode alone = F.arrayNode();
        ObjectNode names = F.objectNode();
        ArrayNode inText = F.arrayNode();
        for (int c = 0; c <= 0xFFFF; c++) {
            String s = String.valueOf((char) c);
            alone.add(s);
            names.put("k" + s, c);
            inText.add("before " + s + " after" + s);
        }
        same(alone);
        same(names);
        same(inText);
        // surrogate pairs, a lone surrogate, several escapes in a row, escapes at both ends
        same(
                F.arrayNode()
                        .add("😀 \ud83d x \ude00")
                        .add("\"\\\n\r\t\b\f\u0000\u001f\u007f\u2028\u2029")
                        .add("\n")
                        .add("")
                        .add("é\"é"));
    }

    @Test
    void everyValueTypeAndNesting() throws IOException {
        ObjectNode root = F.objectNode();
        root.put("s", "text");
        root.putNull("n");
        root.put("t", true);
        root.put("f", false);
        root.put("i", 42);
        root.put("neg", -7);
        root.put("l", Long.MIN_VALUE);
        root.put("d", 0.25);
        root.put("dbig", 1e300);
        root.put("nan", Double.NaN);
        root.put("inf", Double.NEGATIVE_INFINITY);
        root.put("fl", 1.1f);
        root.put("bi", new BigInteger("123456789012345678901234567890"));
        root.put("bd", new BigDecimal("1.50"));
        root.put("bde", new BigDecimal("1E+5"));
        root.putArray("emptyArray");
        root.putObject("emptyObject");
        root.putArray("strings").add("a").add("b");
        ArrayNode objects = root.putArray("objects");
        objects.addObject().put("k", 1).putArray("inner").addObject();
        objects.addObject();
        objects.addArray()
                .addArray()
                .add(1)
                .addObject()
                .put("deep", "x")
                .putObject("deeper")
                .put("z", 0);
        ObjectNode o = root.putObject("nested");
        for (int i = 0; i < 40; i++) {
            o = o.putObject("level" + i);
        }
        o.put("bottom", "here");
        same(root);
        same(F.arrayNode());
        same(F.objectNode());
        same(F.arrayNode().add(F.objectNode()).add(F.arrayNode()));
        same(F.stringNode("a root string"));
        same(F.numberNode(3));
        same(F.nullNode());
    }

    @Test
    void largerThanItsBuffer() throws IOException {
        ArrayNode a = F.arrayNode();
        for (int i = 0; i < 20_000; i++) {
            a.addObject()
                    .put("i", i)
                    .put("message", "frontend fe_" + i + " says \"é\"\n".repeat(i % 7))
                    .putArray("notes")
                    .add("x".repeat(i % 3000));
        }
        same(a);
    }

    @Test
    void unbalancedEventsAreRefused() {
        JsonOut.Pretty p = JsonOut.pretty(new StringWriter());
        p.startObject();
        assertThrows(IllegalStateException.class, p::endArray);
        assertThrows(IllegalStateException.class, p::finish);
        JsonOut.Pretty q = JsonOut.pretty(new StringWriter());
        q.startArray();
        assertThrows(IllegalStateException.class, () -> q.name("x"));
    }
}
