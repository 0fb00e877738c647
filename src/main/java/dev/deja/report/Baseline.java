package dev.deja.report;

import dev.deja.engine.Finding;
import dev.deja.engine.InputException;
import dev.deja.engine.Location;
import dev.deja.engine.Target;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
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

    /** Each baseline finding as the report gives it, in the order of {@link #fingerprints}. */
    private final List<BaselineDiff.Gone> entries;

    private final boolean found;

    /** A schema 1.0 report: fingerprints with the message's numbers. */
    private final boolean legacy;

    private Baseline(
            String source,
            List<String> fingerprints,
            List<Map.Entry<String, Location>> where,
            List<BaselineDiff.Gone> entries,
            boolean found,
            boolean legacy) {
        this.legacy = legacy;
        this.entries = List.copyOf(entries);
        this.source = source;
        this.fingerprints = List.copyOf(fingerprints);
        this.where = List.copyOf(where);
        this.found = found;
    }

    /** No baseline there yet (a first scheduled run): every finding is new. */
    public static Baseline absent(String source) {
        return new Baseline(source, List.of(), List.of(), List.of(), false, false);
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
        List<BaselineDiff.Gone> entries = new ArrayList<>();
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
            Target target =
                    t.isObject() && (t.has("cluster") || t.has("account"))
                            ? new Target(text(t, "cluster"), text(t, "account"))
                            : null;
            String targetKey = target == null ? "" : target.key() + "|";
            fps.add(
                    targetKey
                            + (legacy
                                    ? Finding.legacyFingerprint(rule, loc, message)
                                    : Finding.fingerprint(rule, loc, text(f, "key"), message)));
            where.add(Map.entry(rule, loc));
            entries.add(
                    new BaselineDiff.Gone(
                            rule,
                            f.path("severity").asString(""),
                            loc,
                            message,
                            legacy ? null : text(f, "key"),
                            target));
            i++;
        }
        return new Baseline(source, fps, where, entries, true, legacy);
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
        return compare(findings, List.of(), inScope);
    }

    /**
     * As {@link #compare(List, BiPredicate)}, and also which of the {@code suppressed} findings the
     * baseline's findings do not have (matched on their own: they change no count).
     */
    public BaselineDiff compare(
            List<Finding> findings,
            List<Finding> suppressed,
            BiPredicate<String, Location> inScope) {
        Map<String, Integer> left = new HashMap<>();
        Map<String, Integer> leftInScope = new HashMap<>();
        // the messages of the baseline findings of each fingerprint, to tell "updated" from
        // "unchanged"
        Map<String, Deque<String>> messages = new HashMap<>();
        for (int k = 0; k < fingerprints.size(); k++) {
            left.merge(fingerprints.get(k), 1, Integer::sum);
            messages.computeIfAbsent(fingerprints.get(k), x -> new ArrayDeque<>())
                    .add(entries.get(k).message());
            if (inScope.test(where.get(k).getKey(), where.get(k).getValue())) {
                leftInScope.merge(fingerprints.get(k), 1, Integer::sum);
            }
        }
        List<Finding> suppressedNew = new ArrayList<>();
        Map<String, Integer> forSuppressed = new HashMap<>(left);
        for (Finding f : suppressed) {
            String fp = matching(f, forSuppressed);
            if (fp == null) {
                suppressedNew.add(f);
            } else {
                forSuppressed.merge(fp, -1, Integer::sum);
            }
        }
        List<Finding> fresh = new ArrayList<>();
        List<Finding> updated = new ArrayList<>();
        int unchanged = 0;
        for (Finding f : findings) {
            String fp = matching(f, left);
            Integer n = fp == null ? null : left.get(fp);
            if (n != null && n > 0) {
                left.put(fp, n - 1);
                leftInScope.computeIfPresent(fp, (k, v) -> v - 1);
                unchanged++;
                String was = messages.get(fp).poll();
                // the same words once line numbers are left out: unchanged; other figures: updated
                if (was != null
                        && !Finding.legacyFingerprint(f.ruleId(), f.location(), was)
                                .equals(
                                        Finding.legacyFingerprint(
                                                f.ruleId(), f.location(), f.message()))) {
                    updated.add(f);
                }
            } else {
                fresh.add(f);
            }
        }
        // the baseline findings left over, as many of each fingerprint as are in scope: fixed
        List<BaselineDiff.Gone> gone = new ArrayList<>();
        for (int k = 0; k < fingerprints.size(); k++) {
            Integer v = leftInScope.get(fingerprints.get(k));
            if (v != null
                    && v > 0
                    && inScope.test(where.get(k).getKey(), where.get(k).getValue())) {
                gone.add(entries.get(k));
                leftInScope.put(fingerprints.get(k), v - 1);
            }
        }
        return new BaselineDiff(
                source,
                found,
                fingerprints.size(),
                fresh,
                unchanged,
                gone.size(),
                updated,
                gone,
                suppressedNew);
    }

    /**
     * The fingerprint under which {@code left} still holds a baseline finding matching {@code f},
     * or null.
     */
    private String matching(Finding f, Map<String, Integer> left) {
        String target = f.target() == null ? "" : f.target().key() + "|";
        String fp = target + (legacy ? f.legacyFingerprint() : f.fingerprint());
        Integer n = left.get(fp);
        if (n != null && n > 0) {
            return fp;
        }
        if (!legacy && f.key() != null) {
            // a baseline written before this rule gave its findings a key holds the message form
            String unkeyed =
                    target + Finding.fingerprint(f.ruleId(), f.location(), null, f.message());
            Integer m = left.get(unkeyed);
            if (m != null && m > 0) {
                return unkeyed;
            }
        }
        return null;
    }
}
