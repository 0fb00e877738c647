package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A run over two clusters and an account (plus a file): every output says which target each finding
 * is about and groups or labels by target.
 */
class FleetReportsTest {
    static final Report FLEET = ReportFixtures.report(ReportFixtures.fleet());

    @Test
    void prometheusLabelsEverySeriesWithItsTarget() {
        String out = ReportFixtures.render(new PrometheusReporter(), FLEET);
        for (String line : out.lines().filter(l -> !l.startsWith("#")).toList()) {
            boolean file = line.contains("rule=\"" + ReportFixtures.HAPROXY_RULE + "\"");
            boolean labelled = line.contains("cluster=\"") || line.contains("account=\"");
            if (file) {
                assertFalse(labelled, line);
            }
        }
        assertTrue(
                out.contains(
                        "deja_findings{cluster=\"prod\",rule=\""
                                + ReportFixtures.KUBE_RULE
                                + "\",severity=\"critical\",case=\"IL-0495\",source=\"kubernetes\"} 1"),
                out);
        assertTrue(
                out.contains("deja_findings{cluster=\"stage\",rule=\"" + ReportFixtures.KUBE_RULE),
                out);
        assertTrue(
                out.contains(
                        "deja_findings{account=\"123456789012\",rule=\"" + ReportFixtures.AWS_RULE),
                out);
        assertTrue(
                out.contains("deja_findings_by_severity{cluster=\"prod\",severity=\"critical\"} 1"),
                out);
        assertTrue(
                out.contains("deja_findings_by_severity{cluster=\"prod\",severity=\"medium\"} 0"),
                out);
        assertTrue(out.contains("deja_scan_incomplete{cluster=\"stage\"} 1"), out);
        assertTrue(out.contains("deja_scan_incomplete{cluster=\"prod\"} 0"), out);
        assertTrue(out.contains("deja_scan_incomplete 0"), "the files were read in full: " + out);
        // one series per label set: no duplicates
        List<String> keys =
                out.lines()
                        .filter(l -> !l.startsWith("#"))
                        .map(l -> l.substring(0, l.lastIndexOf(' ')))
                        .toList();
        assertEquals(keys.size(), keys.stream().distinct().count(), out);
    }

    @Test
    void junitHasASuitePerTarget() {
        String out = ReportFixtures.render(new JunitReporter(), FLEET);
        Matcher m =
                Pattern.compile(
                                "<testsuite name=\"([^\"]+)\" tests=\"(\\d+)\" failures=\"(\\d+)\" errors=\"(\\d+)\"")
                        .matcher(out);
        List<String> suites = new ArrayList<>();
        while (m.find()) {
            suites.add(m.group(1) + " " + m.group(2) + "/" + m.group(3) + "/" + m.group(4));
        }
        // files: 1 finding (high, fails); prod: 1 critical; stage: 1 critical + 1 scope not read;
        // account: 1 medium
        assertEquals(
                List.of(
                        "deja.files 1/1/0",
                        "cluster prod 1/1/0",
                        "cluster stage 2/1/1",
                        "account 123456789012 1/1/0"),
                suites,
                out);
        assertTrue(
                out.contains("<testsuites name=\"deja\" tests=\"5\" failures=\"4\" errors=\"1\""),
                out);
    }

    @Test
    void htmlGroupsByCluster() {
        String out = ReportFixtures.render(new HtmlReporter(), FLEET);
        assertTrue(out.contains("<h2>Findings by cluster</h2>"), out);
        int files = out.indexOf("<h3 class=\"target-title\">Files</h3>");
        int prod = out.indexOf("<h3 class=\"target-title\">cluster prod</h3>");
        int stage = out.indexOf("<h3 class=\"target-title\">cluster stage</h3>");
        int account = out.indexOf("<h3 class=\"target-title\">account 123456789012</h3>");
        assertTrue(files > 0 && files < prod && prod < stage && stage < account, out);
        // the Kubernetes finding appears once in each cluster's section
        String prodSection = out.substring(prod, stage);
        assertTrue(
                prodSection.contains(ReportFixtures.KUBE_RULE)
                        && !prodSection.contains(ReportFixtures.AWS_RULE));
        assertTrue(out.substring(stage, account).contains("Not read in full"), out);
        // HTML ids stay unique although one case has findings in two clusters
        Matcher ids = Pattern.compile(" id=\"([^\"]+)\"").matcher(out);
        List<String> all = new ArrayList<>();
        while (ids.find()) {
            all.add(ids.group(1));
        }
        assertEquals(all.size(), all.stream().distinct().count(), all.toString());
    }

    @Test
    void textNamesTheTargetOfEachFindingAndGap() {
        String out = ReportFixtures.render(new TextReporter(), FLEET);
        assertTrue(
                out.contains("[cluster prod]")
                        && out.contains("[cluster stage]")
                        && out.contains("[account 123456789012]"),
                out);
        assertTrue(
                out.contains(
                        "  cluster stage: 1 finding (1 critical); not read in full (see below)"),
                out);
        assertTrue(
                out.contains("  - cluster stage: kubernetes: Service in all namespaces: denied"),
                out);
    }

    @Test
    void sarifCarriesTheTargetAndKeepsTwoClustersApart() {
        JsonNode sarif =
                JsonMapper.builder()
                        .build()
                        .readTree(ReportFixtures.render(new SarifReporter(), FLEET));
        List<String> fps = new ArrayList<>();
        for (JsonNode r : sarif.path("runs").get(0).path("results")) {
            if (r.path("ruleId").asString().equals(ReportFixtures.KUBE_RULE)) {
                assertTrue(r.path("properties").path("target").has("cluster"), r.toString());
                fps.add(r.path("partialFingerprints").path("dejaFingerprint/v2").asString());
            }
        }
        assertEquals(2, fps.size());
        assertFalse(fps.get(0).equals(fps.get(1)), "one alert per cluster");
    }
}
