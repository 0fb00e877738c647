package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.deja.TestSupport;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 17 (8): a key set twice in a manifest is refused like kubectl does, naming file:line. */
class DuplicateKeysTest {
    @TempDir Path tmp;

    private TestSupport.Run scan(String name, String text) throws Exception {
        Path f = tmp.resolve(name);
        Files.writeString(f, text);
        return TestSupport.run("scan", "--fail-on", "none", f.toString());
    }

    @Test
    void aKeySetTwiceIsAnInputErrorNamingBothLines() throws Exception {
        TestSupport.Run r =
                scan(
                        "d.yaml",
                        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n"
                                + "  replicas: 1\n  selector: {}\n  replicas: 5\n");
        assertEquals(2, r.code(), r.err());
        assertEquals(
                "deja: "
                        + tmp.resolve("d.yaml")
                        + ":8: key \"replicas\" already set in this mapping (line 6);"
                        + " kubectl refuses duplicate keys and the API server would keep the last value\n",
                r.err());
        // deep inside a list item of a later document, and in JSON
        TestSupport.Run deep =
                scan(
                        "l.yaml",
                        "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\n"
                                + "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n"
                                + "  data:\n    k: a\n    k: b\n");
        assertEquals(2, deep.code(), deep.err());
        assertEquals(
                "deja: "
                        + tmp.resolve("l.yaml")
                        + ":14: key \"k\" already set in this mapping (line 13);"
                        + " kubectl refuses duplicate keys and the API server would keep the last value\n",
                deep.err());
        TestSupport.Run json =
                scan(
                        "j.json",
                        "{\"apiVersion\": \"v1\", \"kind\": \"Service\",\n \"metadata\": {\"name\": \"a\"},"
                                + "\n \"metadata\": {\"name\": \"b\"}}\n");
        assertEquals(2, json.code(), json.err());
        assertEquals(
                true,
                json.err()
                        .startsWith(
                                "deja: "
                                        + tmp.resolve("j.json")
                                        + ":3: key \"metadata\" already set"),
                json.err());
    }

    @Test
    void mergeKeysAndAliasesAreNotDuplicates() throws Exception {
        TestSupport.Run r =
                scan(
                        "m.yaml",
                        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels: &l {a: b}\n"
                                + "  annotations:\n    <<: *l\n    x: y\ndata:\n  one: *l\n  two: *l\n");
        assertEquals(0, r.code(), r.err());
    }

    /** Issue 17 (10): a character YAML forbids (binary content) is named with its line. */
    @Test
    void aForbiddenCharacterNamesItsLine() throws Exception {
        Path f = tmp.resolve("bin.yaml");
        Files.write(
                f,
                "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\u0001b\n"
                        .getBytes(StandardCharsets.UTF_8));
        TestSupport.Run r = TestSupport.run("scan", f.toString());
        assertEquals(2, r.code(), r.err());
        assertEquals(
                "deja: "
                        + f
                        + ":4: not valid YAML: character U+0001 is not allowed (binary content?)\n",
                r.err());
    }
}
