package dev.deja.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Kubernetes steps of a {@code fix:} block: how they are read from a rule's YAML (and checked),
 * and how they are applied to parsed manifests. A step names the object it changes (the finding's,
 * or {@code object: Kind namespace/name}), a path into it, and a value; {@code {input}} holes in
 * any of them are filled from the finding's fix inputs ({@link Finding#fixInputs()}), and a step
 * whose inputs the finding does not give is not applied (a rule gives the inputs of the variant of
 * the fix that its finding needs: raise replicas, or minReplicas on the HPA).
 *
 * <p>A path is a list of keys; a key may select list elements: {@code containers[name=envoy]} (the
 * element whose field {@code name} is {@code envoy}), {@code ingress[2]} (by index), {@code
 * containers[*]} (every element).
 */
final class KubeSteps {
    private KubeSteps() {}

    static final Set<String> KINDS = Set.of("patch", "replace", "append", "drop", "create");

    private static final Pattern SELECTOR = Pattern.compile("(.+)\\[([^\\]]*)]");
    private static final Pattern INPUT_NAME = Pattern.compile("[A-Za-z]+");

    // ---------------------------------------------------------------- reading

    /**
     * One step of a Kubernetes rule's fix ({@code kind} is one of {@link #KINDS}, {@code object}
     * the step's optional object), added to {@code steps} or reported in {@code errors}.
     */
    static void read(
            String kind,
            Object body,
            String object,
            String remediation,
            String f,
            String where,
            List<Fix.Step> steps,
            List<String> errors) {
        if (object != null
                && !object.matches("\\{[A-Za-z]+}")
                && !object.matches("[A-Za-z]+ (\\S+/)?\\S+")) {
            errors.add(
                    f
                            + ": "
                            + where
                            + ".object: '"
                            + object
                            + "' must name one object: 'Kind name' or 'Kind namespace/name'");
            return;
        }
        if (!(body instanceof Map<?, ?> b)) {
            errors.add(f + ": " + where + ": " + kind + " must be a mapping");
            return;
        }
        where = where + "." + kind;
        switch (kind) {
            case "patch" ->
                    patch(b, object, new ArrayList<>(), remediation, f, where, steps, errors);
            case "create" -> create(b, remediation, f, where, steps, errors);
            default -> pathStep(kind, b, object, remediation, f, where, steps, errors);
        }
    }

    private static void patch(
            Map<?, ?> m,
            String object,
            List<String> path,
            String remediation,
            String f,
            String where,
            List<Fix.Step> steps,
            List<String> errors) {
        if (m.isEmpty()) {
            errors.add(f + ": " + where + ": an empty mapping patches nothing");
        }
        for (Map.Entry<?, ?> e : m.entrySet()) {
            List<String> p = new ArrayList<>(path);
            p.add(String.valueOf(e.getKey()));
            Object v = e.getValue();
            if (v instanceof Map<?, ?> sub) {
                patch(sub, object, p, remediation, f, where, steps, errors);
                continue;
            }
            if (v instanceof List) {
                errors.add(
                        f
                                + ": "
                                + where
                                + ": "
                                + String.join(".", p)
                                + " is a list: a merge patch replaces a whole list; say it with"
                                + " replace: or append:");
                continue;
            }
            if (v != null
                    && !(v instanceof String)
                    && !(v instanceof Boolean)
                    && !(v instanceof Integer)
                    && !(v instanceof Long)) {
                errors.add(
                        f
                                + ": "
                                + where
                                + ": "
                                + String.join(".", p)
                                + ": a value must be a string, an integer, true/false or null");
                continue;
            }
            if (!validPath(p, f, where, errors)) {
                continue;
            }
            named(p.get(p.size() - 1), remediation, f, where, errors);
            steps.add(
                    new Fix.Patch(
                            object,
                            p,
                            v instanceof Number n ? (Object) n.longValue() : (Object) v));
        }
    }

