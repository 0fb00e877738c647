package dev.deja.engine;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What {@code rules/<id>.yaml} says about a rule. {@code implementation} is the rule's class: the
 * YAML's {@code class:} when given, else by convention (see {@link #conventionalClass}).
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
        String implementation,
        List<Parameter> parameters) {

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

    public RuleMetadata {
        parameters = parameters == null ? List.of() : List.copyOf(parameters);
        caseIds = List.copyOf(caseIds);
        links = List.copyOf(links);
        aliases = List.copyOf(aliases);
        if (implementation == null || implementation.isBlank()) {
            implementation = conventionalClass(id, source);
        }
    }

    /** A parameter by name. */
    public Optional<Parameter> parameter(String name) {
        return parameters.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /**
     * The class a rule id names by convention: the source's package under {@code dev.deja.rules}
     * and the id without its source prefix in CamelCase, e.g. {@code haproxy-tarpit-holds-slots} is
     * {@code dev.deja.rules.haproxy.TarpitHoldsSlots} and {@code k8s-lb-not-spread} is {@code
     * dev.deja.rules.kube.LbNotSpread}.
     */
    public static String conventionalClass(String id, SourceKind source) {
        String pkg =
                switch (source) {
                    case HAPROXY -> "haproxy";
                    case KUBERNETES -> "kube";
                    case AWS -> "aws";
                };
        String prefix =
                switch (source) {
                    case HAPROXY -> "haproxy-";
                    case KUBERNETES -> "k8s-";
                    case AWS -> "aws-";
                };
        String rest = id.startsWith(prefix) ? id.substring(prefix.length()) : id;
        StringBuilder name = new StringBuilder();
        for (String word : rest.split("-")) {
            if (!word.isEmpty()) {
                name.append(word.substring(0, 1).toUpperCase(Locale.ROOT))
                        .append(word.substring(1));
            }
        }
        return "dev.deja.rules." + pkg + "." + name;
    }
}
