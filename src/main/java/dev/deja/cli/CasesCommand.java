package dev.deja.cli;

import dev.deja.engine.CaseInfo;
import dev.deja.engine.Catalog;
import dev.deja.engine.InputException;
import dev.deja.report.JsonText;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** {@code deja cases}: the incident cases behind the rules. */
@Command(
        name = "cases",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "List the incident cases the rules come from.")
public final class CasesCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(
            names = "--rules-dir",
            paramLabel = "DIR",
            description = "Also know your own rules and cases of this folder")
    List<Path> rulesDirs = new ArrayList<>();

    @CommandLine.Option(
            names = "--format",
            defaultValue = "text",
            paramLabel = "text|json|markdown",
            description =
                    "Output format (default: ${DEFAULT-VALUE}); json: an array, like 'deja rules --format json';"
                            + " markdown: the cases list, docs/cases.md")
    String format;

    @Override
    public Integer call() {
        Catalog catalog = RulesCommand.catalog(rulesDirs);
        PrintWriter out = spec.commandLine().getOut();
        String f = format.toLowerCase(Locale.ROOT);
        if (f.equals("json")) {
            ArrayNode arr = JsonNodeFactory.instance.arrayNode();
            for (CaseInfo c : catalog.cases()) {
                ObjectNode o = arr.addObject();
                o.put("id", c.id());
                o.put("title", c.title());
                o.put("organisation", c.organisation());
                o.put("date", c.date());
                o.put("summary", c.oneLine());
                ArrayNode rules = o.putArray("ruleIds");
                catalog.rulesForCase(c.id()).forEach(r -> rules.add(r.id()));
            }
            StringWriter text = new StringWriter();
            JsonText.writePretty(arr, text);
            out.println(text);
            out.flush();
            return ExitCodes.OK;
        }
        if (f.equals("markdown")) {
            out.print(RuleDocs.cases(catalog));
            out.flush();
            return ExitCodes.OK;
        }
        if (!f.equals("text")) {
            throw new InputException(
                    "--format: expected text, json or markdown, not '" + format + "'");
        }
        int dw = catalog.cases().stream().mapToInt(c -> c.date().length()).max().orElse(10);
        int ow = catalog.cases().stream().mapToInt(c -> c.organisation().length()).max().orElse(10);
        for (CaseInfo c : catalog.cases()) {
            int n = catalog.rulesForCase(c.id()).size();
            out.printf(
                    Locale.ROOT,
                    "%s  %-" + dw + "s  %-" + ow + "s  %s (%d %s)%n",
                    c.id(),
                    c.date(),
                    c.organisation(),
                    c.title(),
                    n,
                    n == 1 ? "rule" : "rules");
        }
        out.println("'deja explain <case-id>' tells the story.");
        out.flush();
        return ExitCodes.OK;
    }
}
