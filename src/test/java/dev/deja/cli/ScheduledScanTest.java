package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.engine.Severity;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.report.Baseline;
import dev.deja.report.JsonReporter;
import dev.deja.report.Report;
import dev.deja.report.ReportFixtures;
import dev.deja.report.sink.LoopbackServer;
import dev.deja.snapshot.SnapshotFile;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The CLI side of scheduled runs: several outputs, --baseline, --pushgateway, --notify, exit codes.
 * The scans read an empty snapshot file (no rules are in this branch yet); what findings do is
 * tested on reports built by hand.
 */
class ScheduledScanTest {
    @TempDir Path tmp;

    Path snapshot() {
        Path p = tmp.resolve("snap.json");
        SnapshotFile.write(
                new SnapshotBuilder().read("kubernetes", "Deployment in all namespaces", 3).build(),
                p);
        return p;
    }

    static JsonNode json(Path p) throws Exception {
        return JsonMapper.builder().build().readTree(Files.readString(p));
    }

    @Test
    void writesSeveralOutputsInOneRun() throws Exception {
        Path json = tmp.resolve("out/deja.json");
        Path html = tmp.resolve("out/deja.html");
        Path prom = tmp.resolve("out/deja.prom");
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        snapshot().toString(),
                        "--output",
                        "json=" + json,
                        "--output",
                        "html=" + html,
                        "--output",
                        "prometheus=" + prom);
        assertEquals(0, r.code(), r.err());
        assertTrue(
                r.out().contains("No findings."),
                "primary text output still on stdout: " + r.out());
        assertEquals("1.4", json(json).path("schemaVersion").asString());
        assertTrue(Files.readString(html).startsWith("<!DOCTYPE html>"));
        String metrics = Files.readString(prom);
        assertTrue(metrics.contains("deja_scan_incomplete 0"), metrics);
        assertTrue(metrics.contains("deja_last_scan_timestamp_seconds "), metrics);
    }

    @Test
    void badOutputsAreUsageErrorsBeforeScanning() {
        TestSupport.Run r =
                TestSupport.run("scan", snapshot().toString(), "--output", "pdf=/tmp/x.pdf");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--output pdf=/tmp/x.pdf: unknown format 'pdf'"), r.err());
        r = TestSupport.run("scan", snapshot().toString(), "--output", "json");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("expected FORMAT=PATH"), r.err());
        r =
                TestSupport.run(
                        "scan",
                        snapshot().toString(),
                        "--format",
                        "json",
                        "-o",
                        tmp.resolve("a.json").toString(),
                        "--output",
                        "html=" + tmp.resolve("a.json"));
        assertEquals(2, r.code());
        assertTrue(r.err().contains("already an output"), r.err());
    }

    @Test
    void anUnwritableOutputIsReportedAndTheOthersAreWritten() throws Exception {
        Path blocker = tmp.resolve("file");
        Files.writeString(blocker, "x");
        Path good = tmp.resolve("good.json");
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        snapshot().toString(),
                        "--output",
                        "html=" + blocker.resolve("sub/deja.html"),
                        "--output",
                        "json=" + good);
        assertEquals(2, r.code());
        assertTrue(
                r.err()
                        .contains(
                                "html to "
                                        + blocker.resolve("sub/deja.html")
                                        + ": cannot write report"),
                r.err());
        assertTrue(Files.exists(good), "the other output is still written");
    }

    @Test
    void baselineMarksTheReportAndAMissingBaselineWarns() throws Exception {
        Path out = tmp.resolve("r.json");
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        snapshot().toString(),
                        "--format",
                        "json",
                        "-o",
                        out.toString(),
                        "--baseline",
                        tmp.resolve("none.json").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("not found: every finding counts as new"), r.err());
        assertFalse(json(out).path("baseline").path("found").asBoolean(true));

        Path out2 = tmp.resolve("r2.json");
        r =
                TestSupport.run(
                        "scan",
                        snapshot().toString(),
                        "--format",
                        "json",
                        "-o",
                        out2.toString(),
                        "--baseline",
                        out.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(json(out2).path("baseline").path("found").asBoolean());

        Files.writeString(tmp.resolve("bad.json"), "[1, 2");
        r =
                TestSupport.run(
                        "scan",
                        snapshot().toString(),
                        "--baseline",
                        tmp.resolve("bad.json").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("bad.json: baseline is not a deja JSON report"), r.err());
        r = TestSupport.run("scan", snapshot().toString(), "--baseline", "configmap:deja");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("expected configmap:NAMESPACE/NAME"), r.err());
    }

    @Test
    void onlyNewFindingsCountForTheExitCode() {
        ScanCommand cmd =
                new ScanCommand(
                        new Cli.Io(
                                new PrintWriter(new StringWriter()),
                                new PrintWriter(new StringWriter()),
                                new ByteArrayInputStream(new byte[0]),
                                Map.of(),
                                false));
        var now = ReportFixtures.typical();
        Report all = new Report(now, ReportFixtures.catalog(), "t", Severity.HIGH, false);
        assertEquals(ExitCodes.FINDINGS, cmd.exitCode(all));
        // the high and critical findings are in the baseline; only the medium AWS one is new
        String before =
                ReportFixtures.render(
                        new JsonReporter(),
                        ReportFixtures.report(
                                ReportFixtures.result(
                                        List.of(
                                                ReportFixtures.haproxy(7),
                                                ReportFixtures.kube("controller")))));
        Report withBase =
                all.withBaseline(Baseline.parse(before, "b.json").compare(now.findings()));
        assertEquals(ExitCodes.OK, cmd.exitCode(withBase), "medium is below --fail-on high");
        Report failMedium =
                new Report(now, ReportFixtures.catalog(), "t", Severity.MEDIUM, false)
                        .withBaseline(withBase.baseline());
        assertEquals(ExitCodes.FINDINGS, cmd.exitCode(failMedium));
    }

    @Test
    void pushesMetricsAndSurvivesAFailingPushgateway() throws Exception {
        try (LoopbackServer gw = new LoopbackServer()) {
            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            snapshot().toString(),
                            "--pushgateway",
                            gw.url() + "/metrics/job/deja/cluster/prod");
            assertEquals(0, r.code(), r.err());
            assertEquals(1, gw.requests.size());
            assertEquals("/metrics/job/deja/cluster/prod", gw.requests.get(0).path());
            assertTrue(
                    gw.requests
                            .get(0)
                            .body()
                            .contains("deja_findings_by_severity{severity=\"critical\"} 0"));

            gw.status = 503;
            Path out = tmp.resolve("kept.json");
            r =
                    TestSupport.run(
                            "scan",
                            snapshot().toString(),
                            "--format",
                            "json",
                            "-o",
                            out.toString(),
                            "--pushgateway",
                            gw.url());
            assertEquals(0, r.code(), "a failed push does not change the exit code: " + r.err());
            assertTrue(
                    r.err()
                            .contains(
                                    "deja: --pushgateway: metrics not pushed: PUT http://127.0.0.1:"),
                    r.err());
            assertTrue(r.err().contains("HTTP 503"), r.err());
            assertTrue(Files.exists(out), "the report is not lost");
        }
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        snapshot().toString(),
                        "--pushgateway",
                        LoopbackServer.refusedUrl());
        assertEquals(0, r.code());
        assertTrue(r.err().contains("cannot connect"), r.err());
    }

    @Test
    void notifyTakesItsUrlFromTheEnvironmentAndSendsNothingWhenNothingIsNew() throws Exception {
        try (LoopbackServer hook = new LoopbackServer()) {
            TestSupport.Run r =
                    TestSupport.runWith(
                            new ByteArrayInputStream(new byte[0]),
                            Map.of("DEJA_WEBHOOK", hook.url() + "/hooks/T000/B000/XXXX"),
                            "scan",
                            snapshot().toString(),
                            "--notify",
                            "env:DEJA_WEBHOOK");
            assertEquals(0, r.code(), r.err());
            assertEquals(0, hook.requests.size(), "no findings, no message");
        }
        TestSupport.Run r = TestSupport.run("scan", snapshot().toString(), "--notify", "env:NOPE");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("environment variable NOPE is not set"), r.err());
        r = TestSupport.run("scan", snapshot().toString(), "--notify", "hooks.slack.invalid/x");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("expected an http(s) URL"), r.err());
    }
}
