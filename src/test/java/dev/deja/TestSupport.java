package dev.deja;

import dev.deja.cli.Cli;
import dev.deja.engine.Catalog;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Runs the CLI in-process and captures what it prints. */
public final class TestSupport {
    private TestSupport() {}

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Exit code, stdout and stderr of one run. */
    public record Run(int code, String out, String err) {
        /** Standard output parsed as JSON (for --format json). */
        public JsonNode json() {
            return TestSupport.json(out);
        }
    }

    /**
     * The rules linked to these cases in the catalog, as a {@code --rules} value: a test of an
     * example or a report format runs the rules it is about, so that a new rule elsewhere never
     * changes what it sees.
     */
    public static String rulesOf(String... caseIds) {
        List<String> ids = new ArrayList<>();
        for (String c : caseIds) {
            Catalog.packaged().rulesForCase(c).forEach(r -> ids.add(r.id()));
        }
        if (ids.isEmpty()) {
            throw new AssertionError("no rule links " + Arrays.toString(caseIds));
        }
        return String.join(",", new TreeSet<>(ids));
    }

    /** Parses JSON text (a report, a snapshot): tests read fields, never slice the text. */
    public static JsonNode json(String text) {
        return JSON.readTree(text);
    }

    /** "source scope: detail" of each coverage entry of a JSON report whose status is failed. */
    public static List<String> failedEntries(JsonNode report) {
        List<String> out = new ArrayList<>();
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (e.path("status").asString("").equals("failed")) {
                out.add(
                        e.path("source").asString("")
                                + " "
                                + e.path("scope").asString("")
                                + ": "
                                + e.path("detail").asString(""));
            }
        }
        return out;
    }

    public static Run run(String... args) {
        return runWith(new ByteArrayInputStream(new byte[0]), Map.of(), args);
    }

    public static Run runWith(InputStream stdin, Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code =
                Cli.run(
                        new Cli.Io(new PrintWriter(out), new PrintWriter(err), stdin, env, false),
                        args);
        return new Run(code, out.toString(), err.toString());
    }

    /**
     * The shared corpus beside the repository (CI has it; a fresh clone does not: the test is
     * skipped, saying so).
     */
    public static Path shared(String sub) {
        Path p = Path.of("..", "shared").resolve(sub);
        Assumptions.assumeTrue(
                Files.isDirectory(p) || Files.isRegularFile(p),
                "../shared/"
                        + sub
                        + " is not beside this clone (it is in CI): skipping the corpus test");
        return p;
    }

    /** A named pipe made with mkfifo(1); the test is skipped, saying so, where mkfifo is absent. */
    public static Path mkfifo(Path p) throws Exception {
        Process mk;
        try {
            mk = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
        } catch (IOException e) {
            Assumptions.abort("mkfifo is not available: " + e.getMessage());
            return p;
        }
        Assumptions.assumeTrue(
                mk.waitFor(1, TimeUnit.MINUTES) && mk.exitValue() == 0, "mkfifo failed");
        return p;
    }
}
