package dev.deja.rules.cel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cel.common.types.SimpleType;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelVariableResolver;
import dev.deja.engine.InputException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The two ways CEL user rules are made faster without changing a finding: {@link Shortcut} (a
 * condition found false without the interpreter only where CEL finds it false) and {@link
 * Compilation#batched} (expressions type-checked together give the programs, values and error
 * messages of expressions compiled alone).
 */
class ShortcutTest {
    private static RuleFile.Text text(String s) {
        int[] zeros = new int[s.length() + 1];
        Arrays.fill(zeros, 1);
        return new RuleFile.Text(s, "t.yaml", zeros, zeros);
    }

    /** The object, and the rule's parameters. */
    private static CelVariableResolver vars(Object object) {
        return n ->
                switch (n) {
                    case "object" -> Optional.of(object);
                    case "params" -> Optional.of(Map.of("limit", 2L, "suffix", "07"));
                    default -> Optional.empty();
                };
    }

    /** CEL's value on the object, or "error: ..." */
    private static Object cel(CelRuntime.Program p, Object object) {
        return orError(() -> CelRule.eval(p, vars(object), CelRule.DEFAULT_COST_LIMIT, "when"));
    }

    private static Object orError(Supplier<Object> value) {
        try {
            return value.get();
        } catch (CelRule.Failure e) {
            return "error: " + e.getMessage();
        }
    }

    private static final List<Map<String, Object>> OBJECTS =
            List.of(
                    Map.of("name", "web-07", "replicas", 1L, "items", List.of(1L, 200L)),
                    Map.of("name", "web-08", "replicas", 3L, "items", List.of(1L)),
                    Map.of("name", "db-07", "replicas", 2L),
                    Map.of("name", "db-08", "kind", "Deployment"),
                    Map.of("replicas", 5L, "items", List.of()),
                    Map.of("name", "x", "meta", Map.of("labels", Map.of("app", "x"))));

    private static final List<String> CONDITIONS =
            List.of(
                    "object.name.endsWith('07') && object.replicas < 2",
                    "size(object.items.filter(i, i > 100)) > 0 && object.name.endsWith('07')",
                    "object.replicas > 1 && object.name.startsWith('db')",
                    "object.kind != 'Deployment' && size(object.items) > 1",
                    "object.missing == 'a' && object.name == 'web-07'",
                    "object.missing == 'a' || object.name == 'web-07'",
                    "!(object.name.contains('web')) && object.replicas >= 2",
                    "size(object.name) > 5 && object.items[1] == 200",
                    "object.meta.labels.app == 'x' || object.replicas == 5",
                    "object.name == null || object.replicas <= 1",
                    "(object.replicas == 1 || object.replicas == 3) && object.name != 'web-08'",
                    // comprehensions, in, the conditional
                    "object.items.exists(i, i > 100) && object.name.endsWith('07')",
                    "object.items.all(i, i < 100) && object.replicas < 3",
                    "object.items.exists_one(i, i == 1) && object.name != 'x'",
                    "size(object.items.map(i, i + 1).filter(j, j > 2)) > 0 || object.name == 'db-07'",
                    "object.name in ['web-07', 'db-08'] && object.replicas != 3",
                    "'app' in object.meta.labels && object.name == 'x'",
                    "object.items.exists(i, object.items.exists(j, j > i)) && object.replicas > 9",
                    "(object.replicas > 2 ? object.name : 'none').startsWith('db') && true",
                    "object.replicas < params.limit && object.name.endsWith(params.suffix)");

    @Test
    void aConditionIsRejectedOnlyWhereCelFindsItFalse() {
        int rejected = 0;
        for (String c : CONDITIONS) {
            Compilation direct = Compilation.direct();
            Compilation.Expr e = direct.add(text(c), c, 0, SimpleType.BOOL, "when");
            for (Map<String, Object> o : OBJECTS) {
                Object value = cel(e.program(), o);
                if (e.rejects(o, vars(o), CelRule.DEFAULT_COST_LIMIT)) {
                    rejected++;
                    assertEquals(false, value, c + " on " + o);
                }
            }
        }
        // the shortcut is taken where it can be: a false name test, a false comparison after a
        // missing field (CEL: error && false is false)
        assertTrue(rejected >= 20, "rejected " + rejected);
        Compilation.Expr e =
                Compilation.direct()
                        .add(
                                text(CONDITIONS.get(4)),
                                CONDITIONS.get(4),
                                0,
                                SimpleType.BOOL,
                                "when");
        assertTrue(e.rejects(OBJECTS.get(1), vars(OBJECTS.get(1)), CelRule.DEFAULT_COST_LIMIT));
        assertEquals(false, cel(e.program(), OBJECTS.get(1)));
        // an error that decides (error || false) is left to CEL, which reports it
        Compilation.Expr or =
                Compilation.direct()
                        .add(
                                text(CONDITIONS.get(5)),
                                CONDITIONS.get(5),
                                0,
                                SimpleType.BOOL,
                                "when");
        assertFalse(or.rejects(OBJECTS.get(1), vars(OBJECTS.get(1)), CelRule.DEFAULT_COST_LIMIT));
        assertTrue(String.valueOf(cel(or.program(), OBJECTS.get(1))).startsWith("error: "));
    }