    private static void pathStep(
            String kind,
            Map<?, ?> b,
            String object,
            String remediation,
            String f,
            String where,
            List<Fix.Step> steps,
            List<String> errors) {
        String valueKey = kind.equals("drop") ? "startingWith" : "value";
        Fix.unknownKeys(b, Set.of("path", valueKey), where, f, errors);
        List<String> path = strings(b.get("path"));
        if (path == null || path.isEmpty()) {
            errors.add(f + ": " + where + " needs 'path' (a list of keys)");
            return;
        }
        if (!validPath(path, f, where, errors)) {
            return;
        }
        if (!b.containsKey(valueKey)) {
            errors.add(f + ": " + where + " needs '" + valueKey + "'");
            return;
        }
        if (kind.equals("drop")) {
            List<String> prefixes = strings(b.get(valueKey));
            if (prefixes == null || prefixes.isEmpty()) {
                errors.add(f + ": " + where + ".startingWith must be a list of strings");
                return;
            }
            for (String x : prefixes) {
                named(x, remediation, f, where, errors);
            }
            steps.add(new Fix.Drop(object, path, prefixes));
            return;
        }
        named(path.get(path.size() - 1), remediation, f, where, errors);
        String yaml = CatalogYaml.dump(b.get(valueKey));
        steps.add(
                kind.equals("append")
                        ? new Fix.Append(object, path, yaml)
                        : new Fix.Replace(object, path, yaml));
    }

    private static void create(
            Map<?, ?> b,
            String remediation,
            String f,
            String where,
            List<Fix.Step> steps,
            List<String> errors) {
        Object kind = b.get("kind");
        Object meta = b.get("metadata");
        if (!(b.get("apiVersion") instanceof String)
                || !(kind instanceof String)
                || !(meta instanceof Map<?, ?> m && m.get("name") != null
                        || meta instanceof String hole && Fix.isInput(hole))) {
            errors.add(
                    f
                            + ": "
                            + where
                            + " needs apiVersion, kind and metadata (with a name, or one input)");
            return;
        }
        named((String) kind, remediation, f, where, errors);
        steps.add(new Fix.Create(CatalogYaml.dump(b)));
    }

    private static boolean validPath(
            List<String> path, String f, String where, List<String> errors) {
        for (int i = 0; i < path.size(); i++) {
            Matcher m = SELECTOR.matcher(path.get(i));
            if (m.matches() && i == path.size() - 1) {
                errors.add(
                        f
                                + ": "
                                + where
                                + ": "
                                + String.join(".", path)
                                + " ends in a selector: a path ends in a key");
                return false;
            }
            if (path.get(i).isEmpty()) {
                errors.add(f + ": " + where + ": an empty key in " + path);
                return false;
            }
        }
        return true;
    }

    /** A literal key or prefix the advice must name (a hole is the finding's to name). */
    private static void named(
            String word, String remediation, String f, String where, List<String> errors) {
        if (!word.contains("{") && !remediation.contains(word)) {
            errors.add(
                    f
                            + ": "
                            + where
                            + ": the remediation does not name "
                            + word
                            + " (the advice must say what the fix does)");
        }
    }

    /** The inputs a fix declares, checked against the holes its steps and says use. */
    /**
     * The inputs a fix declares ({@code inputs:}, which the finding gives, and {@code asks:}, which
     * the user gives: the API server's address), checked against the holes its steps and says use;
     * the two lists.
     */
    static List<List<String>> inputs(
            Object o, Object a, List<Fix.Step> steps, String says, String f, List<String> errors) {
        List<String> given = o == null ? List.of() : strings(o);
        List<String> asked = a == null ? List.of() : strings(a);
        if (given == null || asked == null) {
            errors.add(f + ": fix.inputs and fix.asks must be lists of names");
            return List.of(List.of(), List.of());
        }
        Set<String> used = new LinkedHashSet<>(holes(says));
        for (Fix.Step s : steps) {
            used.addAll(holes(s));
        }
        List<String> declared = new ArrayList<>(given);
        declared.addAll(asked);
        for (String d : declared) {
            if (!INPUT_NAME.matcher(d).matches()) {
                errors.add(f + ": fix.inputs: '" + d + "' is not a name (letters only)");
            } else if (!used.contains(d)) {
                errors.add(f + ": fix.inputs: " + d + " is used by no step");
            }
        }
        for (String u : used) {
            if (!declared.contains(u)) {
                errors.add(
                        f
                                + ": fix: unknown input {"
                                + u
                                + "} (declare it under fix.inputs, which the finding gives, or"
                                + " fix.asks, which the user gives)");
            }
        }
        return List.of(given, asked);
    }

    private static List<String> strings(Object o) {
        if (!(o instanceof List<?> l)) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (Object x : l) {
            if (!(x instanceof String) && !(x instanceof Number)) {
                return null;
            }
            out.add(String.valueOf(x));
        }
        return out;
    }

    // ---------------------------------------------------------------- holes

