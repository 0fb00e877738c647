package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A folder scan with one broken file: without {@code --allow-partial} exit 2 with the file's one
 * line and no report (as before); with it, the broken files are "not checked" with that line and
 * the others are scanned and reported.
 */
class PartialInputsTest {
    static final String GOOD =
            """
            defaults
                mode http
                timeout client 30s
                timeout server 30s
                timeout connect 5s

            frontend fe_web
                bind :8080
                default_backend be_app

            backend be_app
                server a 10.0.0.1:8080
            """;

    /** No newline after its last line: HAProxy 2.3+ refuses it. */
    static final String NO_LF =
            "defaults\n    mode http\n    timeout connect 5s\n\nbackend be_x\n    server b 10.0.0.2:80";

    static final String DUPLICATE_KEY =
            """
            apiVersion: v1
            kind: Service
            metadata:
              name: web
              name: web2
            spec:
              ports:
                - port: 80
            """;

    static Path folder(Path dir) throws Exception {
        Files.writeString(dir.resolve("a-good.cfg"), GOOD, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("b-nolf.cfg"), NO_LF, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("c-dup.yaml"), DUPLICATE_KEY, StandardCharsets.UTF_8);
        return dir;
    }

    static final String NO_LF_LINE = "b-nolf.cfg:6: missing LF on last line";
    static final String DUP_LINE = "c-dup.yaml:5: key \"name\" already set in this mapping";

    @Test
    void withoutAllowPartialTheFirstBrokenFileStopsTheScan(@TempDir Path dir) throws Exception {
        folder(dir);
        TestSupport.Run r = TestSupport.run("scan", dir.toString());
        assertEquals(2, r.code(), r.err());
        assertEquals("", r.out());
        String err = r.err().strip();
        assertFalse(err.contains("\n"), err);
        // one of the two broken files (the manifests are read before the HAProxy configurations)
        assertTrue(
                err.startsWith("deja: " + dir.resolve(NO_LF_LINE))
                        || err.startsWith("deja: " + dir.resolve(DUP_LINE)),
                err);
    }

