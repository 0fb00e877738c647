package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.deja.engine.Catalog;
import dev.deja.engine.Coverage;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Target;
import dev.deja.report.Report;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The placeholders of an s3:// output key, from the report: its target's cluster, the scan's start
 * in UTC.
 */
class S3KeyTest {
    static Report report(List<Coverage.Entry> entries, Map<String, String> scope, Instant at) {
        ScanResult r =
                new ScanResult(
                        List.of(), List.of(), List.of(), List.of(), new Coverage(entries), 0);
        return new Report(r, Catalog.packaged(), "test", null, false)
                .withRun(new Report.RunInfo(at, Duration.ZERO, scope));
    }

    @Test
    void placeholdersComeFromTheReport() {
        Instant at =
                Instant.parse("2026-03-04T05:06:07Z"); // a fixed scan time: only formatted, never
        // compared to now
        Coverage.Entry prod =
                new Coverage.Entry(
                                "kubernetes",
                                "Deployment in all namespaces",
                                Coverage.Status.READ,
                                null,
                                3)
                        .withTarget(Target.cluster("prod-eu"));
        assertEquals(
                "deja/prod-eu/2026-03-04-050607.json",
                Outputs.key(
                        "deja/{cluster}/{date}-{time}.json", report(List.of(prod), Map.of(), at)));
        Coverage.Entry stage =
                new Coverage.Entry(
                                "kubernetes",
                                "Deployment in all namespaces",
                                Coverage.Status.READ,
                                null,
                                3)
                        .withTarget(Target.cluster("stage"));
        assertEquals(
                "fleet.json",
                Outputs.key("{cluster}.json", report(List.of(prod, stage), Map.of(), at)),
                "a run over several clusters");
        assertEquals(
                "prod_x.json",
                Outputs.key(
                        "{cluster}.json",
                        report(
                                List.of(),
                                Map.of("cluster", "context prod x (https://10.0.0.1:6443)"),
                                at)),
                "from the scope; unsafe characters replaced");
        assertEquals(
                "local.json",
                Outputs.key("{cluster}.json", report(List.of(), Map.of("files", "a.cfg"), at)));
    }
}
