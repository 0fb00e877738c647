package dev.deja.rules.cel;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.ast.CelExpr.CelCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The objects a {@code check.when} rejects at once, without CEL's interpreter: a rule's condition
 * is most often a chain of {@code &&} whose first operands (after {@link CheapFirst}) read a field
 * and compare it ({@code object.name.endsWith('-canary')}, {@code object.replicas < 2}), false on
 * almost every object. CEL's interpreter allocates per node and dispatches every call by its
 * arguments' types; on tens of thousands of objects and fifty rules that is most of a scan. This
 * class evaluates the condition itself, for the few kinds of node whose CEL meaning is plain (a
 * field of a map, a string, int, bool or null constant, {@code has()} on deja's views, {@code ==}
 * and {@code !=} on two values of one type or against null, int comparisons, {@code !}, {@code &&},
 * {@code ||}, {@code startsWith}, {@code endsWith}, {@code contains}, {@code effective()}), every
 * other node being "don't know", and answers only "false": CEL defines {@code false && x} as false
 * and {@code false || false} as false whatever else is in the expression (an error included), so
 * when the known parts make the condition false, CEL would have found it false too. Otherwise CEL
 * evaluates the whole condition as before. Only the leading operands of the {@code &&} chain
 * without a comprehension are looked at, so that the cost limit holds: the shortcut is taken only
 * when CEL, which evaluates each of their nodes at most once and stops at the first false operand,
 * could not have run past the limit. An expression without a comprehension whose every node is
 * known here (a condition on an object that fires, a message's {@code {{ object.meta.display }}})
 * gets its value from this class too ({@link #value}): it is CEL's value, as each node's is.
 */
final class Shortcut {
    private static final Object UNKNOWN = new Object();
    private static final Object NULL = new Object();
    private static final String AND = "_&&_";
    private static final String OR = "_||_";
    private static final Set<String> STRING_TESTS = Set.of("startsWith", "endsWith", "contains");
    private static final Set<String> COMPARISONS =
            Set.of("_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_");

    private final Node[] operands;
    private final long steps;

    /** The whole expression, when it holds no comprehension, else null; and its nodes. */
    private final Node whole;

    private final long wholeSteps;

    private Shortcut(List<CelExpr> operands, long steps, CelExpr whole, long wholeSteps) {
        this.operands = new Node[operands.size()];
        for (int i = 0; i < this.operands.length; i++) {
            this.operands[i] = node(operands.get(i));
        }
        this.steps = steps;
        this.whole = whole == null ? null : node(whole);
        this.wholeSteps = wholeSteps;
    }

    /**
     * The shortcut of a checked expression (as the program runs it: after {@link CheapFirst}), or
     * null when its first operand holds a comprehension.
     */
    static Shortcut of(CelAbstractSyntaxTree ast) {
        List<CelExpr> chain = new ArrayList<>();
        int ands = flatten(ast.getExpr(), chain);
        List<CelExpr> lead = new ArrayList<>();
        long steps = ands;
        for (CelExpr e : chain) {
            long n = nodes(e);
            if (n < 0) {
                break;
            }
            lead.add(e);
            steps += n;
        }
        long all = nodes(ast.getExpr());
        return lead.isEmpty()
                ? null
                : new Shortcut(List.copyOf(lead), steps, all < 0 ? null : ast.getExpr(), all);
    }

    /** The operands of a chain of {@code &&}, left to right; the number of {@code &&} nodes. */
    private static int flatten(CelExpr e, List<CelExpr> out) {
        if (isCall(e, AND, 2)) {
            return 1 + flatten(e.call().args().get(0), out) + flatten(e.call().args().get(1), out);
        }
        out.add(e);
        return 0;
    }

    private static boolean isCall(CelExpr e, String function, int args) {
        return e.getKind() == CelExpr.ExprKind.Kind.CALL
                && e.call().function().equals(function)
                && e.call().args().size() == args
                && e.call().target().isEmpty();
    }

    /**
     * The value CEL gives the whole expression on this object, when this class knows it and it is a
     * string, an int or a bool (what a condition gives, what a message shows as CEL's value would
     * show); else null, and CEL evaluates it. Every node's value here is the one CEL gives it (that
     * is what "known" means in this class), so a known value of the whole is CEL's; and CEL,
     * evaluating at most every node once, could not have run past the cost limit.
     */
    Object value(Object object, long limit) {
        if (whole == null || wholeSteps > limit) {
            return null;
        }
        Object v = whole.eval(object);
        return v instanceof String || v instanceof Long || v instanceof Boolean ? v : null;
    }

    /** Whether CEL certainly finds the condition false on this object. */
    boolean rejects(Object object, long limit) {
        if (steps > limit) {
            return false;
        }
        for (Node e : operands) {
            if (e.eval(object) == Boolean.FALSE) {
                return true;
            }
        }
        return false;
    }

    /** The nodes of an expression, or -1 when it holds a comprehension. */
    private static long nodes(CelExpr e) {
        long n = 1;
        switch (e.getKind()) {
            case COMPREHENSION:
                return -1;
            case SELECT:
                return add(n, nodes(e.select().operand()));
            case CALL:
                if (e.call().target().isPresent()) {
                    n = add(n, nodes(e.call().target().get()));
                }
                for (CelExpr a : e.call().args()) {
                    n = add(n, nodes(a));
                }
                return n;
            case LIST:
                for (CelExpr a : e.list().elements()) {
                    n = add(n, nodes(a));
                }
                return n;
            case MAP:
                for (CelExpr.CelMap.Entry a : e.map().entries()) {
                    n = add(add(n, nodes(a.key())), nodes(a.value()));
                }
                return n;
            case STRUCT:
                for (CelExpr.CelStruct.Entry a : e.struct().entries()) {
                    n = add(n, nodes(a.value()));
                }
                return n;
            default:
                return n;
        }
    }

    private static long add(long n, long m) {
        return n < 0 || m < 0 ? -1 : n + m;
    }

    /** A node of the condition, made ready once: the value CEL gives it on an object. */
    @FunctionalInterface
    private interface Node {
        Object eval(Object object);
    }

    private static Node constant(Object value) {
        return o -> value;
    }

    /**
     * The node that gives the value CEL gives {@code e}, or {@link #UNKNOWN} when this class does
     * not know it; built once per condition (what each node is, its function and constants), so
     * that judging an object only reads fields and compares.
     */
    private static Node node(CelExpr e) {
        switch (e.getKind()) {
            case CONSTANT:
                {
                    CelConstant c = e.constant();
                    switch (c.getKind()) {
                        case STRING_VALUE:
                            return constant(c.stringValue());
                        case INT64_VALUE:
                            return constant(c.int64Value());
                        case BOOLEAN_VALUE:
                            return constant(c.booleanValue());
                        case NULL_VALUE:
                            return constant(NULL);
                        default:
                            return constant(UNKNOWN);
                    }
                }
            case IDENT:
                return e.ident().name().equals("object") ? o -> o : constant(UNKNOWN);
            case SELECT:
                return select(
                        node(e.select().operand()), e.select().field(), e.select().testOnly());
            case CALL:
                return call(e.call());
            default:
                return constant(UNKNOWN);
        }
    }

    private static Node select(Node operand, String field, boolean testOnly) {
        if (testOnly) {
            // has(): deja's views hold no null values: present is non-null
            return o ->
                    operand.eval(o) instanceof View m ? (Object) (m.get(field) != null) : UNKNOWN;
        }
        return o -> operand.eval(o) instanceof Map<?, ?> m ? known(m.get(field)) : UNKNOWN;
    }

    /** A value as CEL sees it, when it is one this class compares. */
    private static Object known(Object r) {
        return r instanceof String
                        || r instanceof Long
                        || r instanceof Boolean
                        || r instanceof Map
                        || r instanceof List
                ? r
                : UNKNOWN;
    }

    private static Node call(CelCall c) {
        String f = c.function();
        int n = c.args().size();
        if (c.target().isPresent()) {
            if (f.equals("size") && n == 0) {
                return function(f, List.of(c.target().get()));
            }
            if (STRING_TESTS.contains(f) && n == 1) {
                return stringTest(f, node(c.target().get()), node(c.args().get(0)));
            }
            return constant(UNKNOWN);
        }
        if (f.equals("size") || Functions.has(f, n)) {
            return function(f, c.args());
        }
        if (n == 1 && f.equals("!_")) {
            Node a = node(c.args().get(0));
            return o -> a.eval(o) instanceof Boolean b ? (Object) !b : UNKNOWN;
        }
        if (n != 2) {
            return constant(UNKNOWN);
        }
        Node a = node(c.args().get(0));
        Node b = node(c.args().get(1));
        switch (f) {
            case AND:
                return o -> junction(a, b, o, Boolean.FALSE);
            case OR:
                return o -> junction(a, b, o, Boolean.TRUE);
            case "_[_]":
                return o -> index(a.eval(o), b.eval(o));
            default:
                break;
        }
        if (COMPARISONS.contains(f)) {
            return o -> compare(f, a.eval(o), b.eval(o));
        }
        return constant(UNKNOWN);
    }

    private static Node stringTest(String f, Node target, Node arg) {
        switch (f) {
            case "startsWith":
                return o ->
                        target.eval(o) instanceof String s && arg.eval(o) instanceof String x
                                ? (Object) s.startsWith(x)
                                : UNKNOWN;
            case "endsWith":
                return o ->
                        target.eval(o) instanceof String s && arg.eval(o) instanceof String x
                                ? (Object) s.endsWith(x)
                                : UNKNOWN;
            default:
                return o ->
                        target.eval(o) instanceof String s && arg.eval(o) instanceof String x
                                ? (Object) s.contains(x)
                                : UNKNOWN;
        }
    }

    /**
     * {@code &&} ({@code decides} false) or {@code ||} ({@code decides} true): an operand that is
     * {@code decides} decides, whatever the other is; both the other way give that.
     */
    private static Object junction(Node x, Node y, Object object, Boolean decides) {
        Object a = x.eval(object);
        if (a == decides) {
            return decides;
        }
        Object b = y.eval(object);
        if (b == decides) {
            return decides;
        }
        Boolean other = !decides;
        return a == other && b == other ? other : UNKNOWN;
    }

    private static Object index(Object a, Object i) {
        if (a instanceof List<?> l && i instanceof Long x) {
            return x >= 0 && x < l.size() ? known(l.get((int) (long) x)) : UNKNOWN;
        }
        return UNKNOWN;
    }

    /** size(), and deja's own functions (CEL's runtime calls the same implementation). */
    private static Node function(String f, List<CelExpr> args) {
        Node[] nodes = new Node[args.size()];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = node(args.get(i));
        }
        if (f.equals("size")) {
            if (nodes.length != 1) {
                return constant(UNKNOWN);
            }
            Node a = nodes[0];
            return o -> size(a.eval(o));
        }
        return o -> {
            Object[] values = new Object[nodes.length];
            for (int i = 0; i < values.length; i++) {
                Object v = nodes[i].eval(o);
                if (v == UNKNOWN || v == NULL) {
                    return UNKNOWN;
                }
                values[i] = v;
            }
            try {
                java.util.Optional<Object> r = Functions.call(f, values);
                if (r == null) {
                    return UNKNOWN;
                }
                return r.isEmpty() ? NULL : known(r.get());
            } catch (RuntimeException e) {
                return UNKNOWN; // CEL's error, which the interpreter reports
            }
        };
    }

    private static Object size(Object v) {
        if (v == UNKNOWN || v == NULL) {
            return UNKNOWN;
        }
        if (v instanceof String s) {
            return (long) s.codePointCount(0, s.length());
        }
        if (v instanceof List<?> l) {
            return (long) l.size();
        }
        if (v instanceof Map<?, ?> m) {
            return (long) m.size();
        }
        return UNKNOWN;
    }

    private static Object compare(String f, Object a, Object b) {
        if (a == UNKNOWN || b == UNKNOWN) {
            return UNKNOWN;
        }
        boolean eq = f.equals("_==_");
        if (eq || f.equals("_!=_")) {
            if (a == NULL || b == NULL) {
                // a value that is there against null: not equal (null against null: not known)
                if (a == NULL && b == NULL) {
                    return UNKNOWN;
                }
                return !eq;
            }
            boolean sameType =
                    (a instanceof String && b instanceof String)
                            || (a instanceof Long && b instanceof Long)
                            || (a instanceof Boolean && b instanceof Boolean);
            return sameType ? (Object) (a.equals(b) == eq) : UNKNOWN;
        }
        if (!(a instanceof Long x && b instanceof Long y)) {
            return UNKNOWN;
        }
        int cmp = Long.compare(x, y);
        return switch (f) {
            case "_<_" -> cmp < 0;
            case "_<=_" -> cmp <= 0;
            case "_>_" -> cmp > 0;
            case "_>=_" -> cmp >= 0;
            default -> UNKNOWN;
        };
    }
}
