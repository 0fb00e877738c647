package dev.deja.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17 (5): a snapshot whose parts do not hold what deja writes is an input error, not an
 * internal one.
 */
class SnapshotMalformedTest {
    @TempDir Path tmp;

    private TestSupport.Run scan(String text) throws Exception {
        Path f = tmp.resolve("s.json");
        Files.writeString(f, text);
        return TestSupport.run("scan", f.toString());
    }

    @Test
    void malformedPartsAreExit2NamingTheSnapshot() throws Exception {
        String k = Files.readString(SnapshotPartialTest.writeKubeSnapshot(tmp));
        String aws = Files.readString(Path.of("examples/aws/il-0364-snapshot.json"));
        String[][] cases = {
            {
                k.replaceFirst("\"meta\"\\s*:\\s*\\{", "\"meta\" : null, \"x\" : {"),
                "kubernetes.workloads[0]: no meta"
            },
            {
                k.replaceFirst("\"kind\"\\s*:\\s*\"[^\"]*\"", "\"kind\" : null"),
                "meta without kind or name"
            },
            {
                k.replaceFirst("\"workloads\"\\s*:\\s*\\[", "\"workloads\" : [ null, "),
                "kubernetes.workloads[0]: null"
            },
            {
                k.replaceFirst("\"replicas\"\\s*:\\s*\\d+", "\"replicas\" : \"many\""),
                "kubernetes.workloads[0].replicas: Cannot deserialize value of type `java.lang.Integer`"
            },
            {
                aws.replaceFirst("\"port\"\\s*:\\s*\\d+", "\"port\" : 2147483648"),
                "port is out of range (2147483648"
            },
        };
        for (String[] c : cases) {
            assertTrue(!c[0].equals(k) && !c[0].equals(aws), "the edit applied: " + c[1]);
            TestSupport.Run r = scan(c[0]);
            assertEquals(2, r.code(), c[1] + ": " + r.err());
            assertTrue(
                    r.err().startsWith("deja: snapshot malformed: " + tmp.resolve("s.json") + ": "),
                    r.err());
            assertTrue(r.err().contains(c[1]) && r.err().strip().lines().count() == 1, r.err());
        }
    }
}