    /** The input names a step uses. */
    static Set<String> holes(Fix.Step s) {
        Set<String> out = new LinkedHashSet<>();
        if (s instanceof Fix.Patch p) {
            out.addAll(holes(p.object()));
            p.path().forEach(x -> out.addAll(holes(x)));
            out.addAll(holes(p.value() instanceof String v ? v : null));
        } else if (s instanceof Fix.Replace r) {
            out.addAll(holes(r.object()));
            r.path().forEach(x -> out.addAll(holes(x)));
            out.addAll(holes(r.yaml()));
        } else if (s instanceof Fix.Append a) {
            out.addAll(holes(a.object()));
            a.path().forEach(x -> out.addAll(holes(x)));
            out.addAll(holes(a.yaml()));
        } else if (s instanceof Fix.Drop d) {
            out.addAll(holes(d.object()));
            d.path().forEach(x -> out.addAll(holes(x)));
            d.startingWith().forEach(x -> out.addAll(holes(x)));
        } else if (s instanceof Fix.Create c) {
            out.addAll(holes(c.yaml()));
        } else if (s instanceof Fix.Each e) {
            out.add(e.input());
            out.addAll(holes(e.step()));
        } else if (s instanceof Fix.When w) {
            out.add(w.input());
            out.addAll(holes(w.step()));
        }
        return out;
    }

