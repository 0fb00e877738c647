package dev.deja.cli;

import dev.deja.engine.Catalog;
import dev.deja.engine.DidYouMean;
import dev.deja.engine.InputException;
import dev.deja.engine.Rule;
import dev.deja.engine.Severity;
import dev.deja.rules.RuleRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code deja scan}'s rule selection: which rules run, which findings are reported, which are
 * suppressed.
 */
final class RuleOptions {
    List<String> onlyRules = new ArrayList<>();

    List<String> skipRules = new ArrayList<>();

    String minSeverity;

    List<Path> rulesDirs = new ArrayList<>();

    Path ignoreFile;

    /** The options above, for picocli (see {@link Opt}). */
    void declare(CommandSpec s) {
        s.addOption(
                Opt.named("--rules")
                        .label("ID")
                        .split(",")
                        .description("Run only these rules")
                        .list(String.class, this, "onlyRules"));
        s.addOption(
                Opt.named("--skip-rules")
                        .label("ID")
                        .split(",")
                        .description("Do not run these rules")
                        .list(String.class, this, "skipRules"));
        s.addOption(
                Opt.named("--min-severity")
                        .label("SEVERITY")
                        .defaultValue("info")
                        .description(
                                "Report only findings at or above: info, low, medium, high, critical (default: ${DEFAULT-VALUE})")
                        .value(String.class, this, "minSeverity"));
        s.addOption(
                Opt.named("--rules-dir")
                        .label("DIR")
                        .description(
                                "A folder of your own rules in CEL (<id>.yaml, cases/<ID>.yaml), run next to the built-in ones; repeatable (see docs/writing-rules.md)")
                        .list(Path.class, this, "rulesDirs"));
        s.addOption(
                Opt.named("--ignore-file")
                        .label("FILE")
                        .description("YAML list of suppressions: {rule, object, reason, expires}")
                        .value(Path.class, this, "ignoreFile"));
    }

    Severity minSeverity() {
        try {
            return Severity.parse(minSeverity);
        } catch (IllegalArgumentException e) {
            throw new InputException("--min-severity: " + e.getMessage());
        }
    }

    /**
     * The rules to run; only their classes are loaded. {@code userRules}: the team's own rules
     * (compiled from --rules-dir), which the catalog holds too. None left is a usage error.
     */
    List<Rule> select(Catalog catalog, List<Rule> userRules) {
        Set<String> only = canonical(catalog, onlyRules, "--rules");
        Set<String> skip = canonical(catalog, skipRules, "--skip-rules");
        List<Rule> rules =
                new ArrayList<>(
                        RuleRegistry.load(
                                catalog.rules().stream()
                                        .filter(m -> catalog.origin(m.id()).isEmpty())
                                        .filter(
                                                m ->
                                                        (only.isEmpty() || only.contains(m.id()))
                                                                && !skip.contains(m.id()))
                                        .toList()));
        for (Rule r : userRules) {
            if ((only.isEmpty() || only.contains(r.id())) && !skip.contains(r.id())) {
                rules.add(r);
            }
        }
        rules.sort(Comparator.comparing(Rule::id));
        if (rules.isEmpty()) {
            throw new InputException("--rules/--skip-rules: no rule is left to run");
        }
        return rules;
    }

    /** Every rule id, and the former ids (aliases) still accepted. */
    static List<String> ruleIds(Catalog catalog) {
        List<String> ids = new ArrayList<>();
        catalog.rules()
                .forEach(
                        r -> {
                            ids.add(r.id());
                            ids.addAll(r.aliases());
                        });
        return ids;
    }

    private static Set<String> canonical(Catalog catalog, List<String> ids, String option) {
        Set<String> out = new TreeSet<>();
        for (String id : ids) {
            String t = id.trim();
            if (t.isEmpty()) {
                continue;
            }
            if (catalog.rule(t).isEmpty()) {
                throw new InputException(
                        option
                                + ": unknown rule '"
                                + t
                                + "'"
                                + DidYouMean.hint(t, ruleIds(catalog))
                                + "; see 'deja rules'");
            }
            out.add(catalog.canonicalRuleId(t));
        }
        return out;
    }
}
