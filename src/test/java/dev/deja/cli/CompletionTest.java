package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.TestSupport.Run;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deja completion bash|zsh|fish}: each script is loaded by its real shell and asked to
 * complete; zsh and fish are skipped, saying so, where they are not installed (bash always is).
 */
class CompletionTest {
    @TempDir Path tmp;

    /** The script for a shell, in a file. */
    Path script(String shell) throws IOException {
        Run r = TestSupport.run("completion", shell);
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.err());
        Path p = tmp.resolve("deja." + shell);
        Files.writeString(p, r.out());
        return p;
    }

    /** Runs a shell command line; its stdout (stderr joined), failing on a non-zero exit. */
    static String shell(List<String> command) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            Assumptions.abort(command.get(0) + " is not installed: " + e.getMessage());
            return "";
        }
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        return out;
    }

    static void assumeInstalled(String shell) {
        boolean found = false;
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            found |= !dir.isEmpty() && Files.isExecutable(Path.of(dir, shell));
        }
        Assumptions.assumeTrue(found, shell + " is not on the PATH: skipping its completion test");
    }

    @Test
    void bashLoadsTheScriptAndCompletesSubcommandsOptionsAndValues() throws Exception {
        Path s = script("bash");
        String complete =
                "source <(cat '"
                        + s
                        + "')\n"
                        + "complete -p deja\n"
                        + "ask() { COMP_WORDS=(\"$@\"); COMP_CWORD=$(( $# - 1 ));"
                        + " COMP_LINE=\"$*\"; COMP_POINT=${#COMP_LINE}; COMPREPLY=();"
                        + " _complete_deja 2>/dev/null; echo \"$*: ${COMPREPLY[*]}\"; }\n"
                        + "ask deja sc\n"
                        + "ask deja ex\n"
                        + "ask deja scan --basel\n"
                        + "ask deja completion ''\n";
        String out = shell(List.of("bash", "-c", complete));
        assertTrue(out.contains("complete -o default -F _complete_deja deja"), out);
        assertTrue(out.contains("deja sc: scan\n"), out);
        assertTrue(out.contains("deja ex: explain\n"), out);
        assertTrue(out.contains("deja scan --basel: --baseline\n"), out);
        assertTrue(out.contains("deja completion : bash zsh fish\n"), out);
    }

    @Test
    void zshLoadsTheScriptThroughBashcompinit() throws Exception {
        assumeInstalled("zsh");
        Path s = script("zsh");
        String out =
                shell(
                        List.of(
                                "zsh",
                                "-c",
                                "source '"
                                        + s
                                        + "' && whence -w _complete_deja && print -r -- \"${_comps[deja]}\""));
        assertTrue(out.contains("_complete_deja: function"), out);
        assertTrue(out.contains("_complete_deja"), out);
    }

    @Test
    void fishCompletesSubcommandsOptionsAndShells() throws Exception {
        Path s = script("fish");
        String text = Files.readString(s);
        // one line per subcommand, whatever this run built
        for (String sub : Cli.SUBCOMMANDS.keySet()) {
            assertTrue(text.contains("-n __fish_use_subcommand -a '" + sub + "' -d "), sub);
        }
        assumeInstalled("fish");
        String out =
                shell(
                        List.of(
                                "fish",
                                "--no-config",
                                "-c",
                                "source '"
                                        + s
                                        + "'; complete -C 'deja sc'; complete -C 'deja scan --basel';"
                                        + " complete -C 'deja completion '"));
        List<String> words = out.lines().map(l -> l.split("\t")[0]).toList();
        assertTrue(words.contains("scan"), out);
        assertTrue(words.contains("--baseline"), out);
        assertTrue(words.containsAll(List.of("bash", "zsh", "fish")), out);
    }

    @Test
    void anUnknownShellIsAUsageError() {
        Run r = TestSupport.run("completion", "tcsh");
        assertEquals(2, r.code(), r.err());
        assertEquals(
                "deja: completion: unknown shell 'tcsh' (expected bash, zsh or fish)\n", r.err());
    }
}
