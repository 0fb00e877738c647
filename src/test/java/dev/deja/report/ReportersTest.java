package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.InputException;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The format names the help lists and the formats {@link Reporters} can create are the same. */
class ReportersTest {
    @Test
    void everyListedFormatIsCreatedAndEachIsItsOwnClass() {
        List<String> names = List.copyOf(Reporters.available());
        assertEquals(
                List.of("text", "json", "sarif", "junit", "html", "prometheus", "github", "table"),
                names);
        for (String n : names) {
            Reporter r = Reporters.forName(n);
            assertNotNull(r, n);
            assertTrue(
                    r.getClass().getSimpleName().toLowerCase(Locale.ROOT).startsWith(n),
                    n + " -> " + r.getClass().getName());
            assertEquals(r.getClass(), Reporters.forName(n.toUpperCase(Locale.ROOT)).getClass(), n);
        }
    }

    @Test
    void anUnknownFormatNamesTheOnesThereAre() {
        InputException e = assertThrows(InputException.class, () -> Reporters.forName("xml"));
        assertEquals(
                "unknown format 'xml' (expected text, json, sarif, junit, html, prometheus, github,"
                        + " table)",
                e.getMessage());
    }
}
