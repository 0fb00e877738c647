package dev.deja.rules.cel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.deja.collect.Collector;
import dev.deja.engine.Catalog;
import dev.deja.engine.Coverage;
import dev.deja.engine.Engine;
import dev.deja.engine.Finding;
import dev.deja.engine.Rule;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Snapshot;
import dev.deja.model.haproxy.HaproxyParseException;
import dev.deja.rules.RuleRegistry;
import dev.deja.source.ScanRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One model, two ways to write a rule: built-in rules re-expressed in CEL
 * (src/test/resources/cel-proof/<id>.yaml) must give the very findings of the Java rule (rule id,
 * object, location, severity, message, key) on every fixture of the rule, on the examples and on
 * ../shared/corpus (skipped when it is absent).
 */
class CelProofTest {
    static final Path PROOF = Path.of("src/test/resources/cel-proof");
    static final List<String> RULES =
            List.of(
                    "aws-nlb-zonal-shift-disabled",
                    "haproxy-missing-http-request-timeout",
                    "k8s-lb-not-spread",
                    "k8s-nlb-service-single-zone-risk");

    static Stream<Arguments> inputs() throws IOException {
        List<Arguments> out = new ArrayList<>();
        for (String id : RULES) {
            String src = Catalog.packaged().rule(id).orElseThrow().source().id();
            List<Path> in = new ArrayList<>();
            try (Stream<Path> s = Files.list(Path.of("src/test/resources/fixtures", id))) {
                s.filter(p -> !p.getFileName().toString().equals("expect.yaml"))
                        .sorted()
                        .forEach(in::add);
            }
            in.add(
                    Path.of(
                            src.equals("haproxy")
                                    ? "examples/haproxy"
                                    : src.equals("aws") ? "examples/aws" : "examples/kubernetes"));
            for (Path p : in) {
                out.add(Arguments.of(id, p.toString()));
            }
            if (!src.equals("aws")) {
                for (String corpus :
                        src.equals("haproxy")
                                ? List.of("haproxy")
                                : List.of("kubernetes", "kubernetes-real")) {
                    out.add(Arguments.of(id, "../shared/corpus/" + corpus));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} / {1}")
    @MethodSource("inputs")
    void sameFindingsAsTheJavaRule(String id, String input) throws IOException {
        if (input.startsWith("../shared/")) {
            assumeTrue(
                    Files.isDirectory(Path.of(input)),
                    input + " is not beside this clone (it is in CI): skipping the corpus part");
        }
        Rule java = RuleRegistry.instantiate(Catalog.packaged().rule(id).orElseThrow());
        Path file = PROOF.resolve(id + ".yaml");
        CelRule cel =
                UserRules.compile(
                        new UserRules.SourceText(file.toString(), Files.readString(file)));
        assertEquals(id, cel.id());
        Set<String> kinds = new TreeSet<>(java.kubeKinds());
        kinds.addAll(cel.kubeKinds());
        assertTrue(
                cel.kubeKinds().containsAll(java.kubeKinds()),
                "the CEL rule asks the collector for "
                        + cel.kubeKinds()
                        + ", the Java rule for "
                        + java.kubeKinds());
        // a HAProxy folder file by file: the corpus holds configurations that today's HAProxy
        // refuses (one refused file would stop the scan of the whole folder)
        List<String> scans = new ArrayList<>();
        if (java.source().id().equals("haproxy") && Files.isDirectory(Path.of(input))) {
            try (Stream<Path> s = Files.walk(Path.of(input))) {
                s.filter(Files::isRegularFile)
                        .filter(p -> p.getFileName().toString().endsWith(".cfg"))
                        .sorted()
                        .forEach(p -> scans.add(p.toString()));
            }
        } else {
            scans.add(input);
        }
        int judged = 0;
        for (String path : scans) {
            Snapshot snapshot;
            try {
                snapshot = snapshot(path, kinds);
            } catch (HaproxyParseException e) {
                if (scans.size() == 1) {
                    throw e;
                }
                continue; // refused by deja as by HAProxy: neither rule sees it
            }
            judged++;
            compare(id, input, java, cel, snapshot);
        }
        assertTrue(judged > 0, "nothing of " + input + " could be read");
    }

    private static Snapshot snapshot(String path, Set<String> kinds) {
        ScanRequest.Builder b = ScanRequest.builder();
        b.paths = List.of(path);
        b.processEnv = Map.of();
        b.kubeKinds = Set.copyOf(kinds);
        return Collector.collect(b.build());
    }

    private static void compare(
            String id, String input, Rule java, CelRule cel, Snapshot snapshot) {
        Engine engine = new Engine(Catalog.packaged());
        ScanResult j = engine.run(snapshot, List.of(java), Engine.Options.defaults());
        ScanResult c = engine.run(snapshot, List.of(cel), Engine.Options.defaults());
        List<String> notes =
                c.coverage().entries().stream()
                        .filter(e -> e.scope().startsWith("rule " + id))
                        .map(Coverage.Entry::detail)
                        .toList();
        assertEquals(List.of(), notes, "the CEL rule could not check some objects");
        assertEquals(shown(j.findings()), shown(c.findings()));
        if (input.contains("fixtures") && !input.contains("_ok")) {
            assertFalse(j.findings().isEmpty(), "a firing fixture fires nothing: " + input);
        }
    }

    private static List<String> shown(List<Finding> fs) {
        return fs.stream()
                .map(
                        f ->
                                String.join(
                                        " | ",
                                        f.ruleId(),
                                        f.location().display(),
                                        String.valueOf(f.location().line()),
                                        f.severity().id(),
                                        f.message(),
                                        String.valueOf(f.key())))
                .toList();
    }
}
