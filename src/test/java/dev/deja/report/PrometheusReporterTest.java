package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.Coverage;
import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PrometheusReporterTest {
    /**
     * A small parser of the 0.0.4 text format: every sample line, with HELP/TYPE checked to precede
     * it.
     */
    static Map<String, Double> samples(String text) {
        Map<String, Double> out = new LinkedHashMap<>();
        List<String> typed = new ArrayList<>();
        Pattern sample =
                Pattern.compile(
                        "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\",?)*\\})? (\\S+)");
        for (String line : text.split("\n")) {
            if (line.startsWith("# HELP ")) {
                continue;
            }
            if (line.startsWith("# TYPE ")) {
                String[] p = line.split(" ");
                assertEquals(4, p.length, line);
                assertTrue(List.of("gauge", "counter").contains(p[3]), line);
                typed.add(p[2]);
                continue;
            }
            Matcher m = sample.matcher(line);
            assertTrue(m.matches(), "not a valid sample line: " + line);
            assertTrue(typed.contains(m.group(1)), "sample before its TYPE line: " + line);
            out.put(
                    m.group(1) + (m.group(2) == null ? "" : m.group(2)),
                    Double.parseDouble(m.group(3)));
        }
        assertTrue(text.endsWith("\n"), "ends with a line feed");
        return out;
    }

    @Test
    void countsFindingsPerLabelSetAndUnderEachCase() {
        Instant at = Instant.parse("2026-11-29T02:00:00Z");
        Report r =
                ReportFixtures.report(
                                ReportFixtures.result(
                                        List.of(
                                                ReportFixtures.kube("a"),
                                                ReportFixtures.kube("b"),
                                                ReportFixtures.haproxy(3),
                                                ReportFixtures.aws())))
                        .withRun(new Report.RunInfo(at, Duration.ofMillis(1530)));
        Map<String, Double> s = samples(ReportFixtures.render(new PrometheusReporter(), r));
        String kube =
                "{rule=\"kube-lb-pods-fail-together\",severity=\"critical\",case=\"%s\",source=\"kubernetes\"}";
        assertEquals(2.0, s.get("deja_findings" + kube.formatted("IL-0495")));
        assertEquals(
                2.0,
                s.get("deja_findings" + kube.formatted("IL-0081")),
                "a finding counts under each of its cases");
        assertEquals(
                1.0,
                s.get(
                        "deja_findings{rule=\"haproxy-tarpit-holds-slots\",severity=\"high\",case=\"IL-0264\",source=\"haproxy\"}"));
        assertEquals(
                1.0,
                s.get(
                        "deja_findings{rule=\"aws-nlb-zone-health-hidden\",severity=\"medium\",case=\"IL-0364\",source=\"aws\"}"));
        assertEquals(2.0, s.get("deja_findings_by_severity{severity=\"critical\"}"));
        assertEquals(0.0, s.get("deja_findings_by_severity{severity=\"info\"}"));
        assertEquals(1.53, s.get("deja_scan_duration_seconds"), 1e-9);
        assertEquals(0.0, s.get("deja_scan_incomplete"));
        assertEquals((double) at.getEpochSecond(), s.get("deja_last_scan_timestamp_seconds"), 1e-9);
        assertTrue(
                s.keySet().stream().noneMatch(k -> k.startsWith("deja_new_findings")),
                "no baseline, no new-findings family");
    }

    @Test
    void incompleteScanAndLabelEscaping() {
        Finding odd =
                new Finding(
                        "haproxy-tarpit-holds-slots",
                        Severity.LOW,
                        List.of("IL-\"0264\\\nx"),
                        "m",
                        "Fix.",
                        Location.file("a.cfg", 1),
                        List.of(),
                        List.of());
        ScanResult base = ReportFixtures.result(List.of(odd));
        ScanResult r =
                new ScanResult(
                        base.findings(),
                        List.of(),
                        List.of(),
                        base.rulesRun(),
                        new Coverage(
                                List.of(
                                        new Coverage.Entry(
                                                "kubernetes",
                                                "Pod in prod",
                                                Coverage.Status.DENIED,
                                                "403",
                                                -1))),
                        1);
        String text = ReportFixtures.render(new PrometheusReporter(), ReportFixtures.report(r));
        Map<String, Double> s = samples(text);
        assertEquals(1.0, s.get("deja_scan_incomplete"));
        assertTrue(text.contains("case=\"IL-\\\"0264\\\\\\nx\""), text);
    }

    @Test
    void newFindingsFamilyWithABaseline() {
        ScanResult now = ReportFixtures.typical();
        String before =
                ReportFixtures.render(
                        new JsonReporter(),
                        ReportFixtures.report(
                                ReportFixtures.result(List.of(ReportFixtures.kube("controller")))));
        Report r =
                ReportFixtures.report(now)
                        .withBaseline(Baseline.parse(before, "b.json").compare(now.findings()));
        Map<String, Double> s = samples(ReportFixtures.render(new PrometheusReporter(), r));
        assertEquals(
                2, s.keySet().stream().filter(k -> k.startsWith("deja_new_findings{")).count());
        assertEquals(
                1.0,
                s.get(
                        "deja_new_findings{rule=\"aws-nlb-zone-health-hidden\",severity=\"medium\",case=\"IL-0364\",source=\"aws\"}"));
    }
}
