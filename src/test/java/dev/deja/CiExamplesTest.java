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
import org.junit.jupiter.api.Assumptions;
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
        for (String f : List.of("examples/ci/gitlab-ci-haproxy.yml")) {
            String text = Files.readString(Path.of(f));
            Matcher pin = Pattern.compile("DEJA_REF: ([0-9a-f]{40})\\n").matcher(text);
            assertTrue(pin.find(), f + " pins deja to a full commit id");
            assertCommitOfThisRepository(pin.group(1), f);
            assertTrue(
                    text.contains(
                            "fetch -q --depth 1 https://github.com/deja-dev/deja.git \"$DEJA_REF\""),
                    f + " fetches the pinned commit");
            assertTrue(text.contains("checkout -q FETCH_HEAD"), f + " builds the pinned commit");
            assertFalse(
                    text.matches("(?s).*git clone --depth 1 https.*"),
                    f + " clones no unpinned HEAD");
            assertTrue(text.contains("cache"), f + " caches the build");
            assertTrue(text.contains(".m2"), f + " caches Maven's repository");
        }
    }

    /**
     * The GitHub examples use this repository's action (action.yml), pinned to a full commit of its
     * history that has the action, with only inputs the action declares.
     */
    @Test
    @SuppressWarnings("unchecked")
    void githubExamplesUseTheActionPinnedToACommitThatHasIt() throws IOException {
        Map<String, Object> inputs =
                (Map<String, Object>)
                        ((Map<String, Object>) yaml(Path.of("action.yml"))).get("inputs");
        for (String f :
                List.of(
                        "examples/ci/github-actions-haproxy.yml",
                        "examples/ci/github-actions-kubernetes.yml")) {
            Map<String, Object> wf = (Map<String, Object>) yaml(Path.of(f));
            int uses = 0;
            for (Object job : ((Map<String, Object>) wf.get("jobs")).values()) {
                for (Map<String, Object> step :
                        (List<Map<String, Object>>) ((Map<String, Object>) job).get("steps")) {
                    String u = String.valueOf(step.get("uses"));
                    if (!u.startsWith("deja-dev/deja")) {
                        continue;
                    }
                    uses++;
                    Matcher pin = Pattern.compile("deja-dev/deja@([0-9a-f]{40})").matcher(u);
                    assertTrue(pin.matches(), f + " pins the action to a full commit id: " + u);
                    assertCommitOfThisRepository(pin.group(1), f);
                    assertCommitHasFile(pin.group(1), "action.yml", f);
                    Map<String, Object> with = (Map<String, Object>) step.get("with");
                    for (String k : with.keySet()) {
                        assertTrue(inputs.containsKey(k), f + ": the action has no input " + k);
                    }
                }
            }
            assertEquals(1, uses, f + " uses deja's action");
            assertTrue(
                    wf.toString().contains("security-events=write"),
                    f + " grants the SARIF upload");
        }
    }

    /**
     * The GitLab example installs deja as the action does (its script, from the pinned commit): the
     * release archive of DEJA_VERSION, else the cached build, cached under the project's folder.
     */
    @Test
    void gitlabExampleInstallsDejaWithTheActionsScript() throws IOException {
        String text = Files.readString(Path.of("examples/ci/gitlab-ci-haproxy.yml"));
        Matcher pin = Pattern.compile("DEJA_REF: ([0-9a-f]{40})\\n").matcher(text);
        assertTrue(pin.find());
        assertCommitHasFile(pin.group(1), ".github/actions/scan.sh", "gitlab-ci-haproxy.yml");
        for (String sub : List.of("install", "build", "scan")) {
            assertTrue(
                    text.contains("sh \"$src/.github/actions/scan.sh\" " + sub + "\n"),
                    "the GitLab job runs scan.sh " + sub);
        }
        assertTrue(text.contains("INPUT_VERSION=\"$DEJA_VERSION\""), "a release when one is given");
        assertTrue(
                text.contains("DEJA_CACHE_DIR=\"$CI_PROJECT_DIR/.deja\"")
                        && text.contains("- .deja/"),
                "the built jar is kept in the project's cache");
        assertTrue(text.contains("INPUT_FORMAT=junit") && text.contains("junit: deja-junit.xml"));
    }

    static void assertCommitHasFile(String sha, String path, String file) {
        try {
            Process p =
                    new ProcessBuilder("git", "cat-file", "-e", sha + ":" + path)
                            .redirectErrorStream(true)
                            .start();
            p.getInputStream().readAllBytes();
            Assumptions.assumeTrue(p.waitFor() == 0 || !isShallow(), "shallow clone");
            assertEquals(0, p.waitFor(), file + " pins " + sha + ", which has no " + path);
        } catch (IOException e) {
            Assumptions.abort("git is not installed: cannot check the pinned commit of " + file);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static boolean isShallow() throws IOException, InterruptedException {
        Process shallow =
                new ProcessBuilder("git", "rev-parse", "--is-shallow-repository")
                        .redirectErrorStream(true)
                        .start();
        String out = new String(shallow.getInputStream().readAllBytes()).strip();
        shallow.waitFor();
        return !"false".equals(out);
    }

    @Test
    void preCommitExamplePinsACommit() throws IOException {
        String text = Files.readString(Path.of("examples/ci/pre-commit-config.yaml"));
        Matcher pin = Pattern.compile("rev: ([0-9a-f]{40})").matcher(text);
        assertTrue(pin.find(), "the pre-commit example pins deja to a full commit id");
        assertCommitOfThisRepository(pin.group(1), "examples/ci/pre-commit-config.yaml");
    }

    /**
     * The pin is a commit of this repository's history (not a tag that does not exist): checked
     * with git when this is a git checkout with its history.
     */
    static void assertCommitOfThisRepository(String sha, String file) {
        try {
            Process p =
                    new ProcessBuilder("git", "cat-file", "-t", sha)
                            .redirectErrorStream(true)
                            .start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            int code = p.waitFor();
            Process shallow =
                    new ProcessBuilder("git", "rev-parse", "--is-shallow-repository")
                            .redirectErrorStream(true)
                            .start();
            String isShallow = new String(shallow.getInputStream().readAllBytes()).strip();
            shallow.waitFor();
            Assumptions.assumeTrue(
                    code == 0 || "false".equals(isShallow),
                    "not a git checkout with its history: cannot check " + sha);
            assertEquals("commit", out, file + " pins " + sha + ", which is not a commit here");
        } catch (IOException e) {
            Assumptions.abort("git is not installed: cannot check the pinned commit of " + file);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
