package dev.deja.rules.cel;

import dev.cel.common.ast.CelExpr;
import dev.cel.common.ast.CelExpr.CelCall;
import dev.cel.common.ast.CelExpr.CelComprehension;
import java.util.List;
import java.util.function.LongUnaryOperator;
import java.util.function.UnaryOperator;

/** Rebuilding a CEL expression from its children, for the passes that rewrite checked trees. */
final class CelTrees {
    private CelTrees() {}

    /**
     * The node with each direct child replaced by {@code child} of it and each map and struct
     * entry's id by {@code entryId} of it; a node without children (a constant, an identifier) as
     * it is.
     */
    static CelExpr withChildren(
            CelExpr e, UnaryOperator<CelExpr> child, LongUnaryOperator entryId) {
        switch (e.getKind()) {
            case SELECT:
                return e.toBuilder()
                        .setSelect(
                                e.select().toBuilder()
                                        .setOperand(child.apply(e.select().operand()))
                                        .build())
                        .build();
            case CALL:
                {
                    CelCall c = e.call();
                    CelCall.Builder b = c.toBuilder();
                    if (c.target().isPresent()) {
                        b.setTarget(child.apply(c.target().get()));
                    }
                    for (int i = 0; i < c.args().size(); i++) {
                        b.setArg(i, child.apply(c.args().get(i)));
                    }
                    return e.toBuilder().setCall(b.build()).build();
                }
            case LIST:
                {
                    CelExpr.CelList.Builder b = e.list().toBuilder();
                    List<CelExpr> els = e.list().elements();
                    for (int i = 0; i < els.size(); i++) {
                        b.setElement(i, child.apply(els.get(i)));
                    }
                    return e.toBuilder().setList(b.build()).build();
                }
            case MAP:
                {
                    CelExpr.CelMap.Builder b = e.map().toBuilder();
                    List<CelExpr.CelMap.Entry> es = e.map().entries();
                    for (int i = 0; i < es.size(); i++) {
                        CelExpr.CelMap.Entry en = es.get(i);
                        b.setEntry(
                                i,
                                en.toBuilder()
                                        .setId(entryId.applyAsLong(en.id()))
                                        .setKey(child.apply(en.key()))
                                        .setValue(child.apply(en.value()))
                                        .build());
                    }
                    return e.toBuilder().setMap(b.build()).build();
                }
            case STRUCT:
                {
                    CelExpr.CelStruct.Builder b = e.struct().toBuilder();
                    List<CelExpr.CelStruct.Entry> es = e.struct().entries();
                    for (int i = 0; i < es.size(); i++) {
                        CelExpr.CelStruct.Entry en = es.get(i);
                        b.setEntry(
                                i,
                                en.toBuilder()
                                        .setId(entryId.applyAsLong(en.id()))
                                        .setValue(child.apply(en.value()))
                                        .build());
                    }
                    return e.toBuilder().setStruct(b.build()).build();
                }
            case COMPREHENSION:
                {
                    CelComprehension c = e.comprehension();
                    return e.toBuilder()
                            .setComprehension(
                                    c.toBuilder()
                                            .setIterRange(child.apply(c.iterRange()))
                                            .setAccuInit(child.apply(c.accuInit()))
                                            .setLoopCondition(child.apply(c.loopCondition()))
                                            .setLoopStep(child.apply(c.loopStep()))
                                            .setResult(child.apply(c.result()))
                                            .build())
                            .build();
                }
            default:
                return e;
        }
    }
}
