package dev.deja.engine;

import java.util.List;
import java.util.Optional;

/**
 * What {@code rules/<id>.yaml} says about a rule. Its implementation is registered by id in {@code
 * dev.deja.rules.RuleRegistry} (a constructor reference the compiler checks), not named here.
 * {@code fix} is null when the YAML has no {@code fix:} block ({@link #fixBlock}).
 */
public record RuleMetadata(
        String id,
        String title,
        Severity severity,
        SourceKind source,
        List<String> caseIds,
        String description,
        String remediation,
        List<String> links,
        List<String> aliases,
        List<Parameter> parameters,
        Fix fix) {

    /**
     * A threshold a team may tune: {@code parameters: {NAME: {default: N, description: ...}}} in
     * the rule's YAML, overridden per rule in deja.yaml ({@code rules: {RULE-ID: {NAME: N}}}).
     * {@code integer} when the default is.
     */
    public record Parameter(String name, String defaultValue, String description) {
        public boolean integer() {
            return !defaultValue.contains(".");
        }
    }

    /**
     * What applying the remediation changes (the YAML's {@code fix:}), read by {@code deja prove}
     * and by the test that the fix clears the finding; empty when the rule has none.
     */
    public Optional<Fix> fixBlock() {
        return Optional.ofNullable(fix);
    }

    public RuleMetadata {
        parameters = parameters == null ? List.of() : List.copyOf(parameters);
        caseIds = List.copyOf(caseIds);
        links = List.copyOf(links);
        aliases = List.copyOf(aliases);
    }

    /** A parameter by name. */
    public Optional<Parameter> parameter(String name) {
        return parameters.stream().filter(p -> p.name().equals(name)).findFirst();
    }
}
