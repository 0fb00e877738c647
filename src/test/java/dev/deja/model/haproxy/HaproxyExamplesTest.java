package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.engine.Catalog;
import dev.deja.engine.SourceKind;
import dev.deja.rules.RuleRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The HAProxy examples: the IL-0264 before/after pair (all five IL-0264 rules fire on the first,
 * none on the second), the IL-0011 risky/fixed pair, and HAProxy accepts all of them.
 */
class HaproxyExamplesTest {
    static final Path BEFORE = Path.of("examples/haproxy/il-0264-before.cfg");
    static final Path AFTER = Path.of("examples/haproxy/il-0264-after.cfg");

    /**
     * The rules written from IL-0264 that read a configuration, from the catalog: a rule from
     * another case never changes this test. A rule on HAProxy's live figures (its {@code parts()}
     * names the runtime API's part, e.g. haproxy-sessions-near-limit) cannot fire on a file;
     * HaproxyRuntimeTest proves it against a running haproxy.
     */
    static final String IL_0264 = configRulesOf("IL-0264");

    static String configRulesOf(String caseId) {
        List<String> ids = new ArrayList<>();
        for (var m : Catalog.packaged().rulesForCase(caseId)) {
            if (m.source() == SourceKind.HAPROXY
                    && RuleRegistry.instantiate(m).parts().equals(List.of(HaproxyConfigs.class))) {
                ids.add(m.id());
            }
        }
        return String.join(",", new TreeSet<>(ids));
    }

    @Test
    void theRuntimeRuleIsLeftOutBecauseItReadsTheRuntimeApi() {
        assertTrue(TestSupport.rulesOf("IL-0264").contains("haproxy-sessions-near-limit"));
        assertTrue(
                !IL_0264.contains("haproxy-sessions-near-limit")
                        && IL_0264.contains("haproxy-tarpit-holds-slots"),
                IL_0264);
    }

    @Test
    void beforeFiresEveryIl0264Rule() {
        TestSupport.Run r =
                TestSupport.run("scan", "--format", "json", "--rules", IL_0264, BEFORE.toString());
        assertEquals(1, r.code(), r.err());
        Set<String> fired = new TreeSet<>();
        r.json().path("findings").forEach(f -> fired.add(f.path("ruleId").asString()));
        assertEquals(
                new TreeSet<>(List.of(IL_0264.split(","))),
                fired,
                "every rule that links IL-0264 must fire on "
                        + BEFORE
                        + " (the incident's configuration) and not on "
                        + AFTER
                        + ": extend the example, or link the"
                        + " rule to the case it comes from");
        assertTrue(
                r.out()
                        .contains(
                                "one client at 300 req/s holds 200 (wants 300) of 200 slots (150%"),
                r.out());
    }

    @Test
    void afterFiresNothing() {
        TestSupport.Run r = TestSupport.run("scan", "--rules", IL_0264, AFTER.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().startsWith("No findings."), r.out());
    }

    @Test
    void twoUnrelatedConfigsInOneFolderStaySeparate() {
        TestSupport.Run r = TestSupport.run("scan", "--format", "json", "examples/haproxy");
        assertEquals(1, r.code(), r.err());
        // merged, the after file's stats socket would hide the before file's missing visibility
        assertTrue(r.out().contains("haproxy-no-saturation-visibility"), r.out());
    }

    @Test
    void ciExamplesAreValidYamlThatRunDeja() throws IOException {
        for (String f :
                new String[] {
                    "github-actions-haproxy.yml", "gitlab-ci-haproxy.yml", "pre-commit-config.yaml"
                }) {
            String text = Files.readString(Path.of("examples/ci", f));
            Object doc = new Yaml().load(text);
            assertTrue(doc instanceof Map, f);
            assertTrue(text.contains("scan"), f);
        }
        String gh = Files.readString(Path.of("examples/ci/github-actions-haproxy.yml"));
        // deja's action writes SARIF (its format input defaults to sarif) and uploads it
        assertTrue(gh.contains("uses: deja-dev/deja@") && !gh.contains("upload-sarif: false"), gh);
        assertTrue(
                Files.readString(Path.of("examples/ci/gitlab-ci-haproxy.yml"))
                        .contains("junit: deja-junit.xml"));
    }

    static final Path RR_RISKY = Path.of("examples/haproxy/il-0011-risky.cfg");
    static final Path RR_FIXED = Path.of("examples/haproxy/il-0011-fixed.cfg");

    @Test
    void il0011RiskyFiresOnlyTheRoundRobinRuleAndFixedNothing() {
        String il0011 = TestSupport.rulesOf("IL-0011");
        TestSupport.Run r =
                TestSupport.run("scan", "--format", "json", "--rules", il0011, RR_RISKY.toString());
        assertEquals(1, r.code(), r.err());
        Set<String> fired = new TreeSet<>();
        r.json().path("findings").forEach(f -> fired.add(f.path("ruleId").asString()));
        assertEquals(Set.of("haproxy-roundrobin-same-start"), fired);
        TestSupport.Run text = TestSupport.run("scan", "--rules", il0011, RR_RISKY.toString());
        assertTrue(
                text.out()
                        .contains(
                                "backend be_search balances round robin (no balance line: HAProxy's default is"
                                        + " roundrobin) over 5 servers listed in ascending address order (10.244.1.17:8080 ... 10.244.3.52:8080)"),
                text.out());
        assertTrue(text.out().contains("names 3 HAProxy instances"), text.out());
        assertTrue(text.out().contains("IL-0011"), text.out());
        TestSupport.Run fixed = TestSupport.run("scan", "--rules", il0011, RR_FIXED.toString());
        assertEquals(0, fixed.code(), fixed.out() + fixed.err());
        assertTrue(fixed.out().startsWith("No findings."), fixed.out());
    }

    @Test
    void realHaproxyAcceptsBoth() throws Exception {
        for (Path p : new Path[] {BEFORE, AFTER, RR_RISKY, RR_FIXED}) {
            Process proc;
            try {
                proc =
                        new ProcessBuilder("haproxy", "-c", "-f", p.toString())
                                .redirectErrorStream(true)
                                .start();
            } catch (IOException e) {
                Assumptions.abort(
                        "haproxy is not installed (apt-get install haproxy; .ci/run installs it): "
                                + "cannot check the examples with haproxy -c");
                return;
            }
            assertTrue(proc.waitFor(60, TimeUnit.SECONDS), "haproxy -c timed out");
            String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, proc.exitValue(), p + ": " + out);
        }
    }
}
