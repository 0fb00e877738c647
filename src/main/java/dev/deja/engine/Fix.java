package dev.deja.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What applying a rule's remediation changes, machine-readable: the {@code fix:} block of {@code
 * rules/<id>.yaml}. The prose {@code remediation:} stays the scan's advice; this block is what
 * {@code deja prove} applies to a haproxy.cfg (the "after" of a proof) and what the test that
 * advice clears its finding applies to a manifest. One description, read by both. Validated when
 * the catalog loads ({@link #read}): a step, section, directive or action deja cannot apply is a
 * catalog error naming the rule's file.
 *
 * <p>{@code says} (and a step's {@code also}) describes the change for prove's report; {@code
 * {section}} in it is the frontend's label, an input such as {@code {wantedMaxconn}} the value
 * prove computed.
 */
public record Fix(
        String says, List<String> inputs, List<String> asks, List<Step> steps, String manual) {

    public Fix {
        inputs = List.copyOf(inputs);
        asks = List.copyOf(asks);
        steps = List.copyOf(steps);
    }

    /** A fix deja can apply whole. */
    public Fix(String says, List<String> inputs, List<String> asks, List<Step> steps) {
        this(says, inputs, asks, steps, null);
    }

    /** A fix that asks the user nothing. */
    public Fix(String says, List<String> inputs, List<Step> steps) {
        this(says, inputs, List.of(), steps);
    }

    /** A fix that needs no input from the finding. */
    public Fix(String says, List<Step> steps) {
        this(says, List.of(), steps);
    }

    /** One change. */
    public sealed interface Step
            permits SetDirective,
                    RaiseDirective,
                    RewriteAction,
                    Patch,
                    Replace,
                    Append,
                    Drop,
                    Create,
                    Each,
                    When {}

    /**
     * HAProxy: {@code directive value} in the section: where the section sets it, that line is
     * rewritten; where it does not, a line is added after the section's header.
     */
    public record SetDirective(String section, String directive, String value, String also)
            implements Step {}

    /**
     * HAProxy: the section's directive raised to {@code value} where it is set lower; nothing where
     * it is not set or already high enough.
     */
    public record RaiseDirective(String section, String directive, String value, String also)
            implements Step {}

    /**
     * HAProxy: every request rule of the frontend whose action is {@code action} gets action {@code
     * to} instead, followed by {@code ensure} unless the line already has ensure's first word (e.g.
     * {@code tarpit} to {@code deny}, ensure {@code deny_status 429}).
     */
    public record RewriteAction(String action, String to, String ensure, String also)
            implements Step {}

    /**
     * Kubernetes: one leaf of a JSON merge patch (RFC 7386) of an object (the finding's when {@code
     * object} is null, else the one it names: "Kind namespace/name"): {@code path} set to {@code
     * value} (a String, Long, Boolean), or removed when value is null. A key of the path may select
     * list elements ({@code containers[name=envoy]}); see {@link KubeSteps}.
     */
    public record Patch(String object, List<String> path, Object value) implements Step {
        public Patch {
            path = List.copyOf(path);
        }

        /** A leaf of the finding's object. */
        public Patch(List<String> path, Object value) {
            this(null, path, value);
        }

        /** This leaf applied to a parsed object (maps made where the path has none). */
        @SuppressWarnings("unchecked")
        public void applyTo(Map<String, Object> object) {
            Map<String, Object> cur = object;
            for (int i = 0; i < path.size() - 1; i++) {
                Object next = cur.get(path.get(i));
                if (!(next instanceof Map)) {
                    if (value == null) {
                        return;
                    }
                    next = new LinkedHashMap<String, Object>();
                    cur.put(path.get(i), next);
                }
                cur = (Map<String, Object>) next;
            }
            String last = path.get(path.size() - 1);
            if (value == null) {
                cur.remove(last);
            } else {
                cur.put(last, value);
            }
        }
    }

    /**
     * Kubernetes: the value at {@code path} replaced by {@code yaml}'s (a list, a map, a scalar).
     */
    public record Replace(String object, List<String> path, String yaml) implements Step {
        public Replace {
            path = List.copyOf(path);
        }
    }

    /**
     * Kubernetes: {@code yaml}'s value added at the end of the list at {@code path} (made if
     * absent).
     */
    public record Append(String object, List<String> path, String yaml) implements Step {
        public Append {
            path = List.copyOf(path);
        }
    }

    /**
     * Kubernetes: the items of the list at {@code path} that start with one of the prefixes,
     * removed.
     */
    public record Drop(String object, List<String> path, List<String> startingWith)
            implements Step {
        public Drop {
            path = List.copyOf(path);
            startingWith = List.copyOf(startingWith);
        }
    }

    /** Kubernetes: a new object, {@code yaml} with its holes filled, added beside the others. */
    public record Create(String yaml) implements Step {}

    /**
     * Kubernetes: {@code step} once for each element of the finding's list input {@code input}
     * (each a map of further inputs: the container and probe of each probe a finding names).
     */
    public record Each(String input, Step step) implements Step {}

    /**
     * Kubernetes: {@code step} only when the finding gives {@code input} (a variant of the fix).
     */
    public record When(String input, Step step) implements Step {}

    /**
     * The Kubernetes steps applied to the parsed objects of a manifest ({@code docs}) for a finding
     * about {@code self}, whose {@link Finding#fixInputs()} fill the steps' holes; returns how many
     * steps applied (a step whose inputs the finding does not give is skipped).
     */
    public int applyTo(
            Map<String, Object> self, List<Map<String, Object>> docs, Map<String, Object> inputs) {
        return KubeSteps.apply(steps, self, docs, inputs);
    }

    /** The sections a HAProxy step names: the frontend (or listen) the finding is about, global. */
    public static final Set<String> SECTIONS = Set.of("frontend", "global");

    /**
     * The directives a fix may set, by section: single-valued ones that deja knows how to find and
     * rewrite (FixTest checks each against HAProxy's keyword list).
     */
    public static final Map<String, List<String>> DIRECTIVES =
            Map.of(
                    "frontend",
                    List.of(
                            "maxconn",
                            "timeout http-request",
                            "timeout client",
                            "timeout http-keep-alive",
                            "timeout tarpit"),
                    "global",
                    List.of("maxconn"));

    /** The request-rule actions a rewrite may change, and what to. */
    public static final Map<String, List<String>> ACTIONS = Map.of("tarpit", List.of("deny"));

    /** The values prove computes for a fix to use: {@code {wantedMaxconn}}. */
    public static final Set<String> INPUTS = Set.of("wantedMaxconn");

    static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z]+)}");

    /** {@code text} with {@code {name}} replaced by {@code values}' (an unknown name is kept). */
    public static String fill(String text, Map<String, String> values) {
        if (text == null) {
            return null;
        }
        Matcher m = PLACEHOLDER.matcher(text);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String v = values.get(m.group(1));
            m.appendReplacement(sb, Matcher.quoteReplacement(v == null ? m.group() : v));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    /** Whether the value is an input prove fills in rather than a literal. */
    public static boolean isInput(String value) {
        Matcher m = PLACEHOLDER.matcher(value);
        return m.matches();
    }

    // ---------------------------------------------------------------- reading and checking

    /**
     * The {@code fix:} block of rule file {@code f}, checked against the rule's source and its
     * prose remediation; null (with errors added) when it is invalid.
     */
    static Fix read(
            Object o, SourceKind source, String remediation, String f, List<String> errors) {
        int before = errors.size();
        if (!(o instanceof Map<?, ?> m)) {
            errors.add(f + ": 'fix' must be a mapping of says: and steps:");
            return null;
        }
        if (source != SourceKind.HAPROXY && source != SourceKind.KUBERNETES) {
            errors.add(
                    f
                            + ": a rule of source "
                            + (source == null ? "(none)" : source.id())
                            + " cannot have a 'fix': deja applies fixes to HAProxy configurations"
                            + " and Kubernetes manifests only");
            return null;
        }
        boolean haproxy = source == SourceKind.HAPROXY;
        unknownKeys(
                m,
                haproxy
                        ? Set.of("says", "steps")
                        : Set.of("says", "inputs", "asks", "steps", "manual"),
                "fix",
                f,
                errors);
        Object says = m.get("says");
        if (!(says instanceof String s) || s.isBlank()) {
            errors.add(f + ": fix needs 'says' (what the change is, in a line)");
        } else if (haproxy) {
            placeholders(s, f, "fix.says", errors);
        }
        List<Step> steps = new ArrayList<>();
        Object manual = haproxy ? null : m.get("manual");
        if (manual != null && (!(manual instanceof String text) || text.isBlank())) {
            errors.add(f + ": fix.manual must say what deja cannot apply, and why");
        }
        if (manual != null && m.get("steps") == null) {
            // nothing deja can apply: the change is outside the manifests
        } else if (!(m.get("steps") instanceof List<?> l) || l.isEmpty()) {
            errors.add(f + ": fix needs 'steps' (a non-empty list)");
        } else {
            for (int i = 0; i < l.size(); i++) {
                // a Kubernetes step's keys are named by the advice or the fix's says
                String named =
                        haproxy || !(says instanceof String line)
                                ? remediation
                                : remediation + "\n" + line;
                readStep(l.get(i), "fix.steps[" + i + "]", source, named, f, steps, errors);
            }
        }
        List<List<String>> inputs =
                haproxy
                        ? List.of(List.of(), List.of())
                        : KubeSteps.inputs(
                                m.get("inputs"),
                                m.get("asks"),
                                steps,
                                says instanceof String s ? s : null,
                                f,
                                errors);
        if (errors.size() > before) {
            return null;
        }
        return new Fix(
                ((String) says).strip(),
                inputs.get(0),
                inputs.get(1),
                steps,
                manual == null ? null : ((String) manual).strip());
    }

    /** Step {@code x} of a fix ({@code where} in the file), added to {@code steps}. */
    private static void readStep(
            Object x,
            String where,
            SourceKind source,
            String remediation,
            String f,
            List<Step> steps,
            List<String> errors) {
        Object object = null;
        Object each = null;
        Object when = null;
        if (source != SourceKind.HAPROXY && x instanceof Map<?, ?> options) {
            Map<Object, Object> rest = new LinkedHashMap<>(options);
            object = rest.remove("object");
            each = rest.remove("each");
            when = rest.remove("when");
            x = rest;
        }
        if (!(x instanceof Map<?, ?> sm) || sm.size() != 1) {
            errors.add(
                    f
                            + ": "
                            + where
                            + " must be one of set:, raise:, rewrite: (HAProxy) or patch:,"
                            + " replace:, append:, drop:, create: (Kubernetes, with an"
                            + " optional object:, each: or when:)");
            return;
        }
        Map.Entry<?, ?> e = sm.entrySet().iterator().next();
        int at = steps.size();
        step(
                String.valueOf(e.getKey()),
                e.getValue(),
                object == null ? null : String.valueOf(object),
                source,
                remediation,
                f,
                where,
                steps,
                errors);
        for (int k = at; k < steps.size(); k++) { // each leaf of a patch alike
            if (each != null) {
                steps.set(k, new Each(String.valueOf(each), steps.get(k)));
            }
            if (when != null) {
                steps.set(k, new When(String.valueOf(when), steps.get(k)));
            }
        }
    }

    private static void step(
            String kind,
            Object body,
            String object,
            SourceKind source,
            String remediation,
            String f,
            String where,
            List<Step> steps,
            List<String> errors) {
        boolean haproxy = source == SourceKind.HAPROXY;
        Set<String> kinds = haproxy ? Set.of("set", "raise", "rewrite") : KubeSteps.KINDS;
        if (!kinds.contains(kind)) {
            errors.add(
                    f
                            + ": "
                            + where
                            + ": '"
                            + kind
                            + "' is not a step of a "
                            + source.id()
                            + " rule (its steps: "
                            + String.join(", ", kinds.stream().sorted().toList())
                            + ")");
            return;
        }
        if (!haproxy) {
            KubeSteps.read(kind, body, object, remediation, f, where, steps, errors);
            return;
        }
        if (!(body instanceof Map<?, ?> b)) {
            errors.add(f + ": " + where + ": " + kind + " must be a mapping");
            return;
        }
        where = where + "." + kind;
        if (kind.equals("rewrite")) {
            rewrite(b, remediation, f, where, steps, errors);
        } else {
            directive(kind, b, remediation, f, where, steps, errors);
        }
    }

    /** A set: or raise: step. */
    private static void directive(
            String kind,
            Map<?, ?> b,
            String remediation,
            String f,
            String where,
            List<Step> steps,
            List<String> errors) {
        unknownKeys(b, Set.of("section", "directive", "value", "also"), where, f, errors);
        String section = text(b, "section", where, f, errors);
        String directive = text(b, "directive", where, f, errors);
        String value = text(b, "value", where, f, errors);
        String also = b.get("also") == null ? null : String.valueOf(b.get("also"));
        if (section == null || directive == null || value == null) {
            return;
        }
        if (!SECTIONS.contains(section)) {
            errors.add(
                    f
                            + ": "
                            + where
                            + ": unknown section '"
                            + section
                            + "' (a fix names: frontend, global)");
            return;
        }
        List<String> known = DIRECTIVES.get(section);
        if (kind.equals("raise")) {
            known = List.of("maxconn");
        }
        if (!known.contains(directive)) {
            errors.add(
                    f
                            + ": "
                            + where
                            + ": unknown directive '"
                            + directive
                            + "' for "
                            + kind
                            + " in "
                            + section
                            + DidYouMean.hint(directive, known)
                            + "; a fix may "
                            + kind
                            + " there: "
                            + String.join(", ", known));
            return;
        }
        placeholders(value, f, where + ".value", errors);
        if (also != null) {
            placeholders(also, f, where + ".also", errors);
        }
        if (!isInput(value) && !remediation.contains(directive + " " + value)) {
            errors.add(
                    f
                            + ": "
                            + where
                            + ": the remediation does not name '"
                            + directive
                            + " "
                            + value
                            + "' (the advice must say what the fix does)");
        }
        steps.add(
                kind.equals("set")
                        ? new SetDirective(section, directive, value, also)
                        : new RaiseDirective(section, directive, value, also));
    }

    /** A rewrite: step. */
    private static void rewrite(
            Map<?, ?> b,
            String remediation,
            String f,
            String where,
            List<Step> steps,
            List<String> errors) {
        unknownKeys(b, Set.of("action", "to", "ensure", "also"), where, f, errors);
        String action = text(b, "action", where, f, errors);
        String to = text(b, "to", where, f, errors);
        String ensure = b.get("ensure") == null ? null : String.valueOf(b.get("ensure"));
        String also = b.get("also") == null ? null : String.valueOf(b.get("also"));
        if (action == null || to == null) {
            return;
        }
        if (!ACTIONS.containsKey(action) || !ACTIONS.get(action).contains(to)) {
            errors.add(
                    f
                            + ": "
                            + where
                            + ": cannot rewrite action '"
                            + action
                            + "' to '"
                            + to
                            + "' (a fix may rewrite: tarpit to deny)");
            return;
        }
        String now = ensure == null ? to : to + " " + ensure;
        if (!remediation.contains(now)) {
            errors.add(
                    f
                            + ": "
                            + where
                            + ": the remediation does not name '"
                            + now
                            + "' (the advice must say what the fix does)");
        }
        steps.add(new RewriteAction(action, to, ensure, also));
    }

    private static void placeholders(String s, String f, String where, List<String> errors) {
        Matcher m = PLACEHOLDER.matcher(s);
        while (m.find()) {
            if (!m.group(1).equals("section") && !INPUTS.contains(m.group(1))) {
                errors.add(
                        f
                                + ": "
                                + where
                                + ": unknown input {"
                                + m.group(1)
                                + "} (known: {section}, {"
                                + String.join("}, {", INPUTS.stream().sorted().toList())
                                + "})");
            }
        }
    }

    static void unknownKeys(
            Map<?, ?> m, Set<String> keys, String where, String f, List<String> errors) {
        for (Object k : m.keySet()) {
            if (!keys.contains(String.valueOf(k))) {
                errors.add(
                        f
                                + ": "
                                + where
                                + ": unknown key '"
                                + k
                                + "' (known: "
                                + String.join(", ", keys.stream().sorted().toList())
                                + ")");
            }
        }
    }

    private static String text(
            Map<?, ?> m, String key, String where, String f, List<String> errors) {
        Object o = m.get(key);
        if (o == null || o instanceof Map || o instanceof List || o.toString().isBlank()) {
            errors.add(f + ": " + where + " needs '" + key + "' (a string)");
            return null;
        }
        return o.toString();
    }

    // ---------------------------------------------------------------- compiled form

    /** The fix as properties under {@code prefix} (CatalogCompiler), read back by {@link #load}. */
    void store(String prefix, Map<String, String> out) {
        out.put(prefix + "says", says);
        if (!inputs.isEmpty()) {
            out.put(prefix + "inputs", String.join(CatalogCompiler.SEP, inputs));
        }
        if (!asks.isEmpty()) {
            out.put(prefix + "asks", String.join(CatalogCompiler.SEP, asks));
        }
        if (manual != null) {
            out.put(prefix + "manual", manual);
        }
        out.put(prefix + "steps", String.valueOf(steps.size()));
        for (int i = 0; i < steps.size(); i++) {
            String p = prefix + "step." + i + ".";
            Step x = steps.get(i);
            if (x instanceof When w) {
                out.put(p + "when", w.input());
                x = w.step();
            }
            if (x instanceof Each e) {
                out.put(p + "each", e.input());
                x = e.step();
            }
            if (x instanceof SetDirective s) {
                put(out, p, "set", s.section(), s.directive(), s.value(), s.also());
            } else if (x instanceof RaiseDirective s) {
                put(out, p, "raise", s.section(), s.directive(), s.value(), s.also());
            } else if (x instanceof RewriteAction s) {
                put(out, p, "rewrite", s.action(), s.to(), s.ensure(), s.also());
            } else if (x instanceof Patch s) {
                out.put(p + "kind", "patch");
                out.put(p + "path", String.join(CatalogCompiler.SEP, s.path()));
                out.put(p + "value", s.value() == null ? "n" : tag(s.value()) + s.value());
                putObject(out, p, s.object());
            } else if (x instanceof Replace s) {
                putPathStep(out, p, "replace", s.object(), s.path(), s.yaml());
            } else if (x instanceof Append s) {
                putPathStep(out, p, "append", s.object(), s.path(), s.yaml());
            } else if (x instanceof Drop s) {
                putPathStep(
                        out,
                        p,
                        "drop",
                        s.object(),
                        s.path(),
                        String.join(CatalogCompiler.SEP, s.startingWith()));
            } else if (x instanceof Create s) {
                out.put(p + "kind", "create");
                out.put(p + "value", s.yaml());
            }
        }
    }

    private static void putObject(Map<String, String> out, String p, String object) {
        if (object != null) {
            out.put(p + "object", object);
        }
    }

    private static void putPathStep(
            Map<String, String> out,
            String p,
            String kind,
            String object,
            List<String> path,
            String value) {
        out.put(p + "kind", kind);
        out.put(p + "path", String.join(CatalogCompiler.SEP, path));
        out.put(p + "value", value);
        putObject(out, p, object);
    }

    private static String tag(Object v) {
        return v instanceof Long ? "i" : v instanceof Boolean ? "b" : "s";
    }

    private static void put(
            Map<String, String> out,
            String p,
            String kind,
            String a,
            String b,
            String c,
            String d) {
        out.put(p + "kind", kind);
        out.put(p + "a", a);
        out.put(p + "b", b);
        if (c != null) {
            out.put(p + "c", c);
        }
        if (d != null) {
            out.put(p + "d", d);
        }
    }

    /** What {@link #store} wrote under {@code prefix}, or null when there is no fix. */
    static Fix load(String prefix, java.util.function.Function<String, String> get) {
        String says = get.apply(prefix + "says");
        if (says == null) {
            return null;
        }
        int n = Integer.parseInt(get.apply(prefix + "steps"));
        List<Step> steps = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String p = prefix + "step." + i + ".";
            String a = get.apply(p + "a");
            String b = get.apply(p + "b");
            String c = get.apply(p + "c");
            String d = get.apply(p + "d");
            String object = get.apply(p + "object");
            String kind = get.apply(p + "kind");
            switch (kind) {
                case "set" -> steps.add(new SetDirective(a, b, c, d));
                case "raise" -> steps.add(new RaiseDirective(a, b, c, d));
                case "rewrite" -> steps.add(new RewriteAction(a, b, c, d));
                case "create" -> steps.add(new Create(get.apply(p + "value")));
                case "replace", "append", "drop" -> {
                    List<String> path =
                            List.of(get.apply(p + "path").split(CatalogCompiler.SEP, -1));
                    String v = get.apply(p + "value");
                    steps.add(
                            kind.equals("replace")
                                    ? new Replace(object, path, v)
                                    : kind.equals("append")
                                            ? new Append(object, path, v)
                                            : new Drop(
                                                    object,
                                                    path,
                                                    List.of(v.split(CatalogCompiler.SEP, -1))));
                }
                default -> {
                    String v = get.apply(p + "value");
                    Object value =
                            switch (v.charAt(0)) {
                                case 'n' -> null;
                                case 'i' -> Long.valueOf(v.substring(1));
                                case 'b' -> Boolean.valueOf(v.substring(1));
                                default -> v.substring(1);
                            };
                    steps.add(
                            new Patch(
                                    object,
                                    List.of(get.apply(p + "path").split(CatalogCompiler.SEP, -1)),
                                    value));
                }
            }
            String each = get.apply(p + "each");
            if (each != null) {
                steps.set(steps.size() - 1, new Each(each, steps.get(steps.size() - 1)));
            }
            String when = get.apply(p + "when");
            if (when != null) {
                steps.set(steps.size() - 1, new When(when, steps.get(steps.size() - 1)));
            }
        }
        String inputs = get.apply(prefix + "inputs");
        String asks = get.apply(prefix + "asks");
        return new Fix(
                says,
                inputs == null ? List.of() : List.of(inputs.split(CatalogCompiler.SEP, -1)),
                asks == null ? List.of() : List.of(asks.split(CatalogCompiler.SEP, -1)),
                steps,
                get.apply(prefix + "manual"));
    }
}
