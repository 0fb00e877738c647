package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.engine.Catalog;
import dev.deja.engine.InputException;
import dev.deja.engine.Suppressions;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * Mistakes a new user makes on the first day: each is one clear line on stderr and the documented
 * exit code.
 */
class FirstUseTest {
    private static final String BEFORE = "examples/haproxy/il-0264-before.cfg";

    @TempDir Path tmp;

    private static void usageError(TestSupport.Run r, String expected) {
        assertEquals(2, r.code(), r.err());
        assertEquals("", r.out());
        assertTrue(r.err().contains(expected), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertFalse(r.err().contains("Exception"), r.err());
    }

    @Test
    void haproxyVersionThatIsNotAVersionIsAnError() {
        usageError(
                TestSupport.run("scan", "--haproxy-version", "banana", BEFORE),
                "--haproxy-version: 'banana' is not a HAProxy version");
        assertEquals(1, TestSupport.run("scan", "--haproxy-version", "2.8", BEFORE).code());
        assertEquals(1, TestSupport.run("scan", "--haproxy-version", "3.3-dev4", BEFORE).code());
    }

    @Test
    void clientRateMustBePositive() {
        usageError(
                TestSupport.run("scan", "--assume-client-rps", "0", BEFORE),
                "--assume-client-rps: must be at least 1 request per second, not 0");
        usageError(
                TestSupport.run("scan", "--assume-client-rps", "-5", BEFORE),
                "--assume-client-rps: must be at least 1 request per second, not -5");
    }

    @Test
    void ignoreFileThatIsNotYamlNamesTheLine() throws Exception {
        Path f = tmp.resolve("ignore.yaml");
        Files.writeString(f, "- rule: haproxy-tarpit-holds-slots\n  reason: [legacy\n");
        usageError(
                TestSupport.run("scan", "--ignore-file", f.toString(), BEFORE),
                f + ":3: not valid YAML: ");
    }

    @Test
    void misspelledCommandIsNamed() {
        TestSupport.Run r = TestSupport.run("scna", BEFORE);
        assertEquals(2, r.code(), r.err());
        assertTrue(
                r.err()
                        .startsWith(
                                "deja: unknown command 'scna' (expected scan, rules, cases, explain, prove, report or completion); did you mean scan?"),
                r.err());
    }

    @Test
    void badFormatAndFailOnNameTheOptionAndEveryAllowedValue() {
        usageError(
                TestSupport.run("scan", "--format", "xml", BEFORE),
                "deja: --format: unknown format 'xml'");
        usageError(
                TestSupport.run("scan", "--fail-on", "hihg", BEFORE),
                "deja: --fail-on: unknown severity 'hihg' (expected info, low, medium, high, critical or none)");
    }

    @Test
    void filesLeftOutOfAFolderAreNamed() throws Exception {
        Files.copy(Path.of(BEFORE), tmp.resolve("haproxy.cfg"));
        Files.copy(Path.of(BEFORE), tmp.resolve("haproxy.conf"));
        TestSupport.Run r = TestSupport.run("scan", tmp.toString());
        assertEquals(1, r.code(), r.err());
        assertTrue(
                r.out()
                        .contains(
                                "Skipped (names not ending in .cfg, .yaml, .yml or .json): "
                                        + tmp.resolve("haproxy.conf")),
                r.out());
    }

    @Test
    void kubeconfigThatIsNotYamlNamesTheLine() throws Exception {
        Path f = tmp.resolve("kubeconfig");
        Files.writeString(f, "apiVersion: v1\nclusters: [\n");
        usageError(
                TestSupport.run("scan", "--cluster", "--kubeconfig", f.toString()),
                f + ":3: not a valid kubeconfig: expected ");
    }

    @Test
    void docsConfigurationExampleIsAccepted() throws Exception {
        String readme = Files.readString(Path.of("docs", "configuration.md"));
        int section = readme.indexOf("## Configuration file: `--config deja.yaml`");
        assertTrue(section >= 0, "docs/configuration.md section on deja.yaml");
        int start = readme.indexOf("```yaml\n", section) + "```yaml\n".length();
        String example = readme.substring(start, readme.indexOf("```", start));
        assertTrue(example.contains("sources:") && example.contains("suppressions:"), example);
        // a user copies it as it is: every rule id in it exists, and its suppressions are in force
        // when it was written
        // (the clock is pinned to the README's revision: a test reading today's date would fail one
        // day on no change)
        ConfigFile c = ConfigFile.parse(example, "deja.yaml", tmp, Catalog.packaged());
        assertFalse(c.severityOverrides.isEmpty());
        assertFalse(c.suppressions.entries().isEmpty(), example);
        LocalDate written = LocalDate.of(2026, 11, 30);
        for (Suppressions.Entry e : c.suppressions.entries()) {
            assertTrue(
                    e.expires() != null && e.expires().isAfter(written.plusMonths(6)),
                    "README example suppression expires too soon after it was written: " + e);
        }
    }

    @Test
    void envWithoutValueSaysWhatIsExpected() {
        TestSupport.Run r = TestSupport.run("scan", "--env", "PORT", BEFORE);
        assertEquals(2, r.code(), r.err());
        assertTrue(
                r.err().startsWith("deja: --env PORT: expected KEY=VALUE, e.g. --env PORT=8080\n"),
                r.err());
    }

    @Test
    void emptyInputSaysItIsEmpty() throws Exception {
        TestSupport.Run r =
                TestSupport.runWith(new ByteArrayInputStream(new byte[0]), Map.of(), "scan", "-");
        usageError(r, "deja: <stdin>: empty, nothing to scan");
        Path f = tmp.resolve("deploy.yaml");
        Files.writeString(f, "\n");
        usageError(TestSupport.run("scan", f.toString()), f + ": empty, nothing to scan");
    }

    @Test
    void aFileGivenTwiceIsReadOnce() throws Exception {
        Path cfg = tmp.resolve("haproxy.cfg");
        Files.copy(Path.of(BEFORE), cfg);
        TestSupport.Run once = TestSupport.run("scan", "--format", "json", cfg.toString());
        TestSupport.Run twice =
                TestSupport.run(
                        "scan",
                        "--format",
                        "json",
                        cfg.toString(),
                        tmp.toString(),
                        tmp.resolve(".").resolve("haproxy.cfg").toString());
        assertEquals(1, twice.code(), twice.err());
        int n = once.json().path("summary").path("total").asInt();
        assertTrue(n > 0, once.out());
        assertEquals(
                n,
                twice.json().path("summary").path("total").asInt(),
                "the same findings, not each one twice");
        assertTrue(twice.out().contains("given more than once; read once"), twice.out());
    }

    @Test
    void unknownOutputFormatInConfigNamesTheLine() {
        InputException e =
                Assertions.assertThrows(
                        InputException.class,
                        () ->
                                ConfigFile.parse(
                                        "sources:\n  paths: [h.cfg]\noutputs:\n  - {format: pdf, path: x.pdf}\n",
                                        "deja.yaml",
                                        tmp,
                                        Catalog.packaged()));
        assertTrue(e.getMessage().startsWith("deja.yaml:4: unknown format 'pdf'"), e.getMessage());
    }

    @Test
    void pythonSetupCfgIsNotTakenForHaproxy() throws Exception {
        Path setup = tmp.resolve("setup.cfg");
        Files.writeString(
                setup, "[metadata]\nname = foo\nversion = 1.0\n\n[options]\npackages = find:\n");
        usageError(
                TestSupport.run("scan", setup.toString()),
                setup + ": not a HAProxy configuration, Kubernetes manifest or deja snapshot");
        Files.copy(Path.of(BEFORE), tmp.resolve("haproxy.cfg"));
        TestSupport.Run r = TestSupport.run("scan", tmp.toString());
        assertEquals(1, r.code(), r.err());
        assertTrue(r.out().contains("sources: haproxy (1 scope)"), r.out());
        assertTrue(
                r.out()
                        .contains(
                                "Skipped (not a HAProxy configuration, Kubernetes manifest or deja snapshot): "
                                        + setup),
                r.out());
    }

    @Test
    void preCommitHookDoesNotCheckAConfDFragmentAlone() throws Exception {
        // what pre-commit does: every staged file matching 'files' is passed to the entry's scan
        @SuppressWarnings("unchecked")
        Map<String, Object> doc =
                new Yaml().load(Files.readString(Path.of("examples/ci/pre-commit-config.yaml")));
        @SuppressWarnings("unchecked")
        Map<String, Object> hook =
                ((List<Map<String, Object>>)
                                ((List<Map<String, Object>>) doc.get("repos")).get(0).get("hooks"))
                        .get(0);
        Pattern files = Pattern.compile((String) hook.get("files"));
        Path global = tmp.resolve("haproxy/global.cfg");
        Path fragment = tmp.resolve("haproxy/conf.d/fe.cfg");
        Files.createDirectories(fragment.getParent());
        Files.writeString(
                global,
                "global\n    maxconn 1000\n    stats socket /run/haproxy.sock\ndefaults\n    mode http\n"
                        + "    timeout connect 5s\n    timeout client 10s\n    timeout server 10s\n    timeout http-request 5s\n");
        Files.writeString(
                fragment,
                "frontend fe\n    bind :80\n    maxconn 500\n    default_backend be\n"
                        + "backend be\n    server s1 127.0.0.1:8080\n");
        assertEquals(
                0,
                TestSupport.run(
                                "scan",
                                "--haproxy-one-instance",
                                global.toString(),
                                fragment.getParent().toString())
                        .code(),
                "the split config is clean as one instance");
        for (String staged :
                new String[] {"haproxy/global.cfg", "haproxy/conf.d/fe.cfg", "lb/haproxy.cfg"}) {
            if (files.matcher(staged).find()) {
                Path p = tmp.resolve(staged);
                if (Files.exists(p)) {
                    assertEquals(
                            0,
                            TestSupport.run("scan", "--fail-on", "medium", p.toString()).code(),
                            staged
                                    + " is checked alone by the hook and fails, though the instance is clean");
                }
            }
        }
        assertTrue(files.matcher("lb/haproxy.cfg").find(), "a whole haproxy.cfg is still checked");
    }

    /**
     * Options that would do nothing are refused, not ignored; outputs never overwrite an input or
     * each other.
     */
    @Test
    void optionsThatWouldDoNothingAndOverwritesAreRefused() throws Exception {
        Path manifest = tmp.resolve("in.yaml");
        Files.copy(Path.of("examples/kubernetes/il-0081-serial-reloads.yaml"), manifest);
        String m = manifest.toString();
        String[][] cases = {
            {
                "deja: --namespace, --selector: only with --cluster",
                "scan",
                m,
                "-n",
                "shop",
                "-l",
                "app=x"
            },
            {"deja: --kubeconfig: only with --cluster", "scan", m, "--kubeconfig", m},
            {
                "deja: --region, --profile: only with --aws",
                "scan",
                m,
                "--region",
                "eu-west-1",
                "--profile",
                "p"
            },
            {"deja: --namespace 'a,b': not a namespace name", "scan", "--cluster", "-n", "a,b"},
            {"deja: --namespace '': not a namespace name", "scan", "--cluster", "-n", ""},
            {
                "deja: --selector 'app in prod': not a label selector",
                "scan",
                "--cluster",
                "-l",
                "app in prod"
            },
            {
                "deja: --selector 'app=web,': not a label selector",
                "scan",
                "--cluster",
                "-l",
                "app=web,"
            },
            {
                "deja: -o " + m + ": would overwrite " + m + ", which this scan reads",
                "scan",
                m,
                "-o",
                m
            },
            {
                "deja: --snapshot-out " + m + ": would overwrite " + m + ", which this scan reads",
                "scan",
                m,
                "--snapshot-out",
                m
            },
            {
                "deja: --snapshot-out "
                        + tmp.resolve("x.json")
                        + ": the same file as -o "
                        + tmp.resolve("x.json"),
                "scan",
                m,
                "-o",
                tmp.resolve("x.json").toString(),
                "--snapshot-out",
                tmp.resolve("x.json").toString()
            },
        };
        for (String[] c : cases) {
            TestSupport.Run r = TestSupport.run(Arrays.copyOfRange(c, 1, c.length));
            assertEquals(2, r.code(), String.join(" ", c) + "\n" + r.err());
            assertTrue(r.err().startsWith(c[0]), r.err());
        }
        assertEquals(
                Files.readString(Path.of("examples/kubernetes/il-0081-serial-reloads.yaml")),
                Files.readString(manifest));
        // -o - is stdout, as --output FORMAT=- is
        TestSupport.Run stdout = TestSupport.run("scan", m, "-o", "-", "--format", "json");
        assertEquals(1, stdout.code(), stdout.err());
        assertTrue(stdout.out().startsWith("{"), stdout.out());
        assertTrue(!Files.exists(Path.of("-")), "no file named '-'");
    }

    @Test
    void formatsAndRuleIdsIgnoreCaseAndAnEmptyRuleSelectionIsAnError() {
        TestSupport.Run json = TestSupport.run("scan", BEFORE, "--format", "JSON");
        assertTrue(json.out().startsWith("{"), json.err());
        TestSupport.Run explain = TestSupport.run("explain", "HAPROXY-TARPIT-HOLDS-SLOTS");
        assertEquals(0, explain.code(), explain.err());
        assertTrue(explain.out().startsWith("haproxy-tarpit-holds-slots"), explain.out());
        usageError(
                TestSupport.run(
                        "scan",
                        BEFORE,
                        "--rules",
                        "haproxy-tarpit-holds-slots",
                        "--skip-rules",
                        "haproxy-tarpit-holds-slots"),
                "no rule is left to run");
        TestSupport.Run one =
                TestSupport.run("scan", BEFORE, "--rules", "haproxy-tarpit-holds-slots");
        assertTrue(one.out().contains("; 1 rule run"), one.out());
        // only the rules of the sources the scan read: no AWS or Kubernetes rule "passes" on a
        // HAProxy file
        TestSupport.Run haproxyOnly = TestSupport.run("scan", BEFORE, "--format", "json");
        List<String> rulesRun = new ArrayList<>();
        haproxyOnly
                .json()
                .path("summary")
                .path("rulesRun")
                .forEach(x -> rulesRun.add(x.asString()));
        assertTrue(
                rulesRun.contains("haproxy-tarpit-holds-slots")
                        && rulesRun.stream().allMatch(id -> id.startsWith("haproxy-")),
                rulesRun.toString());
    }

    /**
     * HAProxy accepts both lines (haproxy 2.6 -c: valid) and reads them with atol: "abc" as 0, no
     * limit of its own, "1k" as 1 (MaxconnValuesTest checks the running haproxy's limits).
     */
    @Test
    void aConnectionLimitThatIsNotANumberIsAWarningNamingTheLine() throws Exception {
        Path cfg = tmp.resolve("haproxy.cfg");
        Files.writeString(
                cfg,
                "global\n  maxconn abc\ndefaults\n  mode http\n  timeout client 30s\n"
                        + "  timeout server 30s\n  timeout connect 5s\nfrontend f\n  bind :80 maxconn 1k\n  default_backend b\n"
                        + "backend b\n  server s1 127.0.0.1:8080\n");
        TestSupport.Run r = TestSupport.run("scan", cfg.toString());
        assertEquals(
                List.of(
                        "deja: warning: "
                                + cfg
                                + ":2: maxconn 'abc' is not a plain number: HAProxy reads it as 0 (atol), no"
                                + " limit of its own",
                        "deja: warning: "
                                + cfg
                                + ":9: maxconn '1k' is not a plain number: HAProxy reads its leading digits"
                                + " (atol), 1"),
                r.err().lines().filter(l -> l.startsWith("deja: warning")).toList());
    }
}
