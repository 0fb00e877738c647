package dev.deja.cli;

import dev.deja.engine.Catalog;
import dev.deja.engine.InputException;
import dev.deja.engine.RuleMetadata;
import dev.deja.report.JsonText;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** {@code deja rules}: the rule catalog. */
@Command(
        name = "rules",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        subcommands = RulesTestCommand.class,
        description = {
            "List the rules: id, severity, source, the cases they come from, and title.",
            "'deja rules test DIR' tests your own rules (see docs/writing-rules.md)."
        })
public final class RulesCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(
            names = "--rules-dir",
            paramLabel = "DIR",
            description = "Also list your own rules of this folder, with the file each comes from")
    List<Path> rulesDirs = new ArrayList<>();

    @Option(
            names = "--format",
            defaultValue = "text",
            paramLabel = "text|json|markdown",
            description =
                    "Output format (default: ${DEFAULT-VALUE}); markdown: the rules reference, docs/rules.md")
    String format;

    /** The packaged catalog, with the rules and cases of these folders when any is given. */
    static Catalog catalog(List<Path> rulesDirs) {
        Catalog c = Catalog.packaged();
        return rulesDirs.isEmpty() ? c : UserRuleLoader.load(c, rulesDirs).catalog();
    }

    @Override
    public Integer call() {
        Catalog catalog = catalog(rulesDirs);
        PrintWriter out = spec.commandLine().getOut();
        if ("json".equals(format)) {
            ArrayNode arr = JsonNodeFactory.instance.arrayNode();
            for (RuleMetadata r : catalog.rules()) {
                ObjectNode o = arr.addObject();
                o.put("id", r.id());
                o.put("title", r.title());
                o.put("severity", r.severity().id());
                o.put("source", r.source().id());
                ArrayNode c = o.putArray("caseIds");
                r.caseIds().forEach(c::add);
                o.put("description", r.description());
                o.put("remediation", r.remediation());
                ArrayNode l = o.putArray("links");
                r.links().forEach(l::add);
                if (!r.aliases().isEmpty()) {
                    ArrayNode a = o.putArray("aliases");
                    r.aliases().forEach(a::add);
                }
                catalog.origin(r.id()).ifPresent(f -> o.put("origin", f));
            }
            StringWriter text = new StringWriter();
            JsonText.writePretty(arr, text);
            out.println(text);
        } else if ("markdown".equals(format)) {
            out.print(RuleDocs.rules(catalog));
        } else if ("text".equals(format)) {
            // a header, and every column as wide as its widest cell (a rule from two cases has
            // "IL-0495,IL-0364")
            int w =
                    Math.max(
                            "RULE".length(),
                            catalog.rules().stream()
                                    .mapToInt(r -> r.id().length())
                                    .max()
                                    .orElse(10));
            int cw =
                    Math.max(
                            "CASES".length(),
                            catalog.rules().stream()
                                    .mapToInt(r -> String.join(",", r.caseIds()).length())
                                    .max()
                                    .orElse(8));
            String row = "%-" + w + "s  %-8s  %-10s  %-" + cw + "s  %s%n";
            out.printf(Locale.ROOT, row, "RULE", "SEVERITY", "SOURCE", "CASES", "TITLE");
            for (RuleMetadata r : catalog.rules()) {
                out.printf(
                        Locale.ROOT,
                        row,
                        r.id(),
                        r.severity().id(),
                        r.source().id(),
                        String.join(",", r.caseIds()),
                        r.title() + catalog.origin(r.id()).map(f -> " (" + f + ")").orElse(""));
            }
            out.printf(
                    Locale.ROOT,
                    "%d rules; 'deja explain <rule-id>' tells what one checks and why.%n",
                    catalog.rules().size());
        } else {
            throw new InputException(
                    "--format: expected text, json or markdown, not '" + format + "'");
        }
        out.flush();
        return ExitCodes.OK;
    }
}
