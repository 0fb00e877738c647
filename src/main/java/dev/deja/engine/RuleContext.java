package dev.deja.engine;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a rule gets besides the snapshot: its metadata (defaults for findings) and the scan
 * settings.
 */
public final class RuleContext {
    private final RuleMetadata meta;
    private final Settings settings;
    /*
     * Both are asked once per finding (a rule with thousands of findings asks thousands of times) and depend only on
     * the metadata and the settings, which do not change: computed once. A race computes the same value twice.
     */
    private final Map<String, Integer> intParameters = new ConcurrentHashMap<>();
    private volatile List<String> nonDefault;
    private final List<Coverage.Entry> coverageNotes = new ArrayList<>();

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

    /**
     * The settings key that overrides a rule's parameter (deja.yaml {@code rules: {RULE-ID: {NAME:
     * VALUE}}}).
     */
    public static String parameterKey(String ruleId, String name) {
        return "rule." + ruleId + "." + name;
    }

    /**
     * A numeric parameter declared in the rule's YAML: the scan's value when deja.yaml sets one,
     * else the default there. A name the YAML does not declare is a bug in the rule ({@link
     * IllegalStateException}).
     */
    public double parameter(String name) {
        return Double.parseDouble(parameterText(name));
    }

    /** An integer parameter (its default in the YAML is a whole number). */
    public int intParameter(String name) {
        Integer known = intParameters.get(name);
        if (known != null) {
            return known;
        }
        RuleMetadata.Parameter p = declared(name);
        if (!p.integer()) {
            throw new IllegalStateException(
                    "rules/" + meta.id() + ".yaml: parameter " + name + " is not a whole number");
        }
        int v = Integer.parseInt(parameterText(name));
        intParameters.put(name, v);
        return v;
    }

    private String parameterText(String name) {
        RuleMetadata.Parameter p = declared(name);
        return settings.get(parameterKey(meta.id(), name), p.defaultValue()).strip();
    }

    private RuleMetadata.Parameter declared(String name) {
        return meta.parameter(name)
                .orElseThrow(
                        () ->
                                new IllegalStateException(
                                        "rules/"
                                                + meta.id()
                                                + ".yaml declares no parameter '"
                                                + name
                                                + "' (add it under parameters: with a default and a description)"));
    }

    /**
     * "minWindowSeconds 45 (default 30)" for every parameter this scan sets to another value than
     * its default.
     */
    public List<String> nonDefaultParameters() {
        List<String> known = nonDefault;
        if (known != null) {
            return known;
        }
        List<String> out = new ArrayList<>();
        for (RuleMetadata.Parameter p : meta.parameters()) {
            String v = settings.get(parameterKey(meta.id(), p.name()), null);
            if (v != null
                    && new BigDecimal(v.strip()).compareTo(new BigDecimal(p.defaultValue())) != 0) {
                out.add(p.name() + " " + v.strip() + " (default " + p.defaultValue() + ")");
            }
        }
        nonDefault = List.copyOf(out);
        return nonDefault;
    }

    /**
     * Records that this rule could not judge one object (a user rule whose expression failed on
     * it): the scan goes on and the report's coverage names the rule, the object and why, as a
     * scope not checked ({@link Coverage.Status#FAILED}): the scan is incomplete (exit 3 unless
     * partial results are allowed), as when a source could not be read.
     */
    public void notChecked(String object, String why) {
        synchronized (coverageNotes) {
            coverageNotes.add(
                    new Coverage.Entry(
                            meta.source().id(),
                            "rule " + meta.id() + " on " + object,
                            Coverage.Status.FAILED,
                            "not checked: " + why,
                            -1));
        }
    }

    /** What {@link #notChecked} recorded. */
    public List<Coverage.Entry> notChecked() {
        synchronized (coverageNotes) {
            return List.copyOf(coverageNotes);
        }
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
        private Figure figure;
        private Map<String, Object> fixInputs = Map.of();

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
         * The stable part that tells this finding from the rule's other findings on the same object
         * ("container envoy readinessProbe"): part of the fingerprint instead of the message. Never
         * a number that changes with scale or load.
         */
        public FindingBuilder key(String k) {
            this.key = k;
            return this;
        }

        /** The finding's numbers as data, for reports that draw them (the HTML report). */
        public FindingBuilder figure(Figure f) {
            this.figure = f;
            return this;
        }

        /**
         * An input of the rule's {@code fix:} steps ({@link Fix#inputs()}): the value its {@code
         * {name}} holes take for this finding. A null value gives no input.
         */
        public FindingBuilder fix(String name, Object value) {
            if (value != null) {
                if (fixInputs.isEmpty()) {
                    fixInputs = new java.util.LinkedHashMap<>();
                }
                fixInputs.put(name, value);
            }
            return this;
        }

        /** Narrows the cases (for a rule that links several cases, when one applies). */
        public FindingBuilder cases(List<String> ids) {
            this.caseIds = List.copyOf(ids);
            return this;
        }

        public Finding build() {
            List<String> all = new ArrayList<>(notes);
            List<String> tuned = nonDefaultParameters();
            if (!tuned.isEmpty()) {
                all.add(
                        "judged with "
                                + String.join(", ", tuned)
                                + ", as set in the configuration");
            }
            return new Finding(
                    meta.id(),
                    severity,
                    caseIds,
                    message,
                    remediation,
                    location,
                    related,
                    all,
                    key,
                    null,
                    figure,
                    fixInputs);
        }
    }
}
