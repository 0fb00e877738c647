package dev.deja.rules.cel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CheapFirstTest {
    private static final CelCompiler COMPILER =
            CelCompilerFactory.standardCelCompilerBuilder()
                    .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                    .addVar("object", SimpleType.DYN)
                    .build();
    private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();

    private static CelAbstractSyntaxTree ast(String expr) throws Exception {
        return COMPILER.compile(expr).getAst();
    }

    private static Object eval(CelAbstractSyntaxTree ast, Map<String, Object> object) {
        try {
            return RUNTIME.createProgram(ast).eval(Map.of("object", object));
        } catch (CelEvaluationException e) {
            return "error";
        }
    }

    private static final List<Map<String, Object>> OBJECTS =
            List.of(
                    Map.of("name", "a", "items", List.of(1L, 200L)),
                    Map.of("name", "b", "items", List.of(1L, 200L)),
                    Map.of("name", "b", "items", List.of(1L)),
                    Map.of("name", "a"), // no items: the comprehension fails
                    Map.of("name", "b"),
                    Map.of("items", List.of(300L))); // no name: the comparison fails

    @Test
    void theIteratingOperandMovesLastAndEveryValueStaysTheSame() throws Exception {
        for (String e :
                List.of(
                        "object.items.exists(x, x > 100) && object.name == 'b'",
                        "object.items.exists(x, x > 100) || object.name == 'b'",
                        "size(object.items.filter(x, x > 0)) > 1 && object.name.startsWith('b')"
                                + " && object.name != 'c'",
                        "object.items.all(x, x > 0) && (object.name == 'a' ||"
                                + " object.name == 'b' && object.items.exists(x, x == 1))"
                                + " && object.name != 'c'",
                        "has(object.name) && object.name == 'b' && object.items.exists(x, x > 1)")) {
            CelAbstractSyntaxTree before = ast(e);
            CelAbstractSyntaxTree after = CheapFirst.apply(before, Set.of());
            for (Map<String, Object> o : OBJECTS) {
                assertEquals(eval(before, o), eval(after, o), e + " on " + o);
            }
            CelExpr first = after.getExpr(); // the chain's first operand: its leftmost leaf
            String chain = first.call().function();
            while (first.getKind() == CelExpr.ExprKind.Kind.CALL
                    && first.call().function().equals(chain)) {
                first = first.call().args().get(0);
            }
            assertFalse(
                    CheapFirst.isDear(first, Set.of()), "the first operand is a cheap one: " + e);
        }
    }

    @Test
    void operandsOfTheSameClassKeepTheirOrder() throws Exception {
        CelAbstractSyntaxTree guard = ast("has(object.name) && object.name == 'b'");
        assertEquals(guard.getExpr(), CheapFirst.apply(guard, Set.of()).getExpr());
        CelAbstractSyntaxTree moved = ast("object.items.exists(x, x > 1) && object.name == 'b'");
        CelExpr r = CheapFirst.apply(moved, Set.of()).getExpr();
        assertEquals(CelExpr.ExprKind.Kind.COMPREHENSION, r.call().args().get(1).getKind());
        // a function named as a lookup counts as costly too
        CelAbstractSyntaxTree call = ast("size(object.name) > 0 && object.name == 'b'");
        assertTrue(
                CheapFirst.isDear(
                        CheapFirst.apply(call, Set.of("size")).getExpr().call().args().get(1),
                        Set.of("size")));
    }
}
