package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.collect.Collector;
import dev.deja.engine.Catalog;
import dev.deja.engine.Engine;
import dev.deja.engine.Figure;
import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.rules.RuleRegistry;
import dev.deja.source.ScanRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTML report's pictures: the examples scanned for real, their findings' figures drawn as
 * inline SVG, the page loaded in headless Chromium (its DOM and a screenshot); each picture is
 * there, labelled, and every number it draws is the finding's own ({@link Finding#figure()}).
 */
class HtmlFiguresTest {
    static ScanResult examples;

    @BeforeAll
    static void scanExamples() throws Exception {
        HtmlReporterTest.findChromium();
        ScanRequest.Builder b = ScanRequest.builder();
        b.paths = List.of("examples");
        b.processEnv = Map.of();
        Snapshot snapshot = Collector.collect(b.build());
        ScanResult r =
                new Engine(Catalog.packaged())
                        .run(
                                snapshot,
                                RuleRegistry.load(Catalog.packaged().rules()),
                                Engine.Options.defaults());
        // live saturation needs a running HAProxy: one finding as the rule makes it, with its
        // figure
        List<Finding> all = new ArrayList<>(r.findings());
        all.add(
                new Finding(
                                "haproxy-sessions-near-limit",
                                Severity.HIGH,
                                List.of("IL-0264"),
                                "frontend hc_ping at 127.0.0.1:9000 reached 190 of 200 sessions (95%)",
                                "Raise maxconn.",
                                new Location(
                                        "127.0.0.1:9000",
                                        null,
                                        "frontend",
                                        null,
                                        "hc_ping",
                                        null,
                                        null,
                                        null),
                                List.of(),
                                List.of(),
                                "127.0.0.1:9000 frontend hc_ping")
                        .withFigure(
                                new Figure.Saturation(
                                        "frontend hc_ping", "127.0.0.1:9000", 190, 200, 80, 95)));
        examples = r.withFindings(all);
    }

    private static <T extends Figure> List<T> figures(Class<T> kind) {
        List<T> out = new ArrayList<>();
        for (Finding f : examples.findings()) {
            if (kind.isInstance(f.figure())) {
                out.add(kind.cast(f.figure()));
            }
        }
        return out;
    }

    @Test
    void theRulesGiveTheNumbersTheirMessagesState() {
        // IL-0264's example: "one client at 300 req/s holds 200 (wants 300) of 200 slots"
        Finding tarpit =
                examples.findings().stream()
                        .filter(f -> f.ruleId().equals("haproxy-tarpit-holds-slots"))
                        .findFirst()
                        .orElseThrow();
        Figure.Slots s = (Figure.Slots) tarpit.figure();
        assertNotNull(s, "the tarpit finding carries its slots");
        assertTrue(
                tarpit.message()
                        .contains(
                                "one client at "
                                        + s.rps()
                                        + " req/s holds "
                                        + s.held()
                                        + " (wants "
                                        + s.wanted()
                                        + ") of "
                                        + s.slots()
                                        + " slots"),
                tarpit.message());
        for (Finding f : examples.findings()) {
            if (f.figure() instanceof Figure.ProbeWindows p) {
                assertTrue(f.message().contains("under " + p.stallSeconds() + "s"), f.message());
                assertTrue(
                        p.windows().stream()
                                .anyMatch(
                                        w ->
                                                f.message()
                                                        .contains(
                                                                "longer than "
                                                                        + w.seconds()
                                                                        + "s")),
                        f.message());
            }
            if (f.figure() instanceof Figure.ZoneTargets z) {
                assertTrue(
                        z.zones().stream()
                                .anyMatch(
                                        x ->
                                                x.healthy() == 0
                                                        && f.message()
                                                                .contains(
                                                                        "zone "
                                                                                + x.name()
                                                                                + " has no healthy target")),
                        f.message());
            }
        }
        assertEquals(1, figures(Figure.Slots.class).size());
        assertTrue(figures(Figure.ProbeWindows.class).size() >= 1);
        assertTrue(figures(Figure.ZoneTargets.class).size() >= 1);
    }