    private static Set<String> holes(String text) {
        Set<String> out = new LinkedHashSet<>();
        if (text != null) {
            Matcher m = Fix.PLACEHOLDER.matcher(text);
            while (m.find()) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- applying

    /**
     * The fix's steps applied to {@code docs} (the parsed objects of one manifest file) for a
     * finding about {@code self}, with the finding's inputs; returns how many steps applied (a step
     * whose inputs are not all given is skipped).
     *
     * @throws IllegalArgumentException when a step names an object or list element that is not
     *     there
     */
    static int apply(
            List<Fix.Step> steps,
            Map<String, Object> self,
            List<Map<String, Object>> docs,
            Map<String, Object> inputs) {
        int applied = 0;
        for (Fix.Step s : steps) {
            if (s instanceof Fix.Each e) {
                if (inputs.get(e.input()) instanceof List<?> elements) {
                    for (Object element : elements) {
                        Map<String, Object> more = new LinkedHashMap<>(inputs);
                        ((Map<?, ?>) element).forEach((k, v) -> more.put(String.valueOf(k), v));
                        applied += apply(List.of(e.step()), self, docs, more);
                    }
                }
                continue;
            }
            if (s instanceof Fix.When w) {
                if (!Boolean.FALSE.equals(inputs.get(w.input())) && inputs.containsKey(w.input())) {
                    applied += apply(List.of(w.step()), self, docs, inputs);
                }
                continue;
            }
            if (!inputs.keySet().containsAll(holes(s))) {
                continue;
            }
            applied++;
            applyOne(s, self, docs, inputs);
        }
        return applied;
    }

    /** One step whose inputs are all given. */
    private static void applyOne(
            Fix.Step s,
            Map<String, Object> self,
            List<Map<String, Object>> docs,
            Map<String, Object> inputs) {
        if (s instanceof Fix.Create c) {
            @SuppressWarnings("unchecked")
            Map<String, Object> made =
                    (Map<String, Object>) fill(CatalogYaml.value(c.yaml()), inputs);
            docs.add(made);
        } else if (s instanceof Fix.Patch p) {
            Object v = fill(p.value(), inputs);
            at(
                    target(p.object(), self, docs, inputs),
                    fill(p.path(), inputs),
                    v != null,
                    (m, k) -> {
                        if (v == null) {
                            m.remove(k);
                        } else {
                            m.put(k, v);
                        }
                    });
        } else if (s instanceof Fix.Replace r) {
            Object v = fill(CatalogYaml.value(r.yaml()), inputs);
            at(
                    target(r.object(), self, docs, inputs),
                    fill(r.path(), inputs),
                    true,
                    (m, k) -> m.put(k, v));
        } else if (s instanceof Fix.Append a) {
            Object v = fill(CatalogYaml.value(a.yaml()), inputs);
            at(
                    target(a.object(), self, docs, inputs),
                    fill(a.path(), inputs),
                    true,
                    (m, k) -> {
                        List<Object> l = new ArrayList<>();
                        if (m.get(k) instanceof List<?> old) {
                            l.addAll(old);
                        }
                        l.add(v);
                        m.put(k, l);
                    });
        } else if (s instanceof Fix.Drop d) {
            List<String> prefixes = fill(d.startingWith(), inputs);
            at(
                    target(d.object(), self, docs, inputs),
                    fill(d.path(), inputs),
                    false,
                    (m, k) -> {
                        if (m.get(k) instanceof List<?> old) {
                            List<Object> l = new ArrayList<>(old);
                            l.removeIf(
                                    x -> prefixes.stream().anyMatch(String.valueOf(x)::startsWith));
                            m.put(k, l);
                        }
                    });
        }
    }

    private interface Leaf {
        void at(Map<String, Object> parent, String key);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> target(
            String object,
            Map<String, Object> self,
            List<Map<String, Object>> docs,
            Map<String, Object> inputs) {
        if (object == null) {
            return self;
        }
        String named = fillText(object, inputs);
        String kind = named.substring(0, named.indexOf(' '));
        String rest = named.substring(kind.length() + 1);
        int slash = rest.indexOf('/');
        String ns = slash < 0 ? null : rest.substring(0, slash);
        String name = rest.substring(slash + 1);
        for (Map<String, Object> d : docs) {
            if (kind.equals(d.get("kind"))
                    && d.get("metadata") instanceof Map<?, ?> meta
                    && name.equals(meta.get("name"))
                    && Objects.equals(ns, meta.get("namespace"))) {
                return d;
            }
        }
        throw new IllegalArgumentException("no " + named + " among the objects");
    }

    /** Walks {@code path} from {@code node}, making maps where it has none when {@code make}. */
    @SuppressWarnings("unchecked")
    private static void at(Map<String, Object> node, List<String> path, boolean make, Leaf leaf) {
        Map<String, Object> cur = node;
        for (int i = 0; i < path.size() - 1; i++) {
            String key = path.get(i);
            Matcher sel = SELECTOR.matcher(key);
            if (sel.matches()) {
                List<String> rest = path.subList(i + 1, path.size());
                for (Map<String, Object> e : selected(cur, sel.group(1), sel.group(2))) {
                    at(e, rest, make, leaf);
                }
                return;
            }
            Object next = cur.get(key);
            if (!(next instanceof Map)) {
                if (!make) {
                    return;
                }
                next = new LinkedHashMap<String, Object>();
                cur.put(key, next);
            }
            cur = (Map<String, Object>) next;
        }
        leaf.at(cur, path.get(path.size() - 1));
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> selected(
            Map<String, Object> node, String key, String selector) {
        if (!(node.get(key) instanceof List<?> list)) {
            throw new IllegalArgumentException("no list " + key + " to select " + selector + " in");
        }
        List<Map<String, Object>> out = new ArrayList<>();
        int eq = selector.indexOf('=');
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof Map<?, ?> e)) {
                continue;
            }
            boolean pick =
                    selector.equals("*")
                            || (eq < 0
                                    ? selector.equals(String.valueOf(i))
                                    : selector.substring(eq + 1)
                                            .equals(
                                                    String.valueOf(
                                                            e.get(selector.substring(0, eq)))));
            if (pick) {
                out.add((Map<String, Object>) e);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no " + key + "[" + selector + "]");
        }
        return out;
    }

    // ---------------------------------------------------------------- filling holes

    private static List<String> fill(List<String> texts, Map<String, Object> inputs) {
        List<String> out = new ArrayList<>(texts.size());
        for (String t : texts) {
            out.add(fillText(t, inputs));
        }
        return out;
    }

    private static String fillText(String text, Map<String, Object> inputs) {
        Map<String, String> s = new LinkedHashMap<>();
        inputs.forEach((k, v) -> s.put(k, String.valueOf(v)));
        return Fix.fill(text, s);
    }

    /**
     * A copy of {@code v} with its holes filled: a string that is one hole becomes the input itself
     * (a number, a map of labels), other strings get the input's text.
     */
    private static Object fill(Object v, Map<String, Object> inputs) {
        if (v instanceof String s) {
            Matcher m = Fix.PLACEHOLDER.matcher(s);
            if (m.matches() && inputs.containsKey(m.group(1))) {
                return copy(inputs.get(m.group(1)));
            }
            return fillText(s, inputs);
        }
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, x) -> out.put(fillText(String.valueOf(k), inputs), fill(x, inputs)));
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(x -> out.add(fill(x, inputs)));
            return out;
        }
        return v;
    }

    private static Object copy(Object v) {
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, x) -> out.put(String.valueOf(k), copy(x)));
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(x -> out.add(copy(x)));
            return out;
        }
        return v;
    }
}
