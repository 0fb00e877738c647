package dev.deja.model.kube;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A label selector: {@code matchLabels} and {@code matchExpressions} (operator In, NotIn, Exists,
 * DoesNotExist).
 */
public record Selector(Map<String, String> matchLabels, List<Expression> expressions) {

    public static final Selector EMPTY = new Selector(Map.of(), List.of());

    public Selector {
        matchLabels = matchLabels == null ? Map.of() : Sorted.copyOf(matchLabels);
        expressions = expressions == null ? List.of() : List.copyOf(expressions);
    }

    public record Expression(String key, String operator, List<String> values) {
        public Expression {
            values = values == null ? List.of() : List.copyOf(values);
        }

        boolean matches(Map<String, String> labels) {
            String v = labels.get(key);
            return switch (operator == null ? "" : operator) {
                case "In" -> v != null && values.contains(v);
                case "NotIn" -> v == null || !values.contains(v);
                case "Exists" -> v != null;
                case "DoesNotExist" -> v == null;
                default -> false;
            };
        }
    }

    public boolean isEmpty() {
        return matchLabels.isEmpty() && expressions.isEmpty();
    }

    /**
     * Whether the selector selects an object with these labels (an empty selector selects nothing
     * here).
     */
    public boolean matches(Map<String, String> labels) {
        if (isEmpty()) {
            return false;
        }
        for (Map.Entry<String, String> e : matchLabels.entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) {
                return false;
            }
        }
        for (Expression x : expressions) {
            if (!x.matches(labels)) {
                return false;
            }
        }
        return true;
    }

    /** A Service-style selector (plain map) as a Selector. */
    public static Selector of(Map<String, String> labels) {
        return labels == null || labels.isEmpty() ? EMPTY : new Selector(labels, List.of());
    }

    /** "app=x,tier in (a, b),!gone" for messages. */
    public String text() {
        List<String> parts = new ArrayList<>();
        matchLabels.forEach((k, v) -> parts.add(k + "=" + v));
        for (Expression x : expressions) {
            parts.add(
                    switch (x.operator() == null ? "" : x.operator()) {
                        case "Exists" -> x.key();
                        case "DoesNotExist" -> "!" + x.key();
                        case "NotIn" -> x.key() + " notin (" + String.join(", ", x.values()) + ")";
                        default -> x.key() + " in (" + String.join(", ", x.values()) + ")";
                    });
        }
        return parts.isEmpty() ? "{}" : String.join(",", parts);
    }

    public Set<String> keys() {
        return matchLabels.keySet();
    }
}
