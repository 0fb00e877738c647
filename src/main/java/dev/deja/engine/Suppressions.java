package dev.deja.engine;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * The {@code --ignore-file}: a YAML list of {@code {rule, object, reason, expires}}. {@code rule}
 * is a rule id (or {@code "*"}), {@code object} a glob ({@code *} and {@code ?}) matched against
 * the finding's object identifiers (Kind/namespace/name, namespace/name, name, ARN, file,
 * file:line), {@code expires} an ISO date after which the entry stops suppressing and is reported.
 */
public final class Suppressions {
    public static final Suppressions NONE = new Suppressions(List.of());

    public record Entry(
            String rule, String object, String reason, LocalDate expires, String origin) {
        boolean expiredOn(Supplier<LocalDate> today) {
            return expires != null && today.get().isAfter(expires);
        }
    }

    private static final Set<String> KEYS = Set.of("rule", "object", "reason", "expires");

    private final List<Entry> entries;

    /**
     * Each entry's object pattern, compiled once (not once per finding judged against it); null for
     * an entry without an object.
     */
    private final Pattern[] objects;

    public Suppressions(List<Entry> entries) {
        this.entries = List.copyOf(entries);
        this.objects = new Pattern[this.entries.size()];
        for (int i = 0; i < objects.length; i++) {
            String o = this.entries.get(i).object();
            objects[i] = o == null ? null : glob(o);
        }
    }

    public List<Entry> entries() {
        return entries;
    }

    public static Suppressions parse(String text, String display, Catalog catalog) {
        Node root;
        try {
            LoaderOptions o = new LoaderOptions();
            o.setMaxAliasesForCollections(10);
            o.setNestingDepthLimit(10);
            root = YamlNodes.compose(text, o);
        } catch (MarkedYAMLException e) {
            throw YamlError.of(display, "not valid YAML", e);
        } catch (RuntimeException e) {
            throw new InputException(
                    display + ": not valid YAML: " + e.getMessage().lines().findFirst().orElse(""));
        }
        return fromNode(root, display, catalog);
    }

    /**
     * Suppressions from an already composed YAML node (e.g. the {@code suppressions:} list of a
     * deja.yaml), with {@code display:line} taken from the node marks.
     */
    public static Suppressions fromNode(Node root, String display, Catalog catalog) {
        List<Entry> out = new ArrayList<>();
        if (root == null) {
            return new Suppressions(out);
        }
        if (!(root instanceof SequenceNode seq)) {
            throw new InputException(
                    at(display, root) + ": expected a list of {rule, object, reason, expires}");
        }
        for (Node item : seq.getValue()) {
            if (!(item instanceof MappingNode map)) {
                throw new InputException(
                        at(display, item)
                                + ": expected a mapping with rule, object, reason, expires");
            }
            String rule = null;
            String object = "*";
            String reason = null;
            LocalDate expires = null;
            for (NodeTuple t : map.getValue()) {
                String key = scalar(t.getKeyNode(), display);
                String value = scalar(t.getValueNode(), display);
                if (!KEYS.contains(key)) {
                    throw new InputException(
                            at(display, t.getKeyNode())
                                    + ": unknown key '"
                                    + key
                                    + "' (expected rule, object, reason, expires)");
                }
                switch (key) {
                    case "rule" -> rule = value;
                    case "object" -> object = value;
                    case "reason" -> reason = value;
                    default -> {
                        try {
                            expires = LocalDate.parse(value);
                        } catch (DateTimeParseException e) {
                            throw new InputException(
                                    at(display, t.getValueNode())
                                            + ": expires '"
                                            + value
                                            + "' is not a date (YYYY-MM-DD)");
                        }
                    }
                }
            }
            if (rule == null || rule.isBlank()) {
                throw new InputException(at(display, item) + ": entry has no 'rule'");
            }
            if (reason == null || reason.isBlank()) {
                throw new InputException(
                        at(display, item) + ": entry for " + rule + " has no 'reason'");
            }
            if (!rule.equals("*") && catalog != null && catalog.rule(rule).isEmpty()) {
                List<String> ids = new ArrayList<>();
                catalog.rules().forEach(r -> ids.add(r.id()));
                throw new InputException(
                        at(display, item)
                                + ": unknown rule '"
                                + rule
                                + "'"
                                + DidYouMean.hint(rule, ids));
            }
            String canonical =
                    rule.equals("*") || catalog == null ? rule : catalog.canonicalRuleId(rule);
            out.add(
                    new Entry(
                            canonical,
                            object,
                            reason,
                            expires,
                            display + ":" + (item.getStartMark().getLine() + 1)));
        }
        return new Suppressions(out);
    }

    /** The first live entry that suppresses the finding, or null. */
    public Entry match(Finding f, Supplier<LocalDate> today) {
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            if (e.expiredOn(today)) {
                continue;
            }
            if (!e.rule().equals("*") && !e.rule().equals(f.ruleId())) {
                continue;
            }
            Pattern p = objects[i] != null ? objects[i] : glob(e.object());
            for (String id : f.location().identifiers()) {
                if (p.matcher(id).matches()) {
                    return e;
                }
            }
        }
        return null;
    }

    public List<Entry> expired(Supplier<LocalDate> today) {
        return entries.stream().filter(e -> e.expiredOn(today)).toList();
    }

    static Pattern glob(String g) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < g.length(); i++) {
            char c = g.charAt(i);
            switch (c) {
                case '*' -> sb.append(".*");
                case '?' -> sb.append('.');
                default -> sb.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(sb.toString());
    }

    private static String scalar(Node n, String display) {
        if (!(n instanceof ScalarNode s)) {
            throw new InputException(at(display, n) + ": expected a plain value");
        }
        return s.getValue();
    }

    private static String at(String display, Node n) {
        return display + ":" + (n.getStartMark().getLine() + 1);
    }
}
