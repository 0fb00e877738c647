package dev.deja.rules.cel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.InputException;
import org.junit.jupiter.api.Test;

/** A rule file is read once by SnakeYAML: its values and where each text is written. */
class RuleFileTest {
    private static final String HEAD =
            "id: acme-x\ntitle: X\nseverity: low\nsource: haproxy\n"
                    + "caseIds: [ACME-0001]\n"
                    + "description: A rule.\nremediation: Fix it.\nlinks: [https://example.org/x]\n";

    @Test
    void theValuesAndTheirPositionsComeFromOneParse() {
        RuleFile f =
                RuleFile.parse(
                        "r/acme-x.yaml",
                        HEAD
                                + "check:\n  for: frontends\n"
                                + "  when: object.name == 'a'\n"
                                + "  message: '{{ object.name }} x'\n");
        assertEquals("acme-x", f.metadata().id());
        RuleFile.Check c = f.checks().get(0);
        assertEquals(java.util.List.of("frontends"), c.over());
        assertEquals("object.name == 'a'", c.when().value());
        assertEquals("r/acme-x.yaml:11:9", c.when().where(0));
        assertEquals("r/acme-x.yaml:12:13", c.message().where(0));
    }

    @Test
    void aDuplicateKeyOrAnEmptyFileIsStillAnError() {
        InputException dup =
                assertThrows(
                        InputException.class,
                        () ->
                                RuleFile.parse(
                                        "r/acme-x.yaml",
                                        HEAD
                                                + "title: Y\ncheck:\n  for: frontends\n  when: true\n"
                                                + "  message: m\n"));
        assertTrue(
                dup.getMessage().startsWith("r/acme-x.yaml: not valid YAML: "), dup.getMessage());
        for (String empty : new String[] {"", "~\n", "- a\n"}) {
            InputException e =
                    assertThrows(InputException.class, () -> RuleFile.parse("r/e.yaml", empty));
            assertEquals("r/e.yaml: expected a mapping at the top level", e.getMessage());
        }
    }
}
