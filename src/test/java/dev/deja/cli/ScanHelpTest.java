package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ScanHelpTest {
    @Test
    void everyOptionIsListedOnceUnderItsGroupsHeading() {
        TestSupport.Run r = TestSupport.run("scan", "--help");
        assertEquals(0, r.code(), r.err());
        String help = r.out();
        List<String> headings =
                List.of(
                        "Rules and findings:",
                        "Report, outputs and exit code:",
                        "Files: HAProxy configs and Helm charts:",
                        "Proof on the real haproxy (--prove):",
                        "Live Kubernetes (--cluster):",
                        "Live proxy figures (--haproxy-runtime, --prometheus):",
                        "AWS load balancers (--aws):",
                        "Several clusters or accounts:",
                        "General:",
                        "Exit codes:");
        int at = -1;
        for (String h : headings) {
            int i = help.indexOf("\n" + h + "\n");
            assertTrue(i > at, h + " missing or out of order in:\n" + help);
            at = i;
        }
        CommandLine scan =
                new CommandLine(
                        new ScanCommand(
                                        new Cli.Io(
                                                new PrintWriter(new StringWriter()),
                                                new PrintWriter(new StringWriter()),
                                                new ByteArrayInputStream(new byte[0]),
                                                Map.of(),
                                                false))
                                .spec());
        for (CommandLine.Model.OptionSpec o : scan.getCommandSpec().options()) {
            // a negatable switch is listed as --[no-]NAME, whether its name is --NAME or --no-NAME
            String name =
                    o.negatable()
                            ? o.longestName().replaceFirst("^--(no-)?", "--[no-]")
                            : o.longestName();
            long rows =
                    Pattern.compile("(?m)^ {2}(-\\w, | {4})" + Pattern.quote(name) + "(?=[= \\n])")
                            .matcher(help)
                            .results()
                            .count();
            assertEquals(1, rows, o.longestName() + " in the option list");
        }
        int kube = help.indexOf("\nLive Kubernetes (--cluster):\n");
        int namespace = help.indexOf("  -n, --namespace=NS");
        assertTrue(
                namespace > kube && namespace < help.indexOf("\nLive proxy figures"),
                "-n under Live Kubernetes");
    }

    @Test
    void theHelpRendersDefaultsAndEscapesThoughTheModelIsBuiltWithoutInterpolation() {
        // Opt.command builds the scan's model with picocli's interpolation off; the help turns it
        // on: ${DEFAULT-VALUE} becomes the default, $${VAR} the text ${VAR}
        String help = TestSupport.run("scan", "--help").out().replaceAll("\\s+", " ");
        assertTrue(help.contains("'none' never fails (default: medium)"), help);
        assertTrue(help.contains("tarpit arithmetic (default: 300, as in IL-0264)"), help);
        assertTrue(help.contains("used in HAProxy configs (\"${VAR}\")"), help);
        assertTrue(!help.contains("DEFAULT-VALUE"), help);
        String fish = TestSupport.run("completion", "fish").out();
        assertTrue(fish.contains("used in HAProxy configs (\"${VAR}\")"), fish);
        assertTrue(!fish.contains("DEFAULT-VALUE"), fish);
    }
}