    /** The figure elements of a page, by their label. */
    private static List<String> chunks(String dom) {
        List<String> out = new ArrayList<>();
        Matcher m =
                Pattern.compile("<figure class=\"fig fig-.*?</figure>", Pattern.DOTALL)
                        .matcher(dom);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }

    private static String chunk(List<String> chunks, String kind, String... has) {
        for (String c : chunks) {
            boolean all = c.contains("data-figure=\"" + kind + "\"");
            for (String h : has) {
                all &= c.contains(h);
            }
            if (all) {
                return c;
            }
        }
        throw new AssertionError("no " + kind + " figure with " + List.of(has) + " in\n" + chunks);
    }

    @Test
    void drawnInChromiumLabelledWithTheFindingsNumbers(@TempDir Path tmp) throws Exception {
        HtmlReporterTest.needChromium();
        Report report = new Report(examples, Catalog.packaged(), "test", Severity.HIGH, false);
        Path page = HtmlReporterTest.OUT.resolve("figures.html").toAbsolutePath();
        Files.writeString(page, ReportFixtures.render(new HtmlReporter(), report));
        HtmlReporterTest.Browser b = HtmlReporterTest.load(page, tmp.resolve("p1"), "--dump-dom");
        assertEquals(0, b.code());
        assertEquals(List.of(), b.console(), "the figures log nothing (the CSP allows inline SVG)");
        List<String> figs = chunks(b.dom());
        int expected = 0;
        for (Finding f : examples.findings()) {
            expected += f.figure() == null ? 0 : 1;
        }
        assertEquals(expected, figs.size(), "one figure per finding with numbers to draw");
        for (String c : figs) {
            assertTrue(
                    c.contains("<svg") && c.contains("role=\"img\"") && c.contains("<title>"), c);
            assertTrue(c.contains("<figcaption>"), c);
        }
        for (Figure.Slots s : figures(Figure.Slots.class)) {
            String c = chunk(figs, "slots", s.frontend());
            assertTrue(c.contains("data-slots=\"" + s.slots() + "\""), c);
            assertTrue(c.contains("data-held=\"" + s.held() + "\""), c);
            assertTrue(c.contains("data-wanted=\"" + s.wanted() + "\""), c);
            assertTrue(c.contains("one client holds " + s.held() + " of " + s.slots()), c);
        }
        for (Figure.ProbeWindows p : figures(Figure.ProbeWindows.class)) {
            String c = chunk(figs, "probes", p.workload());
            assertTrue(c.contains("data-stall=\"" + p.stallSeconds() + "\""), c);
            for (Figure.Window w : p.windows()) {
                assertTrue(
                        c.contains(
                                "data-probe=\""
                                        + w.probe()
                                        + "\" data-seconds=\""
                                        + w.seconds()
                                        + "\""),
                        c);
            }
        }
        for (Figure.ZoneTargets z : figures(Figure.ZoneTargets.class)) {
            String c = chunk(figs, "zones", z.targetGroup());
            for (Figure.Zone x : z.zones()) {
                assertTrue(
                        c.contains(
                                "data-zone=\""
                                        + x.name()
                                        + "\" data-registered=\""
                                        + x.registered()
                                        + "\""),
                        c);
                assertTrue(c.contains(x.healthy() + " of " + x.registered() + " healthy"), c);
            }
        }
        Figure.Saturation sat = figures(Figure.Saturation.class).get(0);
        String c = chunk(figs, "saturation", sat.instance());
        assertTrue(c.contains("data-peak=\"190\"") && c.contains("data-limit=\"200\""), c);
        assertTrue(c.contains(">80%<") && c.contains(">95%<"), c);

        Path png = HtmlReporterTest.OUT.resolve("figures.png").toAbsolutePath();
        HtmlReporterTest.Browser shot =
                HtmlReporterTest.load(
                        page,
                        tmp.resolve("p2"),
                        "--hide-scrollbars",
                        "--window-size=1280,4000",
                        "--screenshot=" + png);
        assertEquals(List.of(), shot.console());
        assertTrue(Files.size(png) > 10_000, "screenshot written: " + png);
    }
}
