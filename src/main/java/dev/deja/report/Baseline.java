package dev.deja.report;

import dev.deja.engine.Finding;
import dev.deja.engine.InputException;
import dev.deja.engine.Location;
import dev.deja.engine.Target;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A previous JSON report used as a baseline ({@code --baseline}). Findings are matched by {@link
 * Finding#fingerprint()} recomputed from each baseline finding's rule, location, key and message
 * (so a baseline written by an older deja matches as long as those agree), as a multiset: two
 * identical findings in this scan and one in the baseline make one new finding. A report of schema
 * 1.0 (before findings had keys) is matched by {@link Finding#legacyFingerprint()}, the identity
 * deja used then. A finding whose rule now gives a key also matches a baseline finding of the same
 * rule and object written without one (by an older deja) by its message.
 */
public final class Baseline {
    private final String source;
    private final List<String> fingerprints;

    /** The rule and location of each baseline finding, in the order of {@link #fingerprints}. */
    private final List<Map.Entry<String, Location>> where;

    private final boolean found;

    /** A schema 1.0 report: fingerprints with the message's numbers. */
    private final boolean legacy;

    private Baseline(
            String source,
            List<String> fingerprints,
            List<Map.Entry<String, Location>> where,
            boolean found,
            boolean legacy) {
        this.legacy = legacy;
        this.source = source;
        this.fingerprints = List.copyOf(fingerprints);
        this.where = List.copyOf(where);
        this.found = found;
    }

    /** No baseline there yet (a first scheduled run): every finding is new. */
    public static Baseline absent(String source) {
        return new Baseline(source, List.of(), List.of(), false, false);
    }

    public String source() {
        return source;
    }

    public int size() {
        return fingerprints.size();
    }

    /** Parses a deja JSON report; {@code source} names it in error messages. */
    public static Baseline parse(String json, String source) {
        JsonNode root;
        try {
            root = JsonMapper.builder().build().readTree(json);
        } catch (JacksonException e) {
            throw new InputException(
                    source
                            + ": baseline is not a deja JSON report (not valid JSON: "
                            + e.getOriginalMessage().lines().findFirst().orElse("")
                            + ")");
        }
        if (root == null
                || !root.isObject()
                || !root.has("schemaVersion")
                || !root.path("findings").isArray()) {
            throw new InputException(
                    source + ": baseline is not a deja JSON report (write one with --format json)");
        }
        String version = root.path("schemaVersion").asString("");
        if (!version.startsWith("1.")) {
            throw new InputException(
                    source + ": baseline has report schema " + version + "; this deja reads 1.x");
        }
        boolean legacy = version.equals("1.0");
        List<String> fps = new ArrayList<>();
        List<Map.Entry<String, Location>> where = new ArrayList<>();
        int i = 0;
        for (JsonNode f : root.path("findings")) {
            String rule = f.path("ruleId").asString(null);
            String message = f.path("message").asString(null);
            JsonNode l = f.path("location");
            if (rule == null || message == null || !l.isObject()) {
                throw new InputException(
                        source + ": baseline finding " + i + " has no ruleId, message or location");
            }
            Location loc =
                    new Location(
                            text(l, "file"),
                            l.has("line") ? l.path("line").asInt() : null,
                            text(l, "kind"),
                            text(l, "namespace"),
                            text(l, "name"),
                            text(l, "key"),
                            text(l, "arn"),
                            text(l, "region"));
            JsonNode t = f.path("target");
            String targetKey =
                    t.isObject() && (t.has("cluster") || t.has("account"))
                            ? new Target(text(t, "cluster"), text(t, "account")).key() + "|"
                            : "";
            fps.add(
                    targetKey
                            + (legacy
                                    ? Finding.legacyFingerprint(rule, loc, message)
                                    : Finding.fingerprint(rule, loc, text(f, "key"), message)));
            where.add(Map.entry(rule, loc));
            i++;
        }
        return new Baseline(source, fps, where, true, legacy);
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() ? null : v.asString();
    }

    /**
     * Which of {@code findings} are new against this baseline; every baseline finding counts as in
     * scope.
     */
    public BaselineDiff compare(List<Finding> findings) {
        return compare(findings, (rule, loc) -> true);
    }

    /**
     * Which of {@code findings} are new against this baseline. A baseline finding that this scan
     * did not reproduce counts as fixed only when {@code inScope} says this scan looked where it
     * was (its rule ran, its namespace or region was read): a scan of one namespace does not "fix"
     * the findings of the others.
     */
    public BaselineDiff compare(List<Finding> findings, BiPredicate<String, Location> inScope) {
        Map<String, Integer> left = new HashMap<>();
        Map<String, Integer> leftInScope = new HashMap<>();
        for (int k = 0; k < fingerprints.size(); k++) {
            left.merge(fingerprints.get(k), 1, Integer::sum);
            if (inScope.test(where.get(k).getKey(), where.get(k).getValue())) {
                leftInScope.merge(fingerprints.get(k), 1, Integer::sum);
            }
        }
        List<Finding> fresh = new ArrayList<>();
        int unchanged = 0;
        for (Finding f : findings) {
            String target = f.target() == null ? "" : f.target().key() + "|";
            String fp = target + (legacy ? f.legacyFingerprint() : f.fingerprint());
            Integer n = left.get(fp);
            if ((n == null || n <= 0) && !legacy && f.key() != null) {
                // a baseline written before this rule gave its findings a key holds the message
                // form
                String unkeyed =
                        target + Finding.fingerprint(f.ruleId(), f.location(), null, f.message());
                Integer m = left.get(unkeyed);
                if (m != null && m > 0) {
                    fp = unkeyed;
                    n = m;
                }
            }
            if (n != null && n > 0) {
                left.put(fp, n - 1);
                leftInScope.computeIfPresent(fp, (k, v) -> v - 1);
                unchanged++;
            } else {
                fresh.add(f);
            }
        }
        int fixed = leftInScope.values().stream().mapToInt(v -> Math.max(0, v)).sum();
        return new BaselineDiff(source, found, fingerprints.size(), fresh, unchanged, fixed);
    }
}
