package dev.deja.rules.cel;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.ast.CelExpr.CelCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reorders the operands of each chain of {@code &&} (and of {@code ||}) in a checked expression so
 * that the cheap ones run first: an operand that iterates over a list (a macro such as {@code
 * filter} or {@code exists}) or calls one of deja's functions (which look objects up in the
 * inventory) moves after those that only read fields and compare. CEL defines both operators as
 * commutative, errors included ({@code false && error} and {@code error && false} are both false),
 * so the value of every expression is the same in either order; only the work differs. A rule
 * written {@code size(object.directives.filter(...)) > 2 && object.name.endsWith('x')} then tests
 * the name of each of thousands of backends before it counts their servers. Operands of the same
 * class keep their order, so a guard ({@code has(object.replicas) && object.replicas < 2}) stays in
 * front of what it guards.
 */
final class CheapFirst {
    private CheapFirst() {}

    private static final String AND = "_&&_";
    private static final String OR = "_||_";

    static CelAbstractSyntaxTree apply(CelAbstractSyntaxTree ast, Set<String> dearFunctions) {
        CelExpr e = ast.getExpr();
        CelExpr r = rewrite(e, dearFunctions);
        if (r.equals(e)) {
            return ast;
        }
        return CelAbstractSyntaxTree.newCheckedAst(
                r, ast.getSource(), ast.getReferenceMap(), ast.getTypeMap());
    }

    private static CelExpr rewrite(CelExpr e, Set<String> dear) {
        if (e.getKind() == CelExpr.ExprKind.Kind.CALL) {
            return call(e, dear);
        }
        return CelTrees.withChildren(e, x -> rewrite(x, dear), id -> id);
    }

    private static CelExpr call(CelExpr e, Set<String> dear) {
        CelCall c = e.call();
        String fn = c.function();
        if ((fn.equals(AND) || fn.equals(OR)) && c.args().size() == 2) {
            List<CelExpr> nodes = new ArrayList<>(); // the chain's own calls, outermost first
            List<CelExpr> operands = new ArrayList<>();
            flatten(e, fn, nodes, operands);
            List<CelExpr> cheap = new ArrayList<>();
            List<CelExpr> costly = new ArrayList<>();
            for (CelExpr o : operands) {
                CelExpr r = rewrite(o, dear);
                (isDear(r, dear) ? costly : cheap).add(r);
            }
            List<CelExpr> ordered = new ArrayList<>(cheap);
            ordered.addAll(costly);
            // rebuild left-deep, reusing the chain's node ids (each keeps its type and overload)
            CelExpr acc = ordered.get(0);
            for (int i = 1; i < ordered.size(); i++) {
                CelExpr node = nodes.get(nodes.size() - i);
                acc =
                        node.toBuilder()
                                .setCall(
                                        node.call().toBuilder()
                                                .setArg(0, acc)
                                                .setArg(1, ordered.get(i))
                                                .build())
                                .build();
            }
            return acc;
        }
        return CelTrees.withChildren(e, x -> rewrite(x, dear), id -> id);
    }

    private static void flatten(CelExpr e, String fn, List<CelExpr> nodes, List<CelExpr> operands) {
        if (e.getKind() == CelExpr.ExprKind.Kind.CALL
                && e.call().function().equals(fn)
                && e.call().args().size() == 2) {
            nodes.add(e);
            flatten(e.call().args().get(0), fn, nodes, operands);
            flatten(e.call().args().get(1), fn, nodes, operands);
        } else {
            operands.add(e);
        }
    }

    /** Whether an expression iterates or calls one of the functions that look objects up. */
    static boolean isDear(CelExpr e, Set<String> dear) {
        switch (e.getKind()) {
            case COMPREHENSION:
                return true;
            case SELECT:
                return isDear(e.select().operand(), dear);
            case CALL:
                {
                    CelCall c = e.call();
                    if (dear.contains(c.function())) {
                        return true;
                    }
                    if (c.target().isPresent() && isDear(c.target().get(), dear)) {
                        return true;
                    }
                    for (CelExpr a : c.args()) {
                        if (isDear(a, dear)) {
                            return true;
                        }
                    }
                    return false;
                }
            case LIST:
                for (CelExpr a : e.list().elements()) {
                    if (isDear(a, dear)) {
                        return true;
                    }
                }
                return false;
            case MAP:
                for (CelExpr.CelMap.Entry a : e.map().entries()) {
                    if (isDear(a.key(), dear) || isDear(a.value(), dear)) {
                        return true;
                    }
                }
                return false;
            case STRUCT:
                for (CelExpr.CelStruct.Entry a : e.struct().entries()) {
                    if (isDear(a.value(), dear)) {
                        return true;
                    }
                }
                return false;
            default:
                return false;
        }
    }
}
