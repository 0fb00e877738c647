package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.collect.Collector;
import dev.deja.engine.Catalog;
import dev.deja.engine.Engine;
import dev.deja.engine.Figure;
import dev.deja.engine.Finding;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.rules.RuleRegistry;
import dev.deja.source.ScanRequest;
import dev.deja.source.haproxy.HaproxyRuntimeTest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

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
        // live saturation needs a running HAProxy: liveSaturationOfARealHaproxyIsDrawn makes it
        List<Finding> all = new ArrayList<>(r.findings());
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
        // the other frontends' share of the process: "the global maxconn 800 (...) is shared by
        // every frontend of the process: while this client holds 200 of them, 600 are left for
        // frontend hchk_io (its maxconn 800)", as the figure has it
        Figure.ProcessSlots p = s.process();
        assertNotNull(p, "hc_ping shares the global maxconn with hchk_io");
        assertEquals(800, p.maxconn(), "global maxconn 800 of il-0264-before.cfg");
        assertEquals(s.held(), p.held());
        assertEquals(p.maxconn() - p.held(), p.left());
        assertEquals(1, p.otherFrontends());
        assertEquals(
                List.of(new Figure.Share("frontend hchk_io", 800, 600)),
                p.others(),
                "hchk_io's maxconn 5000 is capped by the global 800; it can get the 600 left");
        assertTrue(
                tarpit.notes().stream()
                        .anyMatch(
                                n ->
                                        n.startsWith("the global maxconn " + p.maxconn() + " (")
                                                && n.contains(
                                                        "while this client holds "
                                                                + p.held()
                                                                + " of them, "
                                                                + p.left()
                                                                + " are left for frontend hchk_io"
                                                                + " (its maxconn 800)")),
                tarpit.notes().toString());
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

    /**
     * Laid out by Chromium itself: in every figure of the examples, each label lies inside the
     * picture and no two labels overlap ({@link FigureLayout}).
     */
    @Test
    void labelsStayInsideTheirPictureAndNeverOverlap() throws Exception {
        HtmlReporterTest.needChromium();
        Report report = new Report(examples, Catalog.packaged(), "test", Severity.HIGH, false);
        String html = ReportFixtures.render(new HtmlReporter(), report);
        assertEquals(List.of(), FigureLayout.problems(html, "figures-layout", 3));
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
            Figure.ProcessSlots p = s.process();
            assertTrue(c.contains("data-process-slots=\"" + p.maxconn() + "\""), c);
            assertTrue(c.contains("data-process-held=\"" + p.held() + "\""), c);
            assertTrue(c.contains("data-process-left=\"" + p.left() + "\""), c);
            assertTrue(
                    c.contains(
                            ">Process: global maxconn "
                                    + p.maxconn()
                                    + ", shared by every frontend<"),
                    c);
            assertTrue(
                    c.contains(
                            ">"
                                    + p.held()
                                    + " held by this client, "
                                    + p.left()
                                    + " left for the other frontends:<"),
                    c);
            for (Figure.Share o : p.others()) {
                assertTrue(
                        c.contains(
                                "data-share=\""
                                        + o.frontend()
                                        + "\" data-maxconn=\""
                                        + o.maxconn()
                                        + "\" data-can-get=\""
                                        + o.canGet()
                                        + "\""),
                        c);
                assertTrue(
                        c.contains(
                                ">"
                                        + o.frontend()
                                        + ": maxconn "
                                        + o.maxconn()
                                        + ", can get "
                                        + o.canGet()
                                        + "<"),
                        c);
            }
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

    /**
     * Live saturation the real way: a real haproxy whose frontend (maxconn 10) holds ten client
     * connections to a backend that never answers (its kernel backlog accepts them), scanned
     * through its stats socket by {@code deja scan --haproxy-runtime}; the HTML written beside the
     * JSON is loaded in Chromium and its saturation figure draws the finding's numbers.
     */
    @Test
    void liveSaturationOfARealHaproxyIsDrawn(@TempDir Path dir) throws Exception {
        HtmlReporterTest.needChromium();
        String bin = HaproxyRuntimeTest.haproxy();
        Assumptions.assumeTrue(
                bin != null,
                "haproxy is not installed (apt-get install haproxy; .ci/run installs it):"
                        + " skipping the live saturation figure test");
        List<Socket> clients = new ArrayList<>();
        Process p = null;
        // never accepted: the kernel completes the handshakes into the backlog, and nothing answers
        try (ServerSocket backend = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int fePort;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                fePort = probe.getLocalPort();
            }
            Path sock = dir.resolve("admin.sock");
            Path cfg = dir.resolve("haproxy.cfg");
            Files.writeString(
                    cfg,
                    String.join(
                            "\n",
                            "global",
                            "    maxconn 100",
                            "    stats socket " + sock + " mode 600 level user",
                            "defaults",
                            "    mode tcp",
                            "    timeout connect 5s",
                            "    timeout client 60s",
                            "    timeout server 60s",
                            "frontend fe_small",
                            "    bind 127.0.0.1:" + fePort,
                            "    maxconn 10",
                            "    default_backend be_slow",
                            "backend be_slow",
                            "    server s1 127.0.0.1:" + backend.getLocalPort(),
                            ""));
            p =
                    new ProcessBuilder(bin, "-db", "-f", cfg.toString())
                            .redirectErrorStream(true)
                            .redirectOutput(dir.resolve("haproxy.log").toFile())
                            .start();
            String addr = "unix:" + sock;
            HaproxyRuntimeTest.waitUntil(
                    p, dir, () -> Files.exists(sock) && HaproxyRuntimeTest.answers(addr));
            for (int i = 0; i < 10; i++) {
                Socket c = new Socket();
                clients.add(c);
                c.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), fePort), 10_000);
            }
            HaproxyRuntimeTest.waitUntil(
                    p, dir, () -> HaproxyRuntimeTest.scur(addr, "fe_small") >= 10);
            Path page = HtmlReporterTest.OUT.resolve("live-saturation.html").toAbsolutePath();
            Files.createDirectories(page.getParent());
            Files.deleteIfExists(page);
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--format",
                            "json",
                            "--output",
                            "html=" + page,
                            "--haproxy-runtime",
                            addr,
                            cfg.toString(),
                            "--rules",
                            "haproxy-sessions-near-limit");
            assertEquals(1, r.code(), r.out() + r.err());
            JsonNode finding = null;
            for (JsonNode f : TestSupport.json(r.out()).path("findings")) {
                if (f.path("message").asString().startsWith("frontend fe_small at " + addr)) {
                    finding = f;
                }
            }
            assertNotNull(finding, r.out());
            String message = finding.path("message").asString();
            assertTrue(message.contains(" reached 10 of 10 sessions (100%"), message);
            // the finding's figure, as the JSON report carries it, holds the message's numbers
            JsonNode fig = finding.path("figure");
            assertEquals("saturation", fig.path("kind").asString(), finding.toString());
            assertEquals("frontend fe_small", fig.path("proxy").asString());
            assertEquals(addr, fig.path("instance").asString());
            assertEquals(10.0, fig.path("peak").asDouble());
            assertEquals(10.0, fig.path("limit").asDouble());

            HtmlReporterTest.Browser b =
                    HtmlReporterTest.load(page, dir.resolve("profile"), "--dump-dom");
            assertEquals(0, b.code());
            assertEquals(List.of(), b.console());
            String c = chunk(chunks(b.dom()), "saturation", addr);
            assertTrue(c.contains("data-peak=\"10\"") && c.contains("data-limit=\"10\""), c);
            assertTrue(
                    c.contains(">frontend fe_small at " + addr + ": peak 10 of 10<"),
                    "the figure's title states the message's numbers: " + c);
            assertTrue(
                    c.contains(">" + fig.path("warnPercent").asInt() + "%<")
                            && c.contains(">" + fig.path("highPercent").asInt() + "%<"),
                    c);
            assertTrue(c.contains(">limit 10<"), c);
        } finally {
            for (Socket c : clients) {
                c.close();
            }
            if (p != null) {
                p.destroy();
                p.waitFor();
            }
        }
    }

    /**
     * Figures travel in the JSON report: two scans' JSON reports (the IL-0264 example alone, and
     * every example) merged by {@code deja report merge} into an HTML fleet report, loaded in
     * Chromium: one figure per merged finding that had one, with the numbers its report carried.
     */
    @Test
    void aMergedFleetReportDrawsTheFiguresItsReportsCarry(@TempDir Path dir) throws Exception {
        HtmlReporterTest.needChromium();
        Path a = Files.createDirectories(dir.resolve("reports/edge-a"));
        Path b = Files.createDirectories(dir.resolve("reports/edge-b"));
        TestSupport.Run one =
                TestSupport.run(
                        "scan",
                        "examples/haproxy/il-0264-before.cfg",
                        "--format",
                        "json",
                        "-o",
                        a.resolve("report.json").toString());
        assertEquals(1, one.code(), one.err());
        TestSupport.Run all =
                TestSupport.run(
                        "scan",
                        "examples",
                        "--format",
                        "json",
                        "-o",
                        b.resolve("report.json").toString());
        assertEquals(1, all.code(), all.err());
        // what the reports carry: each figure by fingerprint
        Map<String, JsonNode> carried = new TreeMap<>();
        for (Path rep : List.of(a.resolve("report.json"), b.resolve("report.json"))) {
            for (JsonNode f : TestSupport.json(Files.readString(rep)).path("findings")) {
                if (f.has("figure")) {
                    carried.put(f.path("fingerprint").asString(), f.path("figure"));
                }
            }
        }
        assertTrue(carried.size() >= 3, "slots, probes and zones figures: " + carried.keySet());
        Path page = HtmlReporterTest.OUT.resolve("fleet-figures.html").toAbsolutePath();
        Files.createDirectories(page.getParent());
        Files.deleteIfExists(page);
        Path mergedJson = dir.resolve("fleet.json");
        TestSupport.Run m =
                TestSupport.run(
                        "report",
                        "merge",
                        "--format",
                        "html",
                        "-o",
                        page.toString(),
                        "--output",
                        "json=" + mergedJson,
                        dir.resolve("reports").toString());
        assertTrue(m.code() == 0 || m.code() == 1, m.out() + m.err());
        // the merged JSON carries them again, unchanged
        int merged = 0;
        for (JsonNode f : TestSupport.json(Files.readString(mergedJson)).path("findings")) {
            if (f.has("figure")) {
                merged++;
                assertEquals(
                        carried.get(f.path("fingerprint").asString()),
                        f.path("figure"),
                        f.path("message").asString());
            }
        }
        assertEquals(carried.size(), merged, "every figure once, whatever the targets");

        HtmlReporterTest.Browser br = HtmlReporterTest.load(page, dir.resolve("p"), "--dump-dom");
        assertEquals(0, br.code());
        assertEquals(List.of(), br.console());
        List<String> figs = chunks(br.dom());
        assertEquals(carried.size(), figs.size(), "one figure per merged finding that had one");
        for (JsonNode fig : carried.values()) {
            switch (fig.path("kind").asString()) {
                case "slots" -> {
                    String c = chunk(figs, "slots", fig.path("frontend").asString());
                    assertTrue(c.contains("data-slots=\"" + fig.path("slots").asLong() + "\""), c);
                    assertTrue(c.contains("data-held=\"" + fig.path("held").asLong() + "\""), c);
                    JsonNode proc = fig.path("process");
                    assertTrue(
                            c.contains("data-process-left=\"" + proc.path("left").asLong() + "\""),
                            c);
                }
                case "probes" -> {
                    String c = chunk(figs, "probes", fig.path("workload").asString());
                    assertTrue(
                            c.contains("data-stall=\"" + fig.path("stallSeconds").asInt() + "\""),
                            c);
                }
                case "zones" -> {
                    String c = chunk(figs, "zones", fig.path("targetGroup").asString());
                    for (JsonNode z : fig.path("zones")) {
                        assertTrue(
                                c.contains(
                                        z.path("healthy").asInt()
                                                + " of "
                                                + z.path("registered").asInt()
                                                + " healthy"),
                                c);
                    }
                }
                default -> throw new AssertionError("unexpected figure " + fig);
            }
        }
    }

    /** A figure a report carries that deja did not write is not drawn, and the finding says why. */
    @Test
    void aFigureThatCannotBeReadIsNotDrawnAndTheFindingSaysWhy(@TempDir Path dir) throws Exception {
        Path rep = Files.createDirectories(dir.resolve("reports/edge")).resolve("report.json");
        TestSupport.Run one =
                TestSupport.run(
                        "scan",
                        "examples/haproxy/il-0264-before.cfg",
                        "--format",
                        "json",
                        "-o",
                        rep.toString());
        assertEquals(1, one.code(), one.err());
        ObjectNode root = (ObjectNode) TestSupport.json(Files.readString(rep));
        int changed = 0;
        for (JsonNode f : root.path("findings")) {
            if (f.has("figure")) {
                ((ObjectNode) f.path("figure")).put("kind", "pie").put("slices", 3);
                changed++;
            }
        }
        assertEquals(1, changed);
        Files.writeString(rep, root.toString());
        TestSupport.Run m =
                TestSupport.run(
                        "report", "merge", "--format", "json", dir.resolve("reports").toString());
        assertTrue(m.code() == 0 || m.code() == 1, m.out() + m.err());
        List<String> notes = new ArrayList<>();
        for (JsonNode f : TestSupport.json(m.out()).path("findings")) {
            assertTrue(!f.has("figure"), f.toString());
            f.path("notes").forEach(n -> notes.add(n.asString()));
        }
        assertTrue(
                notes.contains(
                        "its report's figure is not drawn: figure kind 'pie' is not one of slots,"
                                + " probes, zones, saturation"),
                notes.toString());
    }
}
