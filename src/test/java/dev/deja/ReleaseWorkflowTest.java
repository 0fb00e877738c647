package dev.deja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The release workflow (.github/workflows/release.yml): a tag v* builds the four platforms'
 * archives on their own runners with Temurin 17 and the Maven command of a local build, and every
 * action it uses is pinned to a commit.
 */
class ReleaseWorkflowTest {
    static final Path WORKFLOW = Path.of(".github/workflows/release.yml");

    @SuppressWarnings("unchecked") // SnakeYAML's maps and lists
    static <T> T cast(Object o) {
        return (T) o;
    }

    static Map<String, Object> workflow() throws IOException {
        return cast(new Yaml(new SafeConstructor(new LoaderOptions())).load(read()));
    }

    static String read() throws IOException {
        return Files.readString(WORKFLOW);
    }

    @Test
    void runsOnATagV() throws IOException {
        Map<Object, Object> w = cast(workflow());
        // YAML 1.1 (SnakeYAML) reads the key 'on' as the boolean true
        Map<String, Object> on = cast(w.containsKey("on") ? w.get("on") : w.get(Boolean.TRUE));
        Map<String, Object> push = cast(on.get("push"));
        assertEquals(List.of("v*"), push.get("tags"));
        assertEquals(Set.of("push"), on.keySet(), "a tag push only, no pull request runs it");
    }

    @Test
    void buildsEachPlatformOnItsOwnRunnerWithTemurin17() throws IOException {
        Map<String, Object> jobs = cast(workflow().get("jobs"));
        Map<String, Object> archive = cast(jobs.get("archive"));
        assertEquals("${{ matrix.runner }}", archive.get("runs-on"));
        Map<String, Object> strategy = cast(archive.get("strategy"));
        List<Map<String, Object>> include = cast(cast(strategy.get("matrix"), "include"));
        TreeSet<String> got = new TreeSet<>();
        for (Map<String, Object> m : include) {
            got.add(m.get("runner") + " " + m.get("os") + "-" + m.get("arch"));
        }
        assertEquals(
                new TreeSet<>(
                        List.of(
                                "ubuntu-24.04 linux-amd64",
                                "ubuntu-24.04-arm linux-arm64",
                                "macos-13 macos-amd64",
                                "macos-14 macos-arm64")),
                got);
        List<Map<String, Object>> steps = cast(archive.get("steps"));
        Map<String, Object> java = step(steps, "actions/setup-java@");
        Map<String, Object> with = cast(java.get("with"));
        assertEquals("temurin", with.get("distribution"));
        assertEquals("17", String.valueOf(with.get("java-version")));
        // the archive comes from mvn verify (the pom's pre-integration-test), ReleaseArchiveIT
        // tests it, and an archive without its SBOM fails there
        String build = runs(steps);
        assertTrue(build.contains("mvn -B "), build);
        assertTrue(build.contains(" verify"), build);
        assertTrue(build.contains("-Ddeja.release.sbom=required"), build);
        Map<String, Object> upload = step(steps, "actions/upload-artifact@");
        String path = (String) cast(upload.get("with"), "path");
        assertTrue(
                path.contains("target/release/deja-*-${{ matrix.os }}-${{ matrix.arch }}.tar.gz"),
                path);
        assertTrue(path.contains(".cdx.json"), path);
    }

    @Test
    void theReleaseJobWritesTheManifestsForAllFourWithTheBuildsScript() throws IOException {
        Map<String, Object> jobs = cast(workflow().get("jobs"));
        Map<String, Object> release = cast(jobs.get("release"));
        assertEquals("archive", release.get("needs"));
        assertEquals("write", cast(release.get("permissions"), "contents"));
        String run = runs(cast(release.get("steps")));
        assertTrue(run.contains("sh packaging/manifests.sh dist "), run);
        assertTrue(run.contains("sha256sum -c SHA256SUMS"), run);
        assertTrue(run.contains("gh release create"), run);
        assertTrue(Files.isRegularFile(Path.of("packaging/manifests.sh")));
        assertEquals(
                "read", cast(workflow().get("permissions"), "contents"), "read-only by default");
    }

    @Test
    void everyActionIsPinnedToACommitWithItsTagBeside() throws IOException {
        List<String> uses = new ArrayList<>();
        Map<String, Object> jobs = cast(workflow().get("jobs"));
        for (Object job : jobs.values()) {
            for (Map<String, Object> s :
                    ReleaseWorkflowTest.<List<Map<String, Object>>>cast(cast(job, "steps"))) {
                if (s.containsKey("uses")) {
                    uses.add((String) s.get("uses"));
                }
            }
        }
        assertTrue(uses.size() >= 5, uses.toString());
        Pattern pinned = Pattern.compile("[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}");
        for (String u : uses) {
            assertTrue(pinned.matcher(u).matches(), u + " is not pinned to a 40-hex commit");
        }
        // and in the text: each 'uses:' line names the tag the commit is, as a comment
        Matcher line = Pattern.compile("(?m)^\\s*-?\\s*uses: (\\S+)(.*)$").matcher(read());
        int n = 0;
        while (line.find()) {
            n++;
            assertTrue(
                    line.group(2).matches(" # v\\d+\\.\\d+\\.\\d+"),
                    line.group(1) + ": no '# vX.Y.Z' comment");
        }
        assertEquals(uses.size(), n);
    }

    @Test
    void setupJavaIsTheCommitTheActionUses() throws IOException {
        // one setup-java commit in the repository (action.yml pins it too)
        Matcher m =
                Pattern.compile("actions/setup-java@([0-9a-f]{40})")
                        .matcher(Files.readString(Path.of("action.yml")));
        assertTrue(m.find(), "action.yml uses setup-java");
        assertTrue(read().contains("actions/setup-java@" + m.group(1) + " "), m.group(1));
    }

    static Object cast(Object map, String key) {
        Map<String, Object> m = cast(map);
        return m.get(key);
    }

    static Map<String, Object> step(List<Map<String, Object>> steps, String uses) {
        for (Map<String, Object> s : steps) {
            if (String.valueOf(s.get("uses")).startsWith(uses)) {
                return s;
            }
        }
        throw new AssertionError("no step uses " + uses);
    }

    static String runs(List<Map<String, Object>> steps) {
        StringBuilder b = new StringBuilder();
        for (Map<String, Object> s : steps) {
            if (s.get("run") != null) {
                b.append(s.get("run")).append('\n');
            }
        }
        return b.toString();
    }
}
