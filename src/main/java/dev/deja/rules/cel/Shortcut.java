package dev.deja.rules.cel;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.ast.CelExpr.CelCall;
import dev.cel.runtime.CelVariableResolver;
import java.util.ArrayList;
import java.util.Collections;
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
 * field of a map, a string, int, bool or null constant, {@code has()}, {@code string()}, {@code
 * join()}, arithmetic on ints, {@code ==}
 * and {@code !=} on two values of one type or against null, int comparisons, {@code !}, {@code &&},
 * {@code ||}, {@code in}, {@code startsWith}, {@code endsWith}, {@code contains}, {@code
 * effective()} and deja's other functions, the rule's {@code params}), every
 * other node being "don't know", and answers only "false": CEL defines {@code false && x} as false
 * and {@code false || false} as false whatever else is in the expression (an error included), so
 * when the known parts make the condition false, CEL would have found it false too. Otherwise CEL
 * evaluates the whole condition as before. Only the leading operands of the {@code &&} chain
 * without a comprehension in a comprehension's loop are looked at, so that the cost limit holds:
 * the shortcut is taken only when CEL, which evaluates each of their nodes at most once (a loop's
 * once per element) and stops at the first false operand, could not have run past the limit. An
 * expression whose every node is known here (a condition on an object that fires, a message's
 * {@code {{ object.meta.display }}}) gets its value from this class too ({@link #value}): it is
 * CEL's value, as each node's is.
 *
 * <p>A comprehension (what {@code exists}, {@code all}, {@code exists_one}, {@code filter} and
 * {@code map} expand to) is known here when its range is a list and its loop holds no other
 * comprehension: its accumulator and variable are bound as CEL binds them, and the loop runs with
 * the list concatenation ({@code +}), the conditional ({@code ? :}), list literals and {@code
 * @not_strictly_false} the macros use. Its cost is counted as CEL could count it, every element's
 * condition and step in full (CEL may stop sooner): when that would pass the limit, the node is not
 * known, and CEL evaluates the expression and reports what it finds.
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

    /**
     * The whole expression, unless it holds a comprehension within a comprehension's loop (then
     * null); and its nodes, each comprehension's loop counted once.
     */
    private final Node whole;

    private final long wholeSteps;

    /** Variables the comprehensions bind (slots of {@link Env#locals}). */
    private final int locals;

    private final boolean complete;

    private Shortcut(List<CelExpr> operands, long steps, CelExpr whole, long wholeSteps) {
        Scope scope = new Scope();
        this.operands = new Node[operands.size()];
        for (int i = 0; i < this.operands.length; i++) {
            this.operands[i] = node(operands.get(i), scope);
        }
        this.steps = steps;
        scope.partial = false;
        this.whole = whole == null ? null : node(whole, scope);
        this.wholeSteps = wholeSteps;
        this.locals = scope.slots;
        this.complete = whole != null && !scope.partial;
    }

    /**
     * Whether every node of the expression is one this class knows: CEL's interpreter is then
     * needed only on an object where a value is not (an error CEL reports, a type it compares).
     */
    boolean complete() {
        return complete;
    }

    /**
     * The shortcut of a checked expression (as the program runs it: after {@link CheapFirst}), or
     * null when it is no chain this class can start on.
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

    /**
     * One evaluation: the object, the comprehensions' variables, and the cost so far against the
     * limit (each comprehension adds its loop's).
     */
    private static final class Env {
        final Object object;
        final CelVariableResolver vars;
        final Object[] locals;
        final long limit;
        long cost;
        private Object params;

        Env(Object object, CelVariableResolver vars, int locals, long cost, long limit) {
            this.object = object;
            this.vars = vars;
            this.locals = locals == 0 ? NO_LOCALS : new Object[locals];
            this.cost = cost;
            this.limit = limit;
        }

        /** The rule's {@code params}, as CEL's variable holds them. */
        Object params() {
            Object p = params;
            if (p == null) {
                Object v = vars == null ? null : vars.find("params").orElse(null);
                p = v instanceof Map ? v : UNKNOWN;
                params = p;
            }
            return p;
        }
    }

    private static final Object[] NO_LOCALS = new Object[0];

    /** The variables in scope where a node is built, innermost last, each with its slot. */
    private static final class Scope {
        final List<String> names = new ArrayList<>();
        final List<Integer> at = new ArrayList<>();
        int slots;

        /** Whether a node built so far is one this class does not know. */
        boolean partial;

        /** The slot of a variable in scope, or -1. */
        int slot(String name) {
            for (int i = names.size() - 1; i >= 0; i--) {
                if (names.get(i).equals(name)) {
                    return at.get(i);
                }
            }
            return -1;
        }

        int bind(String name) {
            names.add(name);
            at.add(slots);
            return slots++;
        }

        void unbind(int n) {
            for (int i = 0; i < n; i++) {
                names.remove(names.size() - 1);
                at.remove(at.size() - 1);
            }
        }
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
     * The value CEL gives the whole expression on this object, when this class knows it: a string,
     * an int, a bool, or a map or list (deja's own values, as CEL reads them; a message shows them
     * as CEL's value would show); else null, and CEL evaluates it. Every node's value here is the
     * one CEL gives it (that is what "known" means in this class), so a known value of the whole is
     * CEL's; and CEL, evaluating at most every node once, could not have run past the cost limit.
     */
    Object value(Object object, CelVariableResolver vars, long limit) {
        if (whole == null || wholeSteps > limit) {
            return null;
        }
        Object v = whole.eval(new Env(object, vars, locals, wholeSteps, limit));
        return v == UNKNOWN || v == NULL ? null : v;
    }

    /** Whether CEL certainly finds the condition false on this object. */
    boolean rejects(Object object, CelVariableResolver vars, long limit) {
        if (steps > limit) {
            return false;
        }
        Env env = new Env(object, vars, locals, steps, limit);
        for (Node e : operands) {
            if (e.eval(env) == Boolean.FALSE) {
                return true;
            }
        }
        return false;
    }

    /**
     * The nodes of an expression, each comprehension's loop (condition and step) counted once; -1
     * when it holds a comprehension within a comprehension's loop, or one of two variables.
     */
    private static long nodes(CelExpr e) {
        long n = 1;
        switch (e.getKind()) {
            case COMPREHENSION:
                {
                    CelExpr.CelComprehension c = e.comprehension();
                    if (!c.iterVar2().isEmpty()
                            || holdsComprehension(c.loopCondition())
                            || holdsComprehension(c.loopStep())) {
                        return -1;
                    }
                    return add(
                            add(add(n, nodes(c.iterRange())), nodes(c.accuInit())),
                            add(
                                    add(nodes(c.loopCondition()), nodes(c.loopStep())),
                                    nodes(c.result())));
                }
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

    private static boolean holdsComprehension(CelExpr e) {
        if (e.getKind() == CelExpr.ExprKind.Kind.COMPREHENSION) {
            return true;
        }
        boolean[] found = {false};
        CelTrees.withChildren(
                e,
                x -> {
                    found[0] |= holdsComprehension(x);
                    return x;
                },
                id -> id);
        return found[0];
    }

    /** A node of the condition, made ready once: the value CEL gives it on an object. */
    @FunctionalInterface
    private interface Node {
        Object eval(Env env);
    }

    private static Node constant(Object value) {
        return o -> value;
    }

    /** A node this class does not know (CEL evaluates what holds it). */
    private static Node unknown(Scope scope) {
        scope.partial = true;
        return constant(UNKNOWN);
    }

    /**
     * The node that gives the value CEL gives {@code e}, or {@link #UNKNOWN} when this class does
     * not know it; built once per condition (what each node is, its function and constants, where
     * each variable is kept), so that judging an object only reads fields and compares.
     */
    private static Node node(CelExpr e, Scope scope) {
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
                            return unknown(scope);
                    }
                }
            case IDENT:
                {
                    String name = e.ident().name();
                    int slot = scope.slot(name);
                    if (slot >= 0) {
                        return env -> env.locals[slot];
                    }
                    if (name.equals("object")) {
                        return env -> env.object;
                    }
                    return name.equals("params") ? Env::params : unknown(scope);
                }
            case SELECT:
                return select(
                        node(e.select().operand(), scope),
                        e.select().field(),
                        e.select().testOnly());
            case CALL:
                return call(e.call(), scope);
            case LIST:
                return list(e.list(), scope);
            case COMPREHENSION:
                return comprehension(e.comprehension(), scope);
            default:
                return unknown(scope);
        }
    }

    private static Node select(Node operand, String field, boolean testOnly) {
        if (testOnly) {
            // has() on a map: whether it holds the key (deja's views hold no null values: a view
            // holds what is not null)
            return o ->
                    operand.eval(o) instanceof Map<?, ?> m
                            ? (Object) m.containsKey(field)
                            : UNKNOWN;
        }
        return o -> operand.eval(o) instanceof Map<?, ?> m ? known(m.get(field)) : UNKNOWN;
    }

    /**
     * A value as CEL sees it, when it is one this class compares; a bool as {@link Boolean#TRUE} or
     * {@link Boolean#FALSE}, which this class tells apart by identity (reflection boxes a model's
     * {@code boolean} in a new object).
     */
    private static Object known(Object r) {
        if (r instanceof Boolean b) {
            return Boolean.valueOf(b);
        }
        return r instanceof String || r instanceof Long || r instanceof Map || r instanceof List
                ? r
                : UNKNOWN;
    }

    /** A list literal ({@code [x]} in the step of filter and map): known when its elements are. */
    private static Node list(CelExpr.CelList l, Scope scope) {
        if (!l.optionalIndices().isEmpty()) {
            return unknown(scope);
        }
        Node[] elements = new Node[l.elements().size()];
        for (int i = 0; i < elements.length; i++) {
            elements[i] = node(l.elements().get(i), scope);
        }
        return env -> {
            Object[] values = values(elements, env);
            return values == null ? UNKNOWN : List.of(values);
        };
    }

    /** The values of these nodes, or null when one is not known or is null. */
    private static Object[] values(Node[] nodes, Env env) {
        Object[] values = new Object[nodes.length];
        for (int i = 0; i < values.length; i++) {
            Object v = nodes[i].eval(env);
            if (v == UNKNOWN || v == NULL) {
                return null;
            }
            values[i] = v;
        }
        return values;
    }

    /**
     * A comprehension over a list: CEL's loop (accumulator, then for each element the condition,
     * which ends the loop when false, and the step; then the result), known when every value in it
     * is; its cost every element's condition and step (see the class).
     */
    private static Node comprehension(CelExpr.CelComprehension c, Scope scope) {
        if (!c.iterVar2().isEmpty()
                || holdsComprehension(c.loopCondition())
                || holdsComprehension(c.loopStep())) {
            return unknown(scope);
        }
        Node range = node(c.iterRange(), scope);
        Node init = node(c.accuInit(), scope);
        int accu = scope.bind(c.accuVar());
        int item = scope.bind(c.iterVar());
        Node condition = node(c.loopCondition(), scope);
        Node step = node(c.loopStep(), scope);
        scope.unbind(1); // the result sees the accumulator, not the element
        Node result = node(c.result(), scope);
        scope.unbind(1);
        long perElement = nodes(c.loopCondition()) + nodes(c.loopStep()) + 2;
        return env -> {
            if (!(range.eval(env) instanceof List<?> elements)) {
                return UNKNOWN;
            }
            env.cost += elements.size() * perElement;
            if (env.cost > env.limit) {
                return UNKNOWN;
            }
            Object acc = init.eval(env);
            for (Object x : elements) {
                if (acc == UNKNOWN) {
                    return UNKNOWN;
                }
                Object v = View.of(x);
                if (v == null) {
                    return UNKNOWN;
                }
                env.locals[accu] = acc;
                env.locals[item] = v;
                Object go = condition.eval(env);
                if (go == Boolean.FALSE) {
                    break;
                }
                if (go != Boolean.TRUE) {
                    return UNKNOWN;
                }
                acc = step.eval(env);
            }
            if (acc == UNKNOWN) {
                return UNKNOWN;
            }
            env.locals[accu] = acc;
            return result.eval(env);
        };
    }

    private static Node call(CelCall c, Scope scope) {
        String f = c.function();
        int n = c.args().size();
        if (c.target().isPresent()) {
            if (f.equals("size") && n == 0) {
                return function(f, List.of(c.target().get()), scope);
            }
            if (STRING_TESTS.contains(f) && n == 1) {
                return stringTest(f, node(c.target().get(), scope), node(c.args().get(0), scope));
            }
            if (f.equals("join") && n <= 1) {
                // the strings extension's list.join([separator]): a list of strings only
                Node list = node(c.target().get(), scope);
                Node sep = n == 0 ? constant("") : node(c.args().get(0), scope);
                return o -> join(list.eval(o), sep.eval(o));
            }
            return unknown(scope);
        }
        if (f.equals("size") || Functions.has(f, n)) {
            return function(f, c.args(), scope);
        }
        if (n == 1 && f.equals("!_")) {
            Node a = node(c.args().get(0), scope);
            return o -> a.eval(o) instanceof Boolean b ? (Object) !b : UNKNOWN;
        }
        if (n == 1 && f.equals("string")) {
            // string() of a string, an int or a bool (CEL's own text of each)
            Node a = node(c.args().get(0), scope);
            return o -> {
                Object v = a.eval(o);
                return v instanceof String || v instanceof Long || v instanceof Boolean
                        ? (Object) String.valueOf(v)
                        : UNKNOWN;
            };
        }
        if (n == 1 && f.equals("@not_strictly_false")) {
            // true unless false (an error is true): what a macro's loop goes on while
            Node a = node(c.args().get(0), scope);
            return o -> a.eval(o) instanceof Boolean b ? b : UNKNOWN;
        }
        if (n == 3 && f.equals("_?_:_")) {
            Node test = node(c.args().get(0), scope);
            Node then = node(c.args().get(1), scope);
            Node otherwise = node(c.args().get(2), scope);
            return o -> {
                Object t = test.eval(o);
                return t == Boolean.TRUE
                        ? then.eval(o)
                        : t == Boolean.FALSE ? otherwise.eval(o) : UNKNOWN;
            };
        }
        if (n != 2) {
            return unknown(scope);
        }
        Node a = node(c.args().get(0), scope);
        Node b = node(c.args().get(1), scope);
        switch (f) {
            case AND:
                return o -> junction(a, b, o, Boolean.FALSE);
            case OR:
                return o -> junction(a, b, o, Boolean.TRUE);
            case "_[_]":
                return o -> index(a.eval(o), b.eval(o));
            case "_+_":
                return o -> plus(a.eval(o), b.eval(o));
            case "_-_":
            case "_*_":
            case "_/_":
            case "_%_":
                return o -> arithmetic(f, a.eval(o), b.eval(o));
            case "@in":
                return o -> in(a.eval(o), b.eval(o));
            default:
                break;
        }
        if (COMPARISONS.contains(f)) {
            return o -> compare(f, a.eval(o), b.eval(o));
        }
        return unknown(scope);
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
    private static Object junction(Node x, Node y, Env env, Boolean decides) {
        Object a = x.eval(env);
        if (a == decides) {
            return decides;
        }
        Object b = y.eval(env);
        if (b == decides) {
            return decides;
        }
        Boolean other = !decides;
        return a == other && b == other ? other : UNKNOWN;
    }

    /**
     * {@code -}, {@code *}, {@code /} and {@code %} on two ints; an overflow or a division by zero
     * is CEL's error (not known here).
     */
    private static Object arithmetic(String f, Object a, Object b) {
        if (!(a instanceof Long x && b instanceof Long y)) {
            return UNKNOWN;
        }
        try {
            switch (f) {
                case "_-_":
                    return Math.subtractExact(x, y);
                case "_*_":
                    return Math.multiplyExact(x, y);
                default:
                    if (y == 0 || (x == Long.MIN_VALUE && y == -1)) {
                        return UNKNOWN;
                    }
                    return f.equals("_/_") ? x / y : x % y;
            }
        } catch (ArithmeticException e) {
            return UNKNOWN;
        }
    }

    private static Object join(Object list, Object separator) {
        if (!(list instanceof List<?> l) || !(separator instanceof String sep)) {
            return UNKNOWN;
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < l.size(); i++) {
            if (!(l.get(i) instanceof String x)) {
                return UNKNOWN;
            }
            b.append(i == 0 ? "" : sep).append(x);
        }
        return b.toString();
    }

    private static Object index(Object a, Object i) {
        if (a instanceof List<?> l && i instanceof Long x) {
            return x >= 0 && x < l.size() ? known(l.get((int) (long) x)) : UNKNOWN;
        }
        return UNKNOWN;
    }

    /**
     * {@code +} on two ints (an overflow is CEL's error), two strings or two lists (the accumulator
     * of filter and map); else not known.
     */
    private static Object plus(Object a, Object b) {
        if (a instanceof Long x && b instanceof Long y) {
            long r = x + y;
            return ((x ^ r) & (y ^ r)) < 0 ? UNKNOWN : (Object) r;
        }
        if (a instanceof String x && b instanceof String y) {
            return x + y;
        }
        if (a instanceof List<?> x && b instanceof List<?> y) {
            List<Object> r = new ArrayList<>(x.size() + y.size());
            r.addAll(x);
            r.addAll(y);
            return Collections.unmodifiableList(r);
        }
        return UNKNOWN;
    }

    /**
     * {@code in} a list whose elements are all strings, all ints or all bools, of a value of that
     * type; {@code in} a map, of a string key. Else (CEL's equality across numeric types and kinds)
     * not known.
     */
    private static Object in(Object x, Object container) {
        if (x == UNKNOWN || x == NULL) {
            return UNKNOWN;
        }
        if (container instanceof List<?> l) {
            for (Object e : l) {
                if (e == null || e.getClass() != x.getClass() || !plainValue(e)) {
                    return UNKNOWN;
                }
            }
            return l.contains(x);
        }
        if (container instanceof Map<?, ?> m && x instanceof String) {
            return m.containsKey(x);
        }
        return UNKNOWN;
    }

    private static boolean plainValue(Object v) {
        return v instanceof String || v instanceof Long || v instanceof Boolean;
    }

    /** size(), and deja's own functions (CEL's runtime calls the same implementation). */
    private static Node function(String f, List<CelExpr> args, Scope scope) {
        Node[] nodes = new Node[args.size()];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = node(args.get(i), scope);
        }
        if (f.equals("size")) {
            if (nodes.length != 1) {
                return unknown(scope);
            }
            Node a = nodes[0];
            return o -> size(a.eval(o));
        }
        return o -> {
            Object[] values = values(nodes, o);
            if (values == null) {
                return UNKNOWN;
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
