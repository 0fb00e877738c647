package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.deja.engine.Figure;
import java.io.IOException;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonGenerator;

/**
 * A figure written member by member ({@link FigureJson#write}) is the tree Jackson makes of the
 * record ({@link FigureJson#json}), and reads back to the same record: every kind, nested records,
 * lists empty and full, nulls, fractions and large numbers. A field added to a figure's record and
 * not to the writer fails here.
 */
class FigureJsonTest {

    private static final List<Figure> FIGURES =
            List.of(
                    new Figure.Slots("frontend www", 200, 200, 300, 300, 1000, null),
                    new Figure.Slots(
                            "listen \"ü\\n\"",
                            Long.MAX_VALUE,
                            0,
                            -1,
                            7,
                            10_000,
                            new Figure.ProcessSlots(
                                    800,
                                    200,
                                    600,
                                    2,
                                    List.of(
                                            new Figure.Share("frontend a", -1, 600),
                                            new Figure.Share(null, 50, 50)))),
                    new Figure.Slots(
                            "f", 1, 1, 1, 1, 1, new Figure.ProcessSlots(1, 1, 0, 0, List.of())),
                    new Figure.ProbeWindows(
                            "Deployment shop/web",
                            30,
                            4,
                            List.of(
                                    new Figure.Window("readiness", 16, "marked unready"),
                                    new Figure.Window("liveness", 16, null))),
                    new Figure.ProbeWindows("Deployment a/b", 0, null, List.of()),
                    new Figure.ZoneTargets(
                            "arn:aws:elasticloadbalancing:eu-west-2:1:loadbalancer/net/x/y",
                            null,
                            List.of(
                                    new Figure.Zone("eu-west-2a", 2, 2),
                                    new Figure.Zone("eu-west-2c", 0, 2))),
                    new Figure.Saturation("fe", "10.0.0.1:8404", 0.1, 1e20, 80, 95),
                    new Figure.Saturation(null, null, 950.0, 1000, 0, 100));

    @Test
    void writtenMemberByMemberAsJacksonWritesTheRecord() throws IOException {
        for (Figure f : FIGURES) {
            StringWriter w = new StringWriter();
            try (JsonGenerator g = JsonText.generator(w)) {
                FigureJson.write(f, JsonOut.to(g));
            }
            StringWriter expected = new StringWriter();
            JsonText.writePretty(FigureJson.json(f), expected);
            assertEquals(expected.toString(), w.toString(), f.toString());

            JsonOut.Tree t = new JsonOut.Tree();
            FigureJson.write(f, t);
            assertEquals(FigureJson.json(f), t.root(), f.toString());
        }
    }

    @Test
    void readsBackToTheSameRecord() throws Exception {
        for (Figure f : FIGURES) {
            if (FigureJson.check(f) != null) {
                continue; // a figure the reader refuses (a negative count) is checked elsewhere
            }
            JsonOut.Tree t = new JsonOut.Tree();
            FigureJson.write(f, t);
            assertEquals(f, FigureJson.read(t.root()));
        }
    }
}
