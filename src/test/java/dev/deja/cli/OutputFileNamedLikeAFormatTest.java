package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.Main;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code -o json} is -o's file, named json, holding the --format's (text) report: deja says so,
 * once, and still writes what was asked. Run as a process in a folder of its own, as a user types
 * it.
 */
class OutputFileNamedLikeAFormatTest {
    static final Path EXAMPLE = Path.of("examples/haproxy/il-0264-before.cfg").toAbsolutePath();

    @TempDir Path tmp;

    record Run(int code, String err) {}

    Run deja(String... args) throws Exception {
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-cp",
                                System.getProperty("java.class.path"),
                                Main.class.getName()));
        cmd.addAll(List.of(args));
        Process p =
                new ProcessBuilder(cmd)
                        .directory(tmp.toFile())
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
        p.getOutputStream().close();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Run(p.waitFor(), err);
    }

    @Test
    void aFormatNameGivenToDashOIsNamedAsSuch() throws Exception {
        Run r = deja("scan", EXAMPLE.toString(), "-o", "json", "--fail-on", "none");
        assertEquals(0, r.code(), r.err());
        assertTrue(
                r.err()
                        .contains(
                                "deja: warning: -o json writes the text report to a file named 'json':"
                                        + " -o (--output-file) is the output file, --format the format"
                                        + " (a json report: --format json, with -o FILE for a file)"),
                r.err());
        // what was asked is still done: the text report, in ./json
        assertTrue(Files.readString(tmp.resolve("json")).contains("haproxy-tarpit-holds-slots"));

        // an existing file of that name is meant: no warning (the report replaces it)
        Run again = deja("scan", EXAMPLE.toString(), "-o", "json", "--fail-on", "none");
        assertEquals(0, again.code(), again.err());
        assertTrue(!again.err().contains("warning"), again.err());

        // a name that is no format: no warning
        Run plain = deja("scan", EXAMPLE.toString(), "-o", "report.txt", "--fail-on", "none");
        assertTrue(!plain.err().contains("warning"), plain.err());
        Run sarif = deja("scan", EXAMPLE.toString(), "-o", "SARIF", "--format", "sarif");
        assertTrue(sarif.err().contains("-o SARIF writes the sarif report"), sarif.err());
    }
}
