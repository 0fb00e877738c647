package dev.deja.engine;

import java.util.List;

/** What {@code rules/<id>.yaml} says about a rule. */
public record RuleMetadata(
        String id,
        String title,
        Severity severity,
        SourceKind source,
        List<String> caseIds,
        String description,
        String remediation,
        List<String> links,
        List<String> aliases) {

    public RuleMetadata {
        caseIds = List.copyOf(caseIds);
        links = List.copyOf(links);
        aliases = List.copyOf(aliases);
    }
}
