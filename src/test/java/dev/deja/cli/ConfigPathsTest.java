package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code --config} with relative {@code paths:}: findings and SARIF name the files as a user in the
 * working directory would write them (relative), not as absolute paths. The config lives in a
 * relative folder under target/, so the test runs from the project folder as a user runs deja from
 * the repository root.
 */
class ConfigPathsTest {
    Path dir;

    @BeforeEach
    void mk() throws IOException {
        Files.createDirectories(Path.of("target"));
        dir = Files.createTempDirectory(Path.of("target"), "config-paths");
        assertFalse(dir.isAbsolute());
    }

    @AfterEach
    void rm() throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    static Set<String> files(JsonNode findings, String pointer) {
        Set<String> out = new TreeSet<>();
        findings.forEach(f -> out.add(f.at(pointer).asString()));
        return out;
    }

    @Test
    void relativePathsStayRelativeInFindingsAndSarif() throws IOException {
        Path cfg = dir.resolve("deja.yaml");
        Files.writeString(
                cfg,
                "sources:\n  paths: [../../examples/haproxy/il-0264-before.cfg]\nfailOn: none\n");
        TestSupport.Run r = TestSupport.run("scan", "--config", cfg.toString(), "--format", "json");
        assertEquals(0, r.code(), r.err());
        JsonNode json = JsonMapper.builder().build().readTree(r.out());
        assertTrue(json.path("findings").size() > 0, r.out());
        assertEquals(
                Set.of("examples/haproxy/il-0264-before.cfg"),
                files(json.path("findings"), "/location/file"));

        TestSupport.Run s =
                TestSupport.run("scan", "--config", cfg.toString(), "--format", "sarif");
        assertEquals(0, s.code(), s.err());
        JsonNode results =
                JsonMapper.builder().build().readTree(s.out()).path("runs").get(0).path("results");
        assertEquals(
                Set.of("examples/haproxy/il-0264-before.cfg"),
                files(results, "/locations/0/physicalLocation/artifactLocation/uri"));
    }
}
