package dev.deja.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.progress.Progress;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class ScanRequestTest {

    private static List<Field> instanceFields(Class<?> c) {
        return Arrays.stream(c.getFields())
                .filter(f -> !Modifier.isStatic(f.getModifiers()))
                .toList();
    }

    /** A value of the field's type that differs from every default (a fresh one per field). */
    private static Object sample(Field f) {
        Class<?> t = f.getType();
        String n = f.getName();
        if (t == boolean.class) {
            return true;
        }
        if (t == long.class) {
            return 4242L;
        }
        if (t == String.class) {
            return n + "-value";
        }
        if (t == Path.class) {
            return Path.of(n);
        }
        if (t == List.class) {
            return new ArrayList<>(List.of(n + "-1", n + "-2"));
        }
        if (t == Set.class) {
            return new LinkedHashSet<>(Set.of(n));
        }
        if (t == Map.class) {
            return new LinkedHashMap<>(Map.of(n, "v"));
        }
        if (t == InputStream.class) {
            return new ByteArrayInputStream(new byte[0]);
        }
        if (t == PrintWriter.class) {
            return new PrintWriter(new StringWriter());
        }
        if (t == Progress.class) {
            return (Progress) (source, scope, items) -> {};
        }
        throw new AssertionError("ScanRequestTest: give a sample value for a field of type " + t);
    }

    /**
     * Every field of the builder reaches the request and comes back through toBuilder(): a field
     * added to one side and forgotten in the constructor or toBuilder() fails here by name.
     */
    @Test
    void everyFieldIsBuiltAndCopiedBack() throws Exception {
        List<Field> built = instanceFields(ScanRequest.class);
        List<Field> fill = instanceFields(ScanRequest.Builder.class);
        assertEquals(
                new TreeSet<>(built.stream().map(Field::getName).toList()),
                new TreeSet<>(fill.stream().map(Field::getName).toList()),
                "ScanRequest and ScanRequest.Builder have the same fields");
        for (Field f : built) {
            assertTrue(Modifier.isFinal(f.getModifiers()), f.getName() + " is final");
        }
        ScanRequest.Builder b = ScanRequest.builder();
        Map<String, Object> given = new LinkedHashMap<>();
        for (Field f : fill) {
            Object v = sample(f);
            assertNotEquals(f.get(b), v, f.getName() + ": sample equals the default");
            f.set(b, v);
            given.put(f.getName(), v);
        }
        ScanRequest r = b.build();
        ScanRequest again = r.toBuilder().build();
        for (Field f : built) {
            assertEquals(given.get(f.getName()), f.get(r), f.getName() + " reaches the request");
            assertEquals(
                    given.get(f.getName()), f.get(again), f.getName() + " survives toBuilder()");
        }
    }

    @Test
    void collectionsAreCopiedAndUnmodifiable() {
        ScanRequest.Builder b = ScanRequest.builder();
        b.namespaces.add("shop");
        b.env.put("A", "1");
        ScanRequest r = b.build();
        b.namespaces.add("later");
        b.env.put("B", "2");
        assertEquals(List.of("shop"), r.namespaces);
        assertEquals(Map.of("A", "1"), r.env);
        assertThrows(UnsupportedOperationException.class, () -> r.namespaces.add("x"));
        assertThrows(UnsupportedOperationException.class, () -> r.env.put("x", "y"));
        assertThrows(UnsupportedOperationException.class, () -> r.processEnv.put("x", "y"));

        ScanRequest.Builder c = r.toBuilder(); // a target's copy can change its own lists
        c.namespaces.add("other");
        assertEquals(List.of("shop", "other"), c.build().namespaces);
        assertEquals(List.of("shop"), r.namespaces);
    }

    @Test
    void envKeepsItsOrderAndWinsOverTheProcessEnvironment() {
        ScanRequest.Builder b = ScanRequest.builder();
        b.processEnv = Map.of("X", "process", "Y", "process");
        b.env.put("Z", "1");
        b.env.put("X", "given");
        ScanRequest r = b.build();
        assertEquals(List.of("Z", "X"), List.copyOf(r.env.keySet()));
        assertEquals("given", r.variable("X"));
        assertEquals("process", r.variable("Y"));
        assertEquals(null, r.variable("NOPE"));
    }
}
