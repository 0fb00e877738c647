package dev.deja.rules.kube;

import dev.deja.CorpusExpectations;
import dev.deja.TestSupport;
import dev.deja.collect.Collector;
import dev.deja.engine.Catalog;
import dev.deja.engine.Engine;
import dev.deja.engine.Finding;
import dev.deja.engine.Rule;
import dev.deja.engine.SourceKind;
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
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every file of the shared real-world Kubernetes corpus ({@code ../shared/corpus/kubernetes-real/}
 * and {@code ../shared/corpus/kubernetes/}) is scanned on its own with every Kubernetes rule, and
 * what fires on each object is compared with {@code corpus/kubernetes-expectations.yaml}: written
 * after reading each manifest, per object the findings that must be there (rule, severity, count,
 * why) and the rules that must stay silent (and why). A finding the file does not expect fails with
 * its message; so does an expected one that is missing, and a corpus file nobody wrote expectations
 * for. Skipped, saying so, when ../shared is not beside the clone.
 */
class RealCorpusTest {
    static final String EXPECTATIONS = "/corpus/kubernetes-expectations.yaml";

    static Map<String, Map<String, Map<String, Object>>> expectations() throws IOException {
        return CorpusExpectations.load(EXPECTATIONS);
    }

    static List<Path> corpusFiles(Path shared) throws IOException {
        List<Path> out = new ArrayList<>();
        for (String dir : List.of("corpus/kubernetes-real", "corpus/kubernetes")) {
            try (Stream<Path> s = Files.walk(shared.resolve(dir))) {
                s.filter(Files::isRegularFile).sorted().forEach(out::add);
            }
        }
        return out;
    }

    /** "kubernetes-real/haproxytech/haproxy-ingress.yaml", as the expectations name it. */
    static String key(Path shared, Path file) {
        return shared.resolve("corpus").relativize(file).toString().replace('\\', '/');
    }

    static List<Finding> scan(Path file) {
        ScanRequest.Builder b = ScanRequest.builder();
        b.paths = List.of(file.toString());
        b.processEnv = Map.of();
        ScanRequest req = b.build();
        List<Rule> kube =
                RuleRegistry.all().stream()
                        .filter(r -> r.source() == SourceKind.KUBERNETES)
                        .toList();
        return new Engine(Catalog.packaged())
                .run(Collector.collect(req), kube, Engine.Options.defaults())
                .findings();
    }

    @Test
    void everyCorpusFileHasExpectationsAndEveryExpectationAFile() throws IOException {
        Path shared = TestSupport.shared("corpus/kubernetes-real");
        shared = shared.getParent().getParent();
        Set<String> files = new TreeSet<>();
        for (Path f : corpusFiles(shared)) {
            files.add(key(shared, f));
        }
        CorpusExpectations.checkCoverage(files, expectations(), EXPECTATIONS);
    }

    @TestFactory
    Stream<DynamicTest> eachFileFiresWhatItsExpectationsSay() throws IOException {
        Path shared = TestSupport.shared("corpus/kubernetes-real").getParent().getParent();
        Map<String, Map<String, Map<String, Object>>> exp = expectations();
        List<DynamicTest> tests = new ArrayList<>();
        for (Path f : corpusFiles(shared)) {
            String k = key(shared, f);
            tests.add(DynamicTest.dynamicTest(k, () -> check(k, f, exp.getOrDefault(k, Map.of()))));
        }
        return tests.stream();
    }

    static void check(String key, Path file, Map<String, Map<String, Object>> objects) {
        CorpusExpectations.check(key, scan(file), objects);
    }
}
