package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.deja.TestSupport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;

/**
 * What the {@code --live-metrics} tests run and look up: deja scanning a mock cluster through a
 * kubeconfig written in the test's folder, and the findings and coverage entries of its JSON
 * report.
 */
final class LiveScans {
    private LiveScans() {}

    /** {@code deja scan --cluster --kubeconfig KUBECONFIG MORE...} against {@code c}. */
    static TestSupport.Run cluster(MockCluster c, Path tmp, String... more) throws IOException {
        return TestSupport.run(
                Stream.concat(
                                Stream.of(
                                        "scan",
                                        "--cluster",
                                        "--kubeconfig",
                                        c.kubeconfig(tmp).toString()),
                                Stream.of(more))
                        .toArray(String[]::new));
    }

    /** The same with {@code --live-metrics} before {@code more}. */
    static TestSupport.Run live(MockCluster c, Path tmp, String... more) throws IOException {
        return cluster(
                c,
                tmp,
                Stream.concat(Stream.of("--live-metrics"), Stream.of(more)).toArray(String[]::new));
    }

    /**
     * A live scan of one rule as JSON: {@code --live-metrics --rules RULE --format json MORE...}.
     */
    static TestSupport.Run liveJson(MockCluster c, Path tmp, String rule, String... more)
            throws IOException {
        return live(
                c,
                tmp,
                Stream.concat(Stream.of("--rules", rule, "--format", "json"), Stream.of(more))
                        .toArray(String[]::new));
    }

    /** The findings' messages, in report order, each asserted to be {@code rule}'s. */
    static List<String> messages(JsonNode report, String rule) {
        List<String> out = new ArrayList<>();
        for (JsonNode f : report.path("findings")) {
            assertEquals(rule, f.path("ruleId").asString());
            out.add(f.path("message").asString());
        }
        return out;
    }

    /** The coverage entries with this status ("read", "denied", ...), in report order. */
    static List<JsonNode> entries(JsonNode report, String status) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (e.path("status").asString().equals(status)) {
                out.add(e);
            }
        }
        return out;
    }

    /**
     * "STATUS: DETAIL" of the last coverage entry whose scope {@code scope} accepts; null when none
     * does.
     */
    static String entry(JsonNode report, Predicate<String> scope) {
        String found = null;
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (scope.test(e.path("scope").asString())) {
                found = e.path("status").asString() + ": " + e.path("detail").asString();
            }
        }
        return found;
    }
}
