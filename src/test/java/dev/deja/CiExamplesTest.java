package dev.deja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The CI examples pin deja and cache its build; the repository is usable as a pre-commit hook
 * repository.
 */
class CiExamplesTest {
    static Object yaml(Path p) throws IOException {
        return new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(p));
    }

    @Test
    @SuppressWarnings("unchecked")
    void preCommitHooksFileDescribesTheSameHookAsTheLocalExample() throws IOException {
        List<Map<String, Object>> hooks =
                (List<Map<String, Object>>) yaml(Path.of(".pre-commit-hooks.yaml"));
        Map<String, Object> hook = hooks.get(0);
        assertEquals("deja-haproxy", hook.get("id"));
        assertEquals("script", hook.get("language"));
        String entry = (String) hook.get("entry");
        Path script = Path.of(entry.split(" ")[0]);
        assertTrue(
                Files.isExecutable(script),
                "language: script runs " + script + " from the repository root");
        Map<String, Object> config =
                (Map<String, Object>) yaml(Path.of("examples/ci/pre-commit-config.yaml"));
        Map<String, Object> local =
                ((List<Map<String, Object>>)
                                ((List<Map<String, Object>>) config.get("repos"))
                                        .get(0)
                                        .get("hooks"))
                        .get(0);
        assertEquals(local.get("id"), hook.get("id"));
        assertEquals(
                local.get("files"), hook.get("files"), "the same files are checked either way");
        String localArgs =
                ((String) local.get("entry"))
                        .replaceAll(".*\\.jar}\" ", "")
                        .replace("\"$@\"' --", "")
                        .strip();
        assertEquals(
                localArgs,
                entry.substring(entry.indexOf(' ') + 1),
                "the same scan options either way");
    }

    @Test
    void ciExamplesPinDejaAndCacheItsBuild() throws IOException {
        for (String f :
                List.of(
                        "examples/ci/github-actions-haproxy.yml",
                        "examples/ci/gitlab-ci-haproxy.yml")) {
            String text = Files.readString(Path.of(f));
            assertTrue(text.contains("DEJA_REF: v"), f + " pins a deja version");
            assertTrue(text.contains("--branch \"$DEJA_REF\""), f + " clones the pinned ref");
            assertFalse(
                    text.matches("(?s).*git clone --depth 1 https.*"),
                    f + " clones no unpinned HEAD");
            assertTrue(text.contains("cache"), f + " caches the build");
            assertTrue(text.contains(".m2"), f + " caches Maven's repository");
        }
    }
}