    @Test
    void withAllowPartialTheOthersAreScannedAndTheBrokenOnesNotChecked(@TempDir Path dir)
            throws Exception {
        folder(dir);
        TestSupport.Run r = TestSupport.run("scan", "--allow-partial", dir.toString());
        assertEquals(1, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("haproxy-missing-http-request-timeout"), r.out());
        assertTrue(r.out().contains("frontend fe_web (" + dir.resolve("a-good.cfg") + ":7)"));
        String notChecked = r.out().substring(r.out().indexOf("Not checked:"));
        assertTrue(
                notChecked.contains(
                        "  - haproxy: "
                                + dir.resolve("b-nolf.cfg")
                                + ": failed ("
                                + dir.resolve(NO_LF_LINE)),
                notChecked);
        assertTrue(
                notChecked.contains(
                        "  - kubernetes: "
                                + dir.resolve("c-dup.yaml")
                                + ": failed ("
                                + dir.resolve(DUP_LINE)),
                notChecked);
        assertTrue(r.err().contains("deja: " + dir.resolve(NO_LF_LINE)), r.err());
        assertTrue(r.err().contains("deja: " + dir.resolve(DUP_LINE)), r.err());

        TestSupport.Run j =
                TestSupport.run("scan", "--allow-partial", "--format", "json", dir.toString());
        assertEquals(1, j.code(), j.err());
        JsonNode report = j.json();
        List<String> rules = new ArrayList<>();
        report.path("findings").forEach(f -> rules.add(f.path("ruleId").asString("")));
        assertTrue(rules.contains("haproxy-missing-http-request-timeout"), rules.toString());
        assertFalse(report.path("coverage").path("complete").asBoolean(true));
        List<String> failed = new ArrayList<>();
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (e.path("status").asString("").equals("failed")) {
                assertTrue(
                        e.path("detail").asString("").startsWith(e.path("scope").asString("?")),
                        e.toString());
                failed.add(e.path("source").asString("") + " " + e.path("detail").asString(""));
            }
        }
        assertEquals(2, failed.size(), failed.toString());
        assertTrue(failed.get(0).startsWith("haproxy " + dir.resolve(NO_LF_LINE)), failed.get(0));
        assertTrue(failed.get(1).startsWith("kubernetes " + dir.resolve(DUP_LINE)), failed.get(1));
    }

    @Test
    void aBinaryFileInTheFolderIsNotCheckedToo(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a-good.cfg"), GOOD, StandardCharsets.UTF_8);
        Files.write(dir.resolve("z.cfg"), new byte[] {'g', 'l', 'o', 0, '\n'});
        TestSupport.Run r =
                TestSupport.run("scan", "--allow-partial", "--format", "json", dir.toString());
        assertEquals(1, r.code(), r.err());
        JsonNode e = null;
        for (JsonNode x : r.json().path("coverage").path("entries")) {
            if (x.path("scope").asString("").equals(dir.resolve("z.cfg").toString())) {
                e = x;
            }
        }
        assertTrue(e != null, r.out());
        assertEquals("files", e.path("source").asString(""), e.toString());
        assertEquals("failed", e.path("status").asString(""), e.toString());
        assertEquals(
                dir.resolve("z.cfg")
                        + ":1: binary file (NUL byte), not a configuration or manifest",
                e.path("detail").asString(""));
        assertEquals(2, TestSupport.run("scan", dir.toString()).code());
    }

    /**
     * A snapshot that is not valid JSON, or names a part deja does not know, is refused before any
     * of it is read: not checked with --allow-partial.
     */
    @Test
    void aBrokenSnapshotInTheFolderIsNotChecked(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a-good.cfg"), GOOD, StandardCharsets.UTF_8);
        Files.writeString(
                dir.resolve("cut.json"),
                "{\"format\": \"deja-snapshot\", \"version\": 1,\n \"parts\": {\n");
        Files.writeString(
                dir.resolve("odd.json"),
                "{\"format\": \"deja-snapshot\", \"version\": 1, \"parts\": {\"nope\": {}}}\n");
        TestSupport.Run strict = TestSupport.run("scan", dir.toString());
        assertEquals(2, strict.code(), strict.out() + strict.err());
        assertEquals("", strict.out());

        TestSupport.Run r =
                TestSupport.run("scan", "--allow-partial", "--format", "json", dir.toString());
        assertEquals(1, r.code(), r.err());
        List<String> failed = new ArrayList<>();
        for (JsonNode e : r.json().path("coverage").path("entries")) {
            if (e.path("status").asString("").equals("failed")) {
                failed.add(e.path("source").asString("") + " " + e.path("detail").asString(""));
            }
        }
        assertEquals(2, failed.size(), failed.toString());
        assertTrue(
                failed.get(0)
                        .startsWith("snapshot " + dir.resolve("cut.json") + ":3: not valid JSON"),
                failed.get(0));
        assertEquals(
                "snapshot " + dir.resolve("odd.json") + ": unknown snapshot part 'nope'",
                failed.get(1));
    }

    /** How a test runs deja: in this JVM, or as a process. */
    private interface Deja {
        TestSupport.Run run(String... args) throws Exception;
    }

    /**
     * deja as a process of this user without the capabilities that let root open any file
     * (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH): file modes then apply to it as to anyone.
     */
    private static TestSupport.Run dejaWithoutDacOverride(String... args) throws Exception {
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-XX:TieredStopAtLevel=1",
                                "-XX:+UseSerialGC",
                                "-cp",
                                System.getProperty("java.class.path"),
                                "dev.deja.Main"));
        cmd.addAll(List.of(args));
        return withoutDacOverride(cmd.toArray(String[]::new));
    }

    private static TestSupport.Run withoutDacOverride(String... command) throws Exception {
        List<String> cmd =
                new ArrayList<>(
                        List.of("setpriv", "--bounding-set", "-dac_override,-dac_read_search"));
        cmd.addAll(List.of(command));
        Path err = Files.createTempFile("deja-err", ".txt");
        try {
            Process p =
                    new ProcessBuilder(cmd)
                            .redirectError(err.toFile())
                            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                            .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(5, TimeUnit.MINUTES), "deja did not finish");
            return new TestSupport.Run(
                    p.exitValue(), out, Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(err);
        }
    }

    /**
     * A subfolder with mode 000 (its config is never read), beside a config with a finding. Root
     * opens it anyway (CAP_DAC_OVERRIDE): as root, deja runs as a process without that capability
     * and CAP_DAC_READ_SEARCH ({@code setpriv --bounding-set}), which meets the mode as any user
     * does. Skipped only where neither works (FolderErrorTest covers the walk's answer then).
     */
    @Test
    void aSubfolderThatCannotBeOpenedIsNotChecked(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a-good.cfg"), GOOD, StandardCharsets.UTF_8);
        Path locked = Files.createDirectory(dir.resolve("locked"));
        Files.writeString(locked.resolve("inside.cfg"), GOOD, StandardCharsets.UTF_8);
        Path only = Files.createDirectory(dir.resolve("only-locked"));
        Path locked2 = Files.createDirectory(only.resolve("sub"));
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("---------"));
        Files.setPosixFilePermissions(locked2, PosixFilePermissions.fromString("---------"));
        try {
            Deja deja = TestSupport::run;
            if (Files.isReadable(locked)) { // root
                Assumptions.assumeTrue(
                        withoutDacOverride("test", "-r", locked.toString()).code() == 1,
                        "running as root and setpriv cannot drop CAP_DAC_OVERRIDE here: a folder"
                                + " with mode 000 still opens (FolderErrorTest covers the walk's"
                                + " answer)");
                deja = PartialInputsTest::dejaWithoutDacOverride;
            }
            String line = locked + ": permission denied";

            TestSupport.Run strict = deja.run("scan", dir.toString());
            assertEquals(2, strict.code(), strict.out() + strict.err());
            assertEquals("", strict.out());
            assertEquals("deja: " + line, strict.err().strip());

            TestSupport.Run r = deja.run("scan", "--allow-partial", dir.toString());
            assertEquals(1, r.code(), r.out() + r.err());
            assertTrue(r.out().contains("frontend fe_web (" + dir.resolve("a-good.cfg") + ":7)"));
            assertTrue(
                    r.out().contains("  - files: " + locked + ": failed (" + line + ")"), r.out());
            assertFalse(r.out().contains("inside.cfg"), r.out());
            assertTrue(r.err().contains("deja: " + line), r.err());

            TestSupport.Run j =
                    deja.run("scan", "--allow-partial", "--format", "json", dir.toString());
            assertEquals(1, j.code(), j.err());
            List<String> failed = TestSupport.failedEntries(j.json());
            assertEquals(
                    List.of(
                            "files " + locked + ": " + line,
                            "files " + locked2 + ": " + locked2 + ": permission denied"),
                    failed);

            // nothing else in the folder: nothing could be read, exit 3
            TestSupport.Run none = deja.run("scan", "--allow-partial", only.toString());
            assertEquals(3, none.code(), none.out() + none.err());
            assertTrue(none.out().contains("Nothing could be read"), none.out());
            assertTrue(none.out().contains(locked2 + ": permission denied"), none.out());
            assertEquals(2, deja.run("scan", only.toString()).code());
        } finally { // so that the temporary folder can be removed
            Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwx------"));
            Files.setPosixFilePermissions(locked2, PosixFilePermissions.fromString("rwx------"));
        }
    }

    @Test
    void nothingReadableIsIncompleteEvenWithAllowPartial(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("b-nolf.cfg"), NO_LF, StandardCharsets.UTF_8);
        TestSupport.Run r = TestSupport.run("scan", "--allow-partial", dir.toString());
        assertEquals(3, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("Nothing could be read"), r.out());
        assertTrue(r.out().contains(dir.resolve(NO_LF_LINE).toString()), r.out());
    }

    @Test
    void aNamedPathThatDoesNotExistStaysAUsageError(@TempDir Path dir) throws Exception {
        folder(dir);
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--allow-partial",
                        dir.resolve("a-good.cfg").toString(),
                        dir.resolve("missing.cfg").toString());
        assertEquals(2, r.code(), r.out() + r.err());
        assertEquals("", r.out());
        assertEquals(
                "deja: " + dir.resolve("missing.cfg") + ": no such file or folder",
                r.err().strip());
    }

    @Test
    void theCorpusFolderGivesAReport() {
        Path corpus = TestSupport.shared("corpus/haproxy");
        TestSupport.Run r =
                TestSupport.run("scan", "--allow-partial", "--format", "json", corpus.toString());
        assertTrue(r.code() == 0 || r.code() == 1, "exit " + r.code() + ": " + r.err());
        JsonNode report = r.json();
        long read = 0;
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (e.path("status").asString("").equals("read")) {
                read++;
            } else if (e.path("status").asString("").equals("failed")) {
                String scope = e.path("scope").asString("?");
                assertTrue(
                        e.path("detail").asString("").matches("\\Q" + scope + "\\E:\\d+: .+"),
                        e.toString());
            }
        }
        assertTrue(read > 1, "configs read: " + read);
    }
}