    @Test
    void theShortcutKeepsTheCostLimit() {
        String c = CONDITIONS.get(0);
        Compilation.Expr e = Compilation.direct().add(text(c), c, 0, SimpleType.BOOL, "when");
        assertTrue(e.rejects(OBJECTS.get(1), vars(OBJECTS.get(1)), CelRule.DEFAULT_COST_LIMIT));
        // a limit CEL would run past before it finds the name test false: CEL decides
        assertFalse(e.rejects(OBJECTS.get(1), vars(OBJECTS.get(1)), 2));
    }

    @Test
    void aComprehensionIsJudgedWithoutCelWithinItsCost() {
        String c = "object.items.exists(i, i > 100) && object.name.endsWith('07')";
        Compilation.Expr e = Compilation.direct().add(text(c), c, 0, SimpleType.BOOL, "when");
        List<Long> many = new ArrayList<>();
        for (long i = 0; i < 1000; i++) {
            many.add(i % 50);
        }
        Map<String, Object> o = Map.of("name", "web-07", "items", many);
        assertEquals(false, cel(e.program(), o));
        // no element is over 100: known false at once, without CEL's interpreter
        assertTrue(e.rejects(o, vars(o), CelRule.DEFAULT_COST_LIMIT));
        // the loop's cost counted in full: under a limit it might pass, CEL decides (and stops)
        assertFalse(e.rejects(o, vars(o), 1_000));
        assertTrue(
                String.valueOf(orError(() -> CelRule.eval(e.program(), vars(o), 1_000, "w")))
                        .contains("cost limit"));
        // a value from a loop: the same as CEL's
        String v = "size(object.items.filter(i, i > 40))";
        Compilation.Expr x = Compilation.direct().add(text(v), v, 0, SimpleType.DYN, "v");
        assertEquals(180L, cel(x.program(), o));
        assertEquals(180L, value(x, o));
        Shortcut s =
                Shortcut.of(
                        CheapFirst.apply(
                                CelRule.checked(text(v), v, 0, SimpleType.DYN, "v"),
                                CelRule.LOOKUPS));
        assertEquals(180L, s.value(o, vars(o), CelRule.DEFAULT_COST_LIMIT));
        assertEquals(null, s.value(o, vars(o), 1_000));
    }

    @Test
    void aBatchCompilesAsOneExpressionAtATimeDoes() {
        List<String> exprs = new ArrayList<>(CONDITIONS);
        exprs.add("object.meta.labels.missing == 'y'"); // an error with its position
        exprs.add("[1, 2].map(x, x * 2)");
        exprs.add("{'a': object.name}.a");
        Compilation batch = Compilation.batched();
        List<Compilation.Expr> batched = new ArrayList<>();
        List<Compilation.Expr> alone = new ArrayList<>();
        for (String x : exprs) {
            batched.add(batch.add(text(x), x, 0, SimpleType.DYN, "e"));
            alone.add(Compilation.direct().add(text(x), x, 0, SimpleType.DYN, "e"));
        }
        assertThrows(IllegalStateException.class, () -> batched.get(0).program());
        assertTrue(batch.finish());
        int errors = 0;
        for (int i = 0; i < exprs.size(); i++) {
            for (Map<String, Object> o : OBJECTS) {
                Object a = cel(alone.get(i).program(), o);
                assertEquals(a, cel(batched.get(i).program(), o), exprs.get(i) + " on " + o);
                if (String.valueOf(a).startsWith("error: ")) {
                    errors++;
                }
            }
        }
        assertTrue(errors > 0, "some expressions fail on some objects, with a position");
    }

    @Test
    void aBatchWithAnErrorLeavesItToTheOneAtATimeCompile() {
        Compilation batch = Compilation.batched();
        batch.add(text("object.name == 'a'"), "object.name == 'a'", 0, SimpleType.BOOL, "when");
        batch.add(text("object.name == "), "object.name == ", 0, SimpleType.BOOL, "when");
        assertFalse(batch.finish());
        Compilation types = Compilation.batched();
        types.add(text("1 + 'a'"), "1 + 'a'", 0, SimpleType.DYN, "e");
        assertFalse(types.finish());
        // the same error, one at a time: file:line:column and CEL's message
        InputException e =
                assertThrows(
                        InputException.class,
                        () ->
                                Compilation.direct()
                                        .add(
                                                text("object.name == "),
                                                "object.name == ",
                                                0,
                                                SimpleType.BOOL,
                                                "when"));
        assertNotNull(e.getMessage());
        assertTrue(e.getMessage().startsWith("t.yaml:1:1: when: "), e.getMessage());
    }

