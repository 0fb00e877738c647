package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

class OptTest {
    static class Base {
        private int inherited = 7;
    }

    static final class Options extends Base {
        private String name = "first";
        private boolean on;
        private List<String> items = new ArrayList<>();
    }

    @Test
    void optionsAreBoundToTheFieldsTheyNameWithTheirInitialValues() {
        Options o = new Options();
        CommandSpec spec = CommandSpec.create();
        spec.addOption(Opt.named("--name").value(String.class, o, "name"));
        spec.addOption(Opt.named("--on").flag(o, "on"));
        spec.addOption(Opt.named("--item").list(String.class, o, "items"));
        spec.addOption(Opt.named("--inherited").value(int.class, o, "inherited"));
        assertEquals("first", spec.findOption("--name").initialValue());
        assertEquals(7, (int) spec.findOption("--inherited").initialValue());
        new CommandLine(spec)
                .parseArgs(
                        "--name",
                        "second",
                        "--on",
                        "--item",
                        "a",
                        "--item",
                        "b",
                        "--inherited",
                        "9");
        assertEquals("second", o.name);
        assertTrue(o.on);
        assertEquals(List.of("a", "b"), o.items);
        assertEquals(9, ((Base) o).inherited);
    }

    @Test
    void aFieldThatIsMissingOrOfAnotherTypeFailsWhenTheCommandIsBuilt() {
        Options o = new Options();
        IllegalStateException missing =
                assertThrows(
                        IllegalStateException.class,
                        () -> Opt.named("--x").value(String.class, o, "nmae"));
        assertTrue(missing.getMessage().endsWith("has no field nmae"), missing.getMessage());
        IllegalStateException type =
                assertThrows(
                        IllegalStateException.class,
                        () -> Opt.named("--x").value(Integer.class, o, "name"));
        assertTrue(
                type.getMessage().endsWith(".name is a java.lang.String, not a java.lang.Integer"),
                type.getMessage());
        assertThrows(IllegalStateException.class, () -> Opt.named("--x").flag(o, "items"));
    }
}
