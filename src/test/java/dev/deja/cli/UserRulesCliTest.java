package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A team's own rules from the command line: scan --rules-dir, deja rules test, and the failure
 * modes (a rule that does not compile, an expression that fails on one object, one that runs past
 * the cost limit, a test that fails). CEL is loaded only when rules of one's own are given.
 */
class UserRulesCliTest {
    static final String EXAMPLES = "examples/custom-rules";

    record Run(int code, String out, String err) {}

    static Run deja(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code =
                Cli.run(
                        new Cli.Io(
                                new PrintWriter(out),
                                new PrintWriter(err),
                                new ByteArrayInputStream(new byte[0]),
                                Map.of(),
                                false),
                        args);
        return new Run(code, out.toString(), err.toString());
    }

    static final String HEAD =
            "title: Test rule\nseverity: medium\nsource: kubernetes\ncases: [IL-0495]\n"
                    + "description: A rule for the tests.\nremediation: Fix it.\n";

    static Path rule(Path dir, String id, String check) throws Exception {
        Files.writeString(dir.resolve(id + ".yaml"), "id: " + id + "\n" + HEAD + check);
        return dir;
    }

    static final String TWO_DEPLOYMENTS =
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: n}\n"
                    + "spec:\n  replicas: 1\n  selector: {matchLabels: {app: a}}\n"
                    + "  template:\n    metadata: {labels: {app: a}}\n"
                    + "    spec: {containers: [{name: c, image: nginx}]}\n"
                    + "---\n"
                    + "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: b, namespace: n}\n"
                    + "spec:\n  selector: {matchLabels: {app: b}}\n"
                    + "  template:\n    metadata: {labels: {app: b}}\n"
                    + "    spec: {containers: [{name: c, image: nginx}]}\n";

    @Test
    void theExamplesPassTheirTestsAndFireInAScan() {
        Run t = deja("rules", "test", EXAMPLES);
        assertEquals(0, t.code(), t.out() + t.err());
        assertTrue(t.out().contains(" passed, 0 failed"), t.out());
        Run s =
                deja(
                        "scan",
                        "--rules-dir",
                        EXAMPLES,
                        "--rules",
                        "acme-backend-slow-timeout-server",
                        EXAMPLES + "/acme-backend-slow-timeout-server/checkout.cfg");
        assertEquals(1, s.code(), s.out() + s.err());
        assertTrue(
                s.out().contains("backend be_checkout waits 10m (")
                        && s.out().contains("ACME-0001"),
                s.out());
        Run r = deja("rules", "--rules-dir", EXAMPLES);
        assertTrue(
                r.out().contains("acme-backend-slow-timeout-server")
                        && r.out()
                                .contains(
                                        "(" + EXAMPLES + "/acme-backend-slow-timeout-server.yaml)"),
                r.out());
        Run e = deja("explain", "--rules-dir", EXAMPLES, "acme-backend-slow-timeout-server");
        assertEquals(0, e.code(), e.err());
        assertTrue(
                e.out().contains("from " + EXAMPLES + "/acme-backend-slow-timeout-server.yaml"),
                e.out());
        Run c = deja("explain", "--rules-dir", EXAMPLES, "ACME-0001");
        assertEquals(0, c.code(), c.err());
        assertTrue(c.out().contains("Checkout backend held every connection"), c.out());
    }

    /**
     * The type-checker knows object: an unknown top-level field is a compile error with its place;
     * what it cannot check (under the API's fields, a kind without a view) it says.
     */
    @Test
    void lintKnowsObjectAndReportsUnknownFieldsHonestly(@TempDir Path dir) throws Exception {
        rule(
                dir,
                "acme-typo",
                "check:\n  for: [Deployment]\n  when: object.sepc.replicas > 1\n  message: x\n");
        Run lint = deja("rules", "test", "--lint", dir.toString());
        assertEquals(2, lint.code(), lint.out() + lint.err());
        String file = dir.resolve("acme-typo.yaml").toString();
        // line 10: "  when: object.sepc.replicas > 1", 'sepc' at column 16
        assertTrue(
                lint.err()
                        .startsWith(
                                "deja: "
                                        + file
                                        + ":10:16: check.when: object.sepc: no Deployment has"
                                        + " this field (the API's: apiVersion, kind, metadata,"
                                        + " spec, status; deja's: meta, replicas, "),
                lint.err());
        assertEquals(1, lint.err().strip().lines().count(), lint.err());
        Files.delete(dir.resolve("acme-typo.yaml"));
        rule(
                dir,
                "acme-spec",
                "check:\n  for: [Deployment]\n"
                        + "  when: object.spec.replicas > 1 && object.effectiveReplicas > 1\n"
                        + "  message: '{{ object.metadata.name }} {{ object.kind }}'\n");
        rule(
                dir,
                "acme-job",
                "check:\n  for: [Job]\n  when: object.spec.parallelism > 1\n  message: x\n");
        // two kinds: named in their sorted order, whatever the order of a Set in this JVM
        rule(
                dir,
                "acme-two",
                "check:\n  for: [StatefulSet, Deployment]\n  when: object.spec.replicas > 1\n"
                        + "  message: x\n");
        Run ok = deja("rules", "test", "--lint", dir.toString());
        assertEquals(0, ok.code(), ok.out() + ok.err());
        assertTrue(
                ok.out()
                                .contains(
                                        "note: acme-spec: fields under the API's object fields (metadata,"
                                                + " spec) of Deployment are not type-checked (dyn")
                        && ok.out()
                                .contains(
                                        "note: acme-job: the fields of Job are not type-checked: deja has"
                                                + " no view of this kind"),
                ok.out());
        assertTrue(
                ok.out().contains("spec) of Deployment, StatefulSet are not type-checked"),
                ok.out());
        assertTrue(ok.out().contains("3 rule(s) compiled and type-checked"), ok.out());
    }

    @Test
    void aRuleThatDoesNotCompileIsExit2WithFileLineAndColumn(@TempDir Path dir) throws Exception {
        rule(
                dir,
                "acme-broken",
                "check:\n  for: [Deployment]\n  when: object.replicas >\n  message: x\n");
        Run s =
                deja(
                        "scan",
                        "--rules-dir",
                        dir.toString(),
                        "src/test/resources/fixtures/k8s-lb-not-spread");
        assertEquals(2, s.code(), s.err());
        String file = dir.resolve("acme-broken.yaml").toString();
        // line 10 of the file: "  when: object.replicas >"; CEL stops at the end of the text
        assertTrue(s.err().startsWith("deja: " + file + ":10:26: "), s.err());
        assertTrue(s.err().contains("check.when: mismatched input"), s.err());
        assertEquals(1, s.err().strip().lines().count(), "one line, no stack trace: " + s.err());
        Run lint = deja("rules", "test", "--lint", dir.toString());
        assertEquals(2, lint.code());
        rule(
                dir,
                "acme-broken",
                "check:\n  for: [Deployment]\n  when: |\n    object.replicas > 1 &&\n      nosuch(object)\n  message: x\n");
        Run s2 = deja("rules", "test", "--lint", dir.toString());
        assertEquals(2, s2.code());
        assertTrue(
                s2.err().contains(file + ":12:13: check.when: undeclared reference to 'nosuch'"),
                s2.err());
        // a scan compiles its rules while it reads its inputs; the rule's error still comes
        // first, before a file that cannot be read, a cluster that cannot be reached, and before
        // any finding
        Path kubeconfig = dir.resolve("kubeconfig");
        Files.writeString(
                kubeconfig,
                "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server:"
                        + " \"https://127.0.0.1:1\"}\nusers:\n- name: u\n  user: {token: t}\n"
                        + "contexts:\n- name: x\n  context: {cluster: c, user: u}\n"
                        + "current-context: x\n");
        for (List<String> input :
                List.of(
                        List.of(dir.resolve("no-such-haproxy.cfg").toString()),
                        List.of("src/test/resources/fixtures/k8s-lb-not-spread"),
                        List.of("--cluster", "--kubeconfig", kubeconfig.toString()))) {
            List<String> args = new ArrayList<>(List.of("scan", "--rules-dir", dir.toString()));
            args.addAll(input);
            Run scan = deja(args.toArray(new String[0]));
            assertEquals(2, scan.code(), scan.err());
            assertTrue(
                    scan.err()
                            .startsWith(
                                    "deja: "
                                            + file
                                            + ":12:13: check.when: undeclared reference to"
                                            + " 'nosuch'"),
                    scan.err());
            assertEquals(1, scan.err().strip().lines().count(), scan.err());
            assertEquals("", scan.out());
        }
    }

    @Test
    void anExpressionFailingOnOneObjectIsANoteAndTheRestIsChecked(@TempDir Path dir)
            throws Exception {
        rule(
                Files.createDirectories(dir.resolve("rules")),
                "acme-replicas",
                "check:\n  for: [Deployment]\n  when: object.replicas < 2\n  message: '{{ object.meta.display }} runs {{ object.replicas }}'\n");
        Path m = dir.resolve("m.yaml");
        Files.writeString(m, TWO_DEPLOYMENTS);
        Run s =
                deja(
                        "scan",
                        "--rules-dir",
                        dir.resolve("rules").toString(),
                        "--rules",
                        "acme-replicas",
                        "--format",
                        "json",
                        m.toString());
        // the finding on a, and b not checked: the scan is incomplete (exit 3, over 1)
        assertEquals(3, s.code(), s.out() + s.err());
        assertTrue(
                s.out().contains("Deployment n/a runs 1"),
                "the object that has replicas is judged: " + s.out());
        JsonNode json = JsonMapper.builder().build().readTree(s.out());
        assertFalse(json.get("summary").get("complete").asBoolean(), s.out());
        assertFalse(json.get("coverage").get("complete").asBoolean(), s.out());
        assertTrue(s.out().contains("rule acme-replicas on Deployment n/b"), s.out());
        assertTrue(s.out().contains("not checked: check.when"), s.out());
        boolean gap = false;
        for (JsonNode e : json.get("coverage").get("entries")) {
            gap |=
                    e.get("scope").asString().equals("rule acme-replicas on Deployment n/b")
                            && e.get("status").asString().equals("failed");
        }
        assertTrue(gap, "b is a scope not checked: " + s.out());

        Run text =
                deja(
                        "scan",
                        "--rules-dir",
                        dir.resolve("rules").toString(),
                        "--rules",
                        "acme-replicas",
                        m.toString());
        assertEquals(3, text.code(), text.out() + text.err());
        assertTrue(text.out().contains("Deployment n/a runs 1"), text.out());
        assertTrue(text.out().contains("rule acme-replicas on Deployment n/b"), text.out());
        assertTrue(text.out().contains("1 not checked"), text.out());

        Run allowed =
                deja(
                        "scan",
                        "--rules-dir",
                        dir.resolve("rules").toString(),
                        "--rules",
                        "acme-replicas",
                        "--allow-partial",
                        m.toString());
        assertEquals(1, allowed.code(), "--allow-partial: the finding decides: " + allowed.out());
    }

    @Test
    void anExpressionPastTheCostLimitIsStopped(@TempDir Path dir) throws Exception {
        String hundred =
                String.join(
                        ",",
                        java.util.stream.IntStream.range(0, 100)
                                .mapToObj(Integer::toString)
                                .toList());
        rule(
                Files.createDirectories(dir.resolve("rules")),
                "acme-costly",
                "check:\n  for: [Deployment]\n  when: \"["
                        + hundred
                        + "].all(a, ["
                        + hundred
                        + "].all(b, ["
                        + hundred
                        + "].all(c, a + b + c >= 0)))\"\n  message: never\n");
        Path m = dir.resolve("m.yaml");
        Files.writeString(m, TWO_DEPLOYMENTS);
        Run s =
                deja(
                        "scan",
                        "--rules-dir",
                        dir.resolve("rules").toString(),
                        "--rules",
                        "acme-costly",
                        "--format",
                        "json",
                        m.toString());
        assertEquals(3, s.code(), "objects not checked: incomplete; " + s.out() + s.err());
        assertTrue(
                s.out().contains("ran past the cost limit of 1000000 evaluation steps"), s.out());
        assertTrue(s.out().contains("rule acme-costly on Deployment n/a"), s.out());
    }

    @Test
    void theCostLimitIsSetInDejaYaml(@TempDir Path dir) throws Exception {
        rule(
                Files.createDirectories(dir.resolve("rules")),
                "acme-list",
                "check:\n  for: [Deployment]\n  when: '[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].all(x, x > 20)'\n  message: never\n");
        Path m = dir.resolve("m.yaml");
        Files.writeString(m, TWO_DEPLOYMENTS);
        String[] scan = {
            "scan",
            "--rules-dir",
            dir.resolve("rules").toString(),
            "--rules",
            "acme-list",
            "--config",
            dir.resolve("deja.yaml").toString(),
            m.toString()
        };
        Files.writeString(dir.resolve("deja.yaml"), "celCostLimit: 10\n");
        Run low = deja(scan);
        assertEquals(3, low.code(), low.out() + low.err());
        assertTrue(low.out().contains("ran past the cost limit of 10 evaluation steps"), low.out());
        assertTrue(low.out().contains("rule acme-list on Deployment n/a"), low.out());

        Files.writeString(dir.resolve("deja.yaml"), "celCostLimit: 100000\n");
        Run high = deja(scan);
        assertEquals(0, high.code(), "within the limit: checked, no finding; " + high.out());
        assertFalse(high.out().contains("cost limit"), high.out());

        Files.writeString(dir.resolve("deja.yaml"), "celCostLimit: lots\n");
        Run bad = deja(scan);
        assertEquals(2, bad.code(), bad.out() + bad.err());
        assertTrue(bad.err().contains("deja.yaml:1"), bad.err());
    }

    @Test
    void aFailingTestIsExit1NamingTheRuleTheInputAndTheLine(@TempDir Path dir) throws Exception {
        rule(
                dir,
                "acme-one-replica",
                "check:\n  for: [Deployment]\n  when: has(object.replicas) && object.replicas < 2\n  message: '{{ object.meta.display }} runs one replica'\n");
        Files.createDirectories(dir.resolve("acme-one-replica"));
        // expects a finding on b (it has no replicas: it does not fire) and none on a (it does)
        Files.writeString(
                dir.resolve("acme-one-replica/two.yaml"),
                TWO_DEPLOYMENTS.replace(
                        "metadata: {name: b",
                        "# expect: acme-one-replica runs one replica\nmetadata: {name: b"));
        Files.writeString(
                dir.resolve("acme-one-replica/none_ok.yaml"),
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
        Run t = deja("rules", "test", dir.toString());
        assertEquals(1, t.code(), t.out() + t.err());
        assertTrue(t.out().contains("FAIL  acme-one-replica / two.yaml"), t.out());
        assertTrue(
                t.out()
                        .contains(
                                "two.yaml:13: expected a finding of acme-one-replica at line 14 with 'runs one replica'"),
                t.out());
        assertTrue(
                t.out()
                        .contains(
                                "two.yaml:1: unexpected finding of acme-one-replica (medium) at Deployment n/a"),
                t.out());
        assertTrue(t.out().contains("ok    acme-one-replica / none_ok.yaml"), t.out());
        assertTrue(t.out().contains("1 passed, 1 failed"), t.out());
    }

    @Test
    void aScanWithoutRulesOfItsOwnLoadsNoCelClass() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p =
                new ProcessBuilder(
                                java,
                                "-verbose:class",
                                "-cp",
                                System.getProperty("java.class.path"),
                                "dev.deja.Main",
                                "scan",
                                "examples/haproxy/il-0264-before.cfg",
                                "src/test/resources/fixtures/k8s-lb-not-spread")
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(
                1, p.exitValue(), out.length() > 2000 ? out.substring(out.length() - 2000) : out);
        assertTrue(out.contains("dev.deja.rules.kube.LbNotSpread"), "the class log is read");
        List<String> cel =
                out.lines()
                        .filter(l -> l.contains(" dev.cel.") || l.contains("dev.deja.rules.cel."))
                        .limit(5)
                        .toList();
        assertEquals(List.of(), cel);
        assertFalse(out.contains("com.google.protobuf."), "nor protobuf");
    }
}