    @Test
    void anExpressionWrittenTwiceIsCompiledOnceAndGivesTheSameValues() {
        for (Compilation cel : List.of(Compilation.batched(), Compilation.direct())) {
            String x = "object.name.endsWith('07') && object.replicas < 2";
            Compilation.Expr first = cel.add(text(x), x, 0, SimpleType.BOOL, "a.when");
            Compilation.Expr again = cel.add(text(x), x, 0, SimpleType.BOOL, "b.when");
            // the same text as another type is another program (a message's hole, not a when)
            Compilation.Expr asHole = cel.add(text(x), x, 0, SimpleType.DYN, "'{{x}}'");
            assertTrue(cel.finish());
            assertSame(first.program(), again.program());
            assertNotSame(first.program(), asHole.program());
            for (Map<String, Object> o : OBJECTS) {
                Object a = cel(first.program(), o);
                Compilation.Expr alone =
                        Compilation.direct().add(text(x), x, 0, SimpleType.BOOL, "when");
                assertEquals(cel(alone.program(), o), cel(again.program(), o), x + " on " + o);
                assertEquals(a, cel(asHole.program(), o));
                assertEquals(
                        alone.rejects(o, vars(o), CelRule.DEFAULT_COST_LIMIT),
                        again.rejects(o, vars(o), CelRule.DEFAULT_COST_LIMIT));
            }
        }
    }

    @Test
    void aBatchWithAnErrorWrittenTwiceStillFails() {
        Compilation batch = Compilation.batched();
        Compilation.Expr a = batch.add(text("1 + 'a'"), "1 + 'a'", 0, SimpleType.DYN, "e");
        Compilation.Expr b = batch.add(text("1 + 'a'"), "1 + 'a'", 0, SimpleType.DYN, "f");
        assertFalse(batch.finish());
        assertThrows(IllegalStateException.class, a::program);
        assertThrows(IllegalStateException.class, b::program);
    }

    /** The value of the expression as a rule sees it, or "error: ..." */
    private static Object value(Compilation.Expr e, Object o) {
        return orError(() -> e.eval(o, vars(o), CelRule.DEFAULT_COST_LIMIT, "when"));
    }

    @Test
    void aValueIsGivenWithoutCelOnlyWhereItIsCelsValue() {
        List<String> exprs = new ArrayList<>(CONDITIONS);
        exprs.addAll(
                List.of(
                        "object.name",
                        "object.replicas",
                        "size(object.name)",
                        "object.items[0]",
                        "object.meta.labels",
                        "object.meta.labels.app",
                        "object.name == null",
                        "object.items.map(i, i * 2)",
                        "object.replicas + 1",
                        "object.items.filter(i, i > 100)",
                        "size(object.items.filter(i, i > 0))",
                        "object.items.exists(i, i == 200)",
                        "object.items.all(i, i == 1)",
                        "object.name + '-x'",
                        "object.replicas in [1, 2]",
                        "object.replicas > 1 ? 'many' : 'one'",
                        "9223372036854775807 + size(object.items)",
                        "has(object.meta) && has(object.meta.labels.app)",
                        "object.items.map(i, string(i)).join(', ')",
                        "[object.name, 'x'].join()",
                        "string(object.replicas) + ' replicas'",
                        "object.replicas * 1000 - 1",
                        "object.replicas / (object.replicas - 1)",
                        "object.replicas % 2 == 1",
                        "9223372036854775807 * object.replicas"));
        int known = 0;
        for (String x : exprs) {
            Compilation.Expr e = Compilation.direct().add(text(x), x, 0, SimpleType.DYN, "e");
            Shortcut s =
                    Shortcut.of(
                            CheapFirst.apply(
                                    CelRule.checked(text(x), x, 0, SimpleType.DYN, "e"),
                                    CelRule.LOOKUPS));
            for (Map<String, Object> o : OBJECTS) {
                Object cel = cel(e.program(), o);
                assertEquals(cel, value(e, o), x + " on " + o);
                Object shortcut =
                        s == null ? null : s.value(o, vars(o), CelRule.DEFAULT_COST_LIMIT);
                if (shortcut != null) {
                    known++;
                    assertEquals(cel, shortcut, x + " on " + o);
                    // what a message shows
                    assertEquals(Template.text(cel), Template.text(shortcut), x + " on " + o);
                    // past the cost limit CEL decides, and stops
                    assertEquals(null, s.value(o, vars(o), 1));
                }
            }
        }
        assertTrue(known >= 30, "known " + known);
    }
}
