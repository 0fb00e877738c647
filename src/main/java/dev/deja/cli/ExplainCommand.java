package dev.deja.cli;

import dev.deja.engine.CaseInfo;
import dev.deja.engine.Catalog;
import dev.deja.engine.DidYouMean;
import dev.deja.engine.InputException;
import dev.deja.engine.RuleMetadata;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code deja explain <rule-id|case-id>}. */
@Command(
        name = "explain",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {
            "Explain a rule (what it checks, the case behind it, how to fix) or a case (what happened,"
                    + " the numbers, the timeline, the follow-ups, the rules that check for it)."
        })
public final class ExplainCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(
            names = "--rules-dir",
            paramLabel = "DIR",
            description = "Also know your own rules and cases of this folder")
    List<Path> rulesDirs = new ArrayList<>();

    @Parameters(
            paramLabel = "ID",
            description = "A rule id (haproxy-tarpit-holds-slots) or a case id (IL-0264)")
    String id;

    @Override
    public Integer call() {
        Catalog catalog = RulesCommand.catalog(rulesDirs);
        PrintWriter out = spec.commandLine().getOut();
        CaseInfo c = catalog.caseInfo(id.toUpperCase(Locale.ROOT)).orElse(null);
        if (c != null) {
            explainCase(catalog, c, out);
        } else {
            RuleMetadata r =
                    catalog.rule(id.toLowerCase(Locale.ROOT))
                            .orElseThrow(
                                    () ->
                                            new InputException(
                                                    "unknown rule or case '"
                                                            + id
                                                            + "'"
                                                            + DidYouMean.hint(id, ids(catalog))
                                                            + "; see 'deja rules' and 'deja cases'"));
            explainRule(catalog, r, out);
        }
        out.flush();
        return ExitCodes.OK;
    }

    /** Every rule id, former id and case id: what {@code deja explain} takes. */
    static List<String> ids(Catalog catalog) {
        List<String> ids = new ArrayList<>();
        catalog.rules()
                .forEach(
                        r -> {
                            ids.add(r.id());
                            ids.addAll(r.aliases());
                        });
        catalog.cases().forEach(c -> ids.add(c.id()));
        return ids;
    }

    static void explainCase(Catalog catalog, CaseInfo c, PrintWriter out) {
        out.println(c.id() + "  " + c.title());
        out.println(
                c.organisation() + ", " + c.date() + "   [" + String.join(", ", c.tags()) + "]");
        catalog.origin(c.id()).ifPresent(f -> out.println("from " + f + " (a case of your own)"));
        out.println();
        out.println(wrap(c.summary(), ""));
        if (!c.numbers().isEmpty()) {
            out.println();
            out.println("The numbers:");
            c.numbers().forEach(n -> out.println(wrap(n, "  - ")));
        }
        out.println();
        out.println("Timeline (UTC):");
        for (CaseInfo.TimelineEntry t : c.timeline()) {
            out.println(wrap(t.event(), "  " + t.time() + "  "));
        }
        if (!c.failed().isEmpty()) {
            out.println();
            out.println("What failed:");
            c.failed().forEach(n -> out.println(wrap(n, "  - ")));
        }
        out.println();
        out.println("Follow-ups:");
        c.followUps().forEach(f -> out.println(wrap(f, "  - ")));
        out.println();
        out.println("Rules that check for it:");
        for (RuleMetadata r : catalog.rulesForCase(c.id())) {
            out.println("  " + r.id() + " (" + r.severity().id() + "): " + r.title());
        }
        out.println();
        out.println("Sources:");
        c.links().forEach(l -> out.println("  " + l));
        out.println("  " + c.libraryUrl());
    }

    static void explainRule(Catalog catalog, RuleMetadata r, PrintWriter out) {
        out.println(r.id() + "  " + r.title());
        out.println(
                "severity "
                        + r.severity().id()
                        + ", source "
                        + r.source().id()
                        + ", cases "
                        + String.join(", ", r.caseIds()));
        if (!r.aliases().isEmpty()) {
            out.println("formerly: " + String.join(", ", r.aliases()));
        }
        catalog.origin(r.id()).ifPresent(f -> out.println("from " + f + " (a rule of your own)"));
        out.println();
        out.println("What it checks:");
        out.println(wrap(r.description(), "  "));
        out.println();
        out.println("Why:");
        for (String id : r.caseIds()) {
            catalog.caseInfo(id)
                    .ifPresent(
                            c -> {
                                out.println(
                                        wrap(
                                                c.id()
                                                        + " "
                                                        + c.title()
                                                        + " ("
                                                        + c.organisation()
                                                        + ", "
                                                        + c.date()
                                                        + "): "
                                                        + c.oneLine(),
                                                "  "));
                                out.println("  'deja explain " + c.id() + "' for the whole story.");
                            });
        }
        out.println();
        out.println("How to fix:");
        out.println(wrap(r.remediation(), "  "));
        if (!r.parameters().isEmpty()) {
            out.println();
            out.println("Parameters (deja.yaml: rules: {" + r.id() + ": {NAME: VALUE}}):");
            r.parameters()
                    .forEach(
                            p ->
                                    out.println(
                                            wrap(
                                                    p.name()
                                                            + " (default "
                                                            + p.defaultValue()
                                                            + "): "
                                                            + p.description(),
                                                    "  ")));
        }
        if (!r.links().isEmpty()) {
            out.println();
            out.println("References:");
            r.links().forEach(l -> out.println("  " + l));
        }
    }

    /** Wraps at 100 columns, continuation lines indented to the prefix width. */
    static String wrap(String text, String prefix) {
        String pad = " ".repeat(prefix.length());
        StringBuilder sb = new StringBuilder();
        StringBuilder line = new StringBuilder(prefix);
        for (String word : text.strip().split("\\s+")) {
            if (line.length() + word.length() + 1 > 100 && line.length() > prefix.length()) {
                sb.append(line.toString().stripTrailing()).append('\n');
                line = new StringBuilder(pad);
            }
            if (line.length() > pad.length()
                    || (sb.length() == 0 && line.length() > prefix.length())) {
                line.append(' ');
            }
            line.append(word);
        }
        sb.append(line.toString().stripTrailing());
        return sb.toString();
    }
}
