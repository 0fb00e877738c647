package dev.deja.model.kube;

import java.util.List;
import java.util.Locale;

/**
 * A ClusterRole: its rules (API groups, resources, verbs, resource names). An aggregated
 * ClusterRole's rules are filled in by the controller manager and are read as they are.
 */
public record ClusterRole(Meta meta, List<PolicyRule> rules) {

    public ClusterRole {
        rules = rules == null ? List.of() : List.copyOf(rules);
    }

    /** One rule; {@code "*"} matches any group, resource or verb. */
    public record PolicyRule(
            List<String> apiGroups,
            List<String> resources,
            List<String> verbs,
            List<String> resourceNames) {
        public PolicyRule {
            apiGroups = apiGroups == null ? List.of() : List.copyOf(apiGroups);
            resources = resources == null ? List.of() : List.copyOf(resources);
            verbs = verbs == null ? List.of() : List.copyOf(verbs);
            resourceNames = resourceNames == null ? List.of() : List.copyOf(resourceNames);
        }

        /** Whether the rule covers a resource of the core group ("" group), e.g. secrets. */
        public boolean coversCore(String resource) {
            return (apiGroups.contains("") || apiGroups.contains("*"))
                    && (resources.contains(resource) || resources.contains("*"));
        }

        /**
         * The verbs it grants on that resource, lower case, in order ("get", "list", "watch", or
         * "*").
         */
        public List<String> verbsLower() {
            return verbs.stream().map(v -> v.toLowerCase(Locale.ROOT)).toList();
        }
    }
}
