package dev.deja.engine;

import java.util.ArrayList;
import java.util.List;

/** What a rule gets besides the snapshot: its metadata (defaults for findings) and the scan settings. */
public final class RuleContext {
    private final RuleMetadata meta;
    private final Settings settings;

    public RuleContext(RuleMetadata meta, Settings settings) {
        this.meta = meta;
        this.settings = settings;
    }

    public RuleMetadata metadata() {
        return meta;
    }

    public Settings settings() {
        return settings;
    }

    /** Starts a finding with the rule's default severity, cases and remediation. */
    public FindingBuilder finding(Location location, String message) {
        return new FindingBuilder(location, message);
    }

    /** Builder for a finding of this rule. */
    public final class FindingBuilder {
        private final Location location;
        private final String message;
        private Severity severity = meta.severity();
        private String remediation = meta.remediation();
        private final List<String> related = new ArrayList<>();
        private final List<String> notes = new ArrayList<>();
        private List<String> caseIds = meta.caseIds();
        private String key;

        private FindingBuilder(Location location, String message) {
            this.location = location;
            this.message = message;
        }

        public FindingBuilder severity(Severity s) {
            this.severity = s;
            return this;
        }

        public FindingBuilder remediation(String r) {
            this.remediation = r;
            return this;
        }

        public FindingBuilder related(String r) {
            related.add(r);
            return this;
        }

        public FindingBuilder note(String n) {
            notes.add(n);
            return this;
        }

        public FindingBuilder notes(List<String> n) {
            notes.addAll(n);
            return this;
        }

        /**
         * The stable part that tells this finding from the rule's other findings on the same object ("container
         * envoy readinessProbe"): part of the fingerprint instead of the message. Never a number that changes with
         * scale or load.
         */
        public FindingBuilder key(String k) {
            this.key = k;
            return this;
        }

        /** Narrows the cases (for a rule that links several cases, when one applies). */
        public FindingBuilder cases(List<String> ids) {
            this.caseIds = List.copyOf(ids);
            return this;
        }

        public Finding build() {
            return new Finding(meta.id(), severity, caseIds, message, remediation, location, related, notes, key);
        }
    }
}
