package dev.deja.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kubectl prints a failed kustomize build as klog's {@code "command failed" err=<} with the reason
 * on the lines after it: deja's one line keeps the reason.
 */
class KustomizeReasonTest {
    static final String KLOG =
            "E1201 09:14:02.123456   4242 run.go:72] \"command failed\" err=<\n"
                    + "\taccumulating resources: accumulation err='accumulating resources from"
                    + " 'https://example.invalid/base': no such host'\n"
                    + "\tmust build at directory: not a valid directory\n"
                    + " >\n";

    @Test
    void theReasonAfterCommandFailedIsKept(@TempDir Path tmp) throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Path kubectl = bin.resolve("kubectl");
        Files.writeString(kubectl, "#!/bin/sh\ncat >&2 <<'X'\n" + KLOG + "X\nexit 1\n");
        Files.setPosixFilePermissions(kubectl, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path k = Files.createDirectories(tmp.resolve("overlay"));
        Files.writeString(
                k.resolve("kustomization.yaml"), "resources: [https://example.invalid/base]\n");
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of("PATH", bin.toString()),
                        "scan",
                        k.toString());
        assertEquals(2, r.code(), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(
                r.err()
                        .startsWith(
                                "deja: "
                                        + k
                                        + ": kubectl kustomize failed: E1201 09:14:02.123456   4242"
                                        + " run.go:72] \"command failed\": accumulating resources:"),
                r.err());
        assertTrue(r.err().contains("no such host"), r.err());
        assertTrue(r.err().contains("must build at directory"), r.err());
    }

    @Test
    void anyOtherErrorIsItsFirstLine() {
        assertEquals("error: boom", Kustomize.reason("\nerror: boom\nmore\n", 1));
        assertEquals("exit 3", Kustomize.reason("", 3));
    }
}
