package dev.deja.rules.cel;

import com.google.common.collect.ImmutableList;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelSource;
import dev.cel.common.CelValidationException;
import dev.cel.common.CelValidationResult;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.ast.CelReference;
import dev.cel.common.types.CelType;
import dev.cel.common.types.SimpleType;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelVariableResolver;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How the CEL expressions of rule files are compiled: one at a time ({@link #direct}), or all of a
 * load together ({@link #batched}). CEL's type-checker builds its whole environment (the standard
 * declarations, the extensions', deja's functions) on every call, which is most of what compiling
 * one short expression costs: fifty rules hold some 150 expressions. A batch parses each expression
 * alone (its own source, positions and node ids, as {@code compile} gives them), checks them in one
 * call as the elements of one list ({@code [dyn(e1), dyn(e2), ...]}, each with its node ids moved
 * past the others'; {@code dyn()} keeps an element's type from being joined with its neighbours'),
 * and gives each back its own checked tree, ids, types and references, so that its program is the
 * one a compile of it alone gives. When anything fails in a batch, {@link #finish} says so and the
 * caller compiles again one at a time, which reports the first error in the files' order with the
 * same file:line:column and message as before.
 *
 * <p>A batch may be finished on a thread of its own ({@link UserRules#start}) while the scan reads
 * its inputs: an expression's program is set once, before any rule runs.
 */
final class Compilation {
    /** One expression of a rule file; its program once compiled. */
    static final class Expr {
        final RuleFile.Text where;
        final String text;
        final int offset;
        final CelType type;
        final String what;

        /** The checked expression as its program runs it, once compiled. */
        private CelAbstractSyntaxTree runnable;

        /** CEL's program, made when first needed (the shortcut may never need it). */
        private volatile CelRuntime.Program program;

        private Shortcut shortcut;

        /** The first expression of the same text and type, whose program this one shares. */
        private Expr same;

        private Expr(RuleFile.Text where, String text, int offset, CelType type, String what) {
            this.where = where;
            this.text = text;
            this.offset = offset;
            this.type = type;
            this.what = what;
        }

        private void set(CelAbstractSyntaxTree ast) {
            runnable = CelRule.runnable(where, offset, type, what, ast);
            shortcut = Shortcut.of(runnable);
        }

        /** Whether the shortcut knows every node ({@link Shortcut#complete}). */
        boolean shortcutComplete() {
            Shortcut s = same == null ? shortcut : same.shortcut;
            return s != null && s.complete();
        }

        /** Whether the condition is certainly false on this object ({@link Shortcut}). */
        boolean rejects(Object object, CelVariableResolver vars, long limit) {
            Shortcut s = same == null ? shortcut : same.shortcut;
            return s != null && type == SimpleType.BOOL && s.rejects(object, vars, limit);
        }

        /**
         * The expression's value on this object when {@link Shortcut#value} knows it (CEL's value),
         * else what CEL's program gives ({@link CelRule#eval}).
         */
        Object eval(Object object, CelVariableResolver vars, long limit, String what) {
            Shortcut s = same == null ? shortcut : same.shortcut;
            Object v = s == null ? null : s.value(object, vars, limit);
            return v != null ? v : CelRule.eval(program(), vars, limit, what);
        }

        CelRuntime.Program program() {
            Expr e = same == null ? this : same;
            CelRuntime.Program p = e.program;
            if (p == null) {
                if (e.runnable == null) {
                    throw new IllegalStateException("not compiled yet: " + what);
                }
                // two threads may both make it: the same pure function of the expression
                p = CelRule.program(e.where, e.offset, e.what, e.runnable);
                e.program = p;
            }
            return p;
        }
    }

    private final boolean batched;
    private final List<Expr> pending = new ArrayList<>();

    /**
     * The expressions compiled (or pending) so far by text and type: one written again (the same
     * {@code {{ object.meta.display }}} in the messages of many rules) is compiled once, and its
     * program, a pure function of its text and of CEL's environment, is shared.
     */
    private final Map<List<Object>, Expr> byText = new HashMap<>();

    private Compilation(boolean batched) {
        this.batched = batched;
    }

    /** Each expression compiled when added; an error is an {@link InputException} at once. */
    static Compilation direct() {
        return new Compilation(false);
    }

    /** The expressions compiled together by {@link #finish}. */
    static Compilation batched() {
        return new Compilation(true);
    }

    /**
     * One expression of the file, {@code text} the CEL source, {@code offset} where it starts in
     * the file's text (a template's hole).
     */
    Expr add(RuleFile.Text where, String text, int offset, CelType type, String what) {
        Expr e = new Expr(where, text, offset, type, what);
        Expr first = byText.get(List.of(text, type));
        if (first != null) {
            // compiles alone as the first did: the same program, or (in a batch) the same error,
            // reported by the one-at-a-time compile the caller falls back to
            e.same = first;
            return e;
        }
        if (batched) {
            pending.add(e);
        } else {
            e.set(CelRule.checked(where, text, offset, type, what));
        }
        byText.put(List.of(text, type), e);
        return e;
    }

    /**
     * Compiles the expressions added since the last call; false when one of them (or the batch)
     * fails: then some are not compiled, and the caller compiles them again with {@link #direct}
     * for the error.
     */
    boolean finish() {
        if (!batched || pending.isEmpty()) {
            return true;
        }
        try {
            return compileAll();
        } catch (CelValidationException | RuntimeException e) { // InputException included
            return false;
        } finally {
            pending.clear();
        }
    }

    /**
     * Compiles the expressions added since the last call, together; when that fails, one at a time
     * in the order they were added (the files' order), which throws the {@code InputException} of
     * the first that fails, as {@link #direct} would have when it was added.
     */
    void finishOrThrow() {
        List<Expr> added = List.copyOf(pending);
        if (finish()) {
            return;
        }
        for (Expr e : added) {
            e.set(CelRule.checked(e.where, e.text, e.offset, e.type, e.what));
        }
    }

    private boolean compileAll() throws CelValidationException {
        int n = pending.size();
        List<CelAbstractSyntaxTree> parsed = new ArrayList<>(n);
        long[] base = new long[n + 1];
        ImmutableList.Builder<CelExpr> elements = ImmutableList.builder();
        long next = 1;
        for (int i = 0; i < n; i++) {
            CelValidationResult r = CelRule.compiler().parse(pending.get(i).text);
            if (r.hasError()) {
                return false;
            }
            CelAbstractSyntaxTree ast = r.getAst();
            parsed.add(ast);
            base[i] = next;
            next += maxId(ast.getExpr()) + 1;
        }
        base[n] = next;
        for (int i = 0; i < n; i++) {
            CelExpr e = shift(parsed.get(i).getExpr(), base[i]);
            elements.add(CelExpr.ofCall(next++, Optional.empty(), "dyn", ImmutableList.of(e)));
        }
        CelExpr list = CelExpr.ofList(next, elements.build(), ImmutableList.of());
        CelValidationResult r =
                CelRule.compiler()
                        .check(
                                CelAbstractSyntaxTree.newParsedAst(
                                        list, CelSource.newBuilder().build()));
        if (r.hasError()) {
            return false;
        }
        CelAbstractSyntaxTree all = r.getAst();
        List<CelExpr> checked = all.getExpr().list().elements();
        List<Map<Long, CelReference>> refs = slices(all.getReferenceMap(), base, n);
        List<Map<Long, CelType>> types = slices(all.getTypeMap(), base, n);
        List<CelAbstractSyntaxTree> asts = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            CelExpr e = checked.get(i).call().args().get(0);
            asts.add(
                    CelAbstractSyntaxTree.newCheckedAst(
                            shift(e, -base[i]),
                            parsed.get(i).getSource(),
                            refs.get(i),
                            types.get(i)));
        }
        boolean needsRuntime = false;
        for (int i = 0; i < n; i++) {
            Expr x = pending.get(i);
            x.set(asts.get(i));
            needsRuntime |= !x.shortcutComplete();
        }
        if (needsRuntime) {
            // CEL's interpreter will judge objects: its runtime (standard functions, descriptor
            // pool; about 0.1 s of a cold JVM) is built on a thread of its own meanwhile. When the
            // shortcut knows every expression, it is built only if an object needs CEL after all.
            Thread t = new Thread(CelRule::runtime, "deja-cel-runtime");
            t.setDaemon(true);
            t.start();
        }
        return true;
    }

    /**
     * A map by node id cut by expression: expression i's entries are those of ids {@code base[i] <=
     * id < base[i + 1]}, their ids moved down by {@code base[i]}; the batch's own nodes are left
     * out.
     */
    private static <V> List<Map<Long, V>> slices(Map<Long, V> m, long[] base, int n) {
        List<Map<Long, V>> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new HashMap<>());
        }
        for (Map.Entry<Long, V> e : m.entrySet()) {
            long id = e.getKey();
            int i = Arrays.binarySearch(base, 0, n + 1, id);
            int piece = i >= 0 ? i : -i - 2; // the last base <= id
            if (piece >= 0 && piece < n) {
                out.get(piece).put(id - base[piece], e.getValue());
            }
        }
        return out;
    }

    /** The largest node id in an expression. */
    static long maxId(CelExpr e) {
        long[] max = {0};
        walk(
                e,
                x -> {
                    max[0] = Math.max(max[0], x.id());
                    return x;
                },
                id -> {
                    max[0] = Math.max(max[0], id);
                    return id;
                });
        return max[0];
    }

    /** The expression with every node id (map and struct entries' too) moved by {@code d}. */
    static CelExpr shift(CelExpr e, long d) {
        return walk(e, x -> x.toBuilder().setId(x.id() + d).build(), id -> id + d);
    }

    private interface NodeFn {
        CelExpr apply(CelExpr e);
    }

    private interface IdFn {
        long apply(long id);
    }

    /**
     * Rebuilds an expression bottom-up, {@code node} applied to each node once its children are.
     */
    private static CelExpr walk(CelExpr e, NodeFn node, IdFn entryId) {
        return node.apply(CelTrees.withChildren(e, x -> walk(x, node, entryId), entryId::apply));
    }
}
