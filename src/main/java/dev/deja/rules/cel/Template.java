package dev.deja.rules.cel;

import dev.cel.common.types.SimpleType;
import dev.cel.runtime.CelVariableResolver;
import dev.deja.engine.InputException;
import java.util.ArrayList;
import java.util.List;

/**
 * A message template: text with {@code {{ expression }}} holes, each a CEL expression over the same
 * variables as {@code check.when}; a hole shows a text as it is, a whole number without a decimal
 * point, a list or map as Java shows it ({@code [a, b]}, {@code {app=web}}).
 */
final class Template {
    private final List<Object> parts; // String or Compilation.Expr
    private final List<String> holes;

    private Template(List<Object> parts, List<String> holes) {
        this.parts = parts;
        this.holes = holes;
    }

    static Template of(RuleFile.Text t, Compilation cel) {
        String s = t.value();
        List<Object> parts = new ArrayList<>();
        List<String> holes = new ArrayList<>();
        int i = 0;
        while (i < s.length()) {
            int open = s.indexOf("{{", i);
            if (open < 0) {
                parts.add(s.substring(i));
                break;
            }
            if (open > i) {
                parts.add(s.substring(i, open));
            }
            int close = s.indexOf("}}", open + 2);
            if (close < 0) {
                throw new InputException(t.where(open) + ": '{{' without its '}}'");
            }
            String expr = s.substring(open + 2, close);
            if (expr.isBlank()) {
                throw new InputException(t.where(open) + ": an empty '{{ }}'");
            }
            parts.add(cel.add(t, expr, open + 2, SimpleType.DYN, "'{{" + expr + "}}'"));
            holes.add(expr.strip());
            i = close + 2;
        }
        return new Template(parts, holes);
    }

    /** The text on an object, {@code vars} its variables ({@code object}, {@code params}). */
    String render(Object object, CelVariableResolver vars, long limit) {
        StringBuilder b = new StringBuilder();
        int h = 0;
        for (Object p : parts) {
            if (p instanceof String s) {
                b.append(s);
            } else {
                String what = "{{ " + holes.get(h++) + " }}";
                b.append(text(((Compilation.Expr) p).eval(object, vars, limit, what)));
            }
        }
        return b.toString();
    }

    /** How a value shows in a message. */
    static String text(Object v) {
        if (v instanceof Double d && d == Math.rint(d) && !d.isInfinite() && Math.abs(d) < 1e15) {
            return Long.toString(d.longValue());
        }
        return String.valueOf(v);
    }
}
