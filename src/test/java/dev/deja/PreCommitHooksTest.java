package dev.deja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The file patterns of .pre-commit-hooks.yaml, applied as pre-commit applies them (Python's
 * re.search on the path relative to the repository: Matcher.find here, the same for these
 * patterns), to the paths the README and the docs show and to fragments they must leave out.
 */
class PreCommitHooksTest {
    @SuppressWarnings("unchecked")
    static Map<String, Object> hook(String id) throws IOException {
        List<Map<String, Object>> hooks =
                (List<Map<String, Object>>) CiExamplesTest.yaml(Path.of(".pre-commit-hooks.yaml"));
        return hooks.stream().filter(h -> id.equals(h.get("id"))).findFirst().orElseThrow();
    }

    static boolean matches(Map<String, Object> hook, String path) {
        return Pattern.compile((String) hook.get("files")).matcher(path).find();
    }

    @Test
    void haproxyHookMatchesWholeConfigurationsNotFragments() throws IOException {
        Map<String, Object> h = hook("deja-haproxy");
        for (String p :
                List.of(
                        "haproxy.cfg",
                        "haproxy/edge.cfg",
                        "deploy/haproxy-edge.cfg",
                        "lb/haproxy/edge.cfg")) {
            assertTrue(matches(h, p), p + " is a whole configuration the hook checks");
        }
        for (String p :
                List.of(
                        "haproxy/conf.d/x.cfg",
                        "setup.cfg",
                        "haproxy.cfg.bak",
                        "docs/haproxy.md")) {
            assertFalse(matches(h, p), p + " is not checked on its own");
        }
    }

    @Test
    void haproxyHookMatchesEveryHaproxyConfigPathTheReadmeShows() throws IOException {
        Map<String, Object> h = hook("deja-haproxy");
        String readme = Files.readString(Path.of("README.md"));
        Matcher m =
                Pattern.compile("(?<![\\w/.-])([\\w./-]*haproxy[\\w-]*\\.cfg)\\b").matcher(readme);
        int seen = 0;
        while (m.find()) {
            seen++;
            assertTrue(matches(h, m.group(1)), "README path " + m.group(1) + " is checked");
        }
        assertTrue(seen > 0, "the README shows haproxy.cfg paths");
    }

    @Test
    void kubernetesHookTakesYamlUnderManifestFolders() throws IOException {
        Map<String, Object> h = hook("deja-kubernetes");
        assertEquals(List.of("yaml"), h.get("types"));
        assertEquals("script", h.get("language"));
        assertTrue(matches(h, "k8s/deployment.yaml"));
        assertTrue(matches(h, "apps/web/manifests/service.yaml"));
        assertFalse(matches(h, ".github/workflows/ci.yml"));
        assertFalse(matches(h, "docker-compose.yaml"));
    }
}
