package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.Coverage;
import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import dev.deja.engine.Suppressions;
import dev.deja.engine.Target;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON report is written straight through the streaming generator, and its tree ({@link
 * JsonReporter#tree}) is built from the same definition: both must give what the former whole-tree
 * reporter ({@link TreeJsonReport}) gave, byte for byte, and the same tree (node types included:
 * int members stay IntNode, long ones LongNode).
 */
class JsonReportStreamTest {
    private static String old(Report r) {
        StringWriter w = new StringWriter();
        JsonText.writePretty(TreeJsonReport.tree(r), w);
        return w + "\n";
    }

    private static String printedTree(Report r) {
        StringWriter w = new StringWriter();
        JsonText.writePretty(JsonReporter.tree(r), w);
        return w + "\n";
    }

    private static void same(Report r) {
        String expected = old(r);
        assertEquals(expected, ReportFixtures.render(new JsonReporter(), r), "streamed report");
        assertEquals(expected, printedTree(r), "tree printed");
        // equal trees, node types included (a message without both trees: they are megabytes)
        assertTrue(
                TreeJsonReport.tree(r).equals(JsonReporter.tree(r)),
                "the tree differs from the former one");
        for (Finding f : r.result().findings()) {
            assertTrue(
                    TreeJsonReport.findingNode(f, r).equals(JsonReporter.findingNode(f, r)),
                    f.fingerprint());
            if (f.target() != null) {
                assertEquals(TreeJsonReport.target(f.target()), JsonReporter.target(f.target()));
            }
        }
    }

    /**
     * Many findings of every source, with text that needs escaping, notes, related objects, keys
     * and targets.
     */
    private static List<Finding> many(int n, long seed) {
        Random rnd = new Random(seed);
        String[] pieces = {
            "frontend fe_",
            "é",
            "\"q\"",
            "\\",
            "\n",
            "\t",
            "\u0001",
            "\u2028",
            "😀",
            "<b>",
            "&",
            " ",
            "${DB_PASSWORD}",
            "100%",
            "'x'"
        };
        Target[] targets = {
            null, Target.cluster("prod"), Target.cluster("stage"), Target.account("123456789012")
        };
        List<Finding> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            StringBuilder msg = new StringBuilder();
            for (int k = rnd.nextInt(12); k >= 0; k--) {
                msg.append(pieces[rnd.nextInt(pieces.length)]).append(i);
            }
            List<String> notes = new ArrayList<>();
            for (int k = rnd.nextInt(3); k > 0; k--) {
                notes.add("note " + k + " " + pieces[rnd.nextInt(pieces.length)]);
            }
            List<String> related =
                    rnd.nextBoolean() ? List.of() : List.of("Service ns/s" + i, "haproxy.cfg:" + i);
            Severity sev = Severity.values()[rnd.nextInt(Severity.values().length)];
            String key = rnd.nextBoolean() ? null : "key " + (i % 7);
            Finding f =
                    switch (i % 4) {
                        case 0 ->
                                new Finding(
                                        ReportFixtures.HAPROXY_RULE,
                                        sev,
                                        List.of("IL-0264"),
                                        msg.toString(),
                                        "fix " + i,
                                        Location.section(
                                                "conf/haproxy.cfg", i + 1, "frontend", "fe_" + i),
                                        related,
                                        notes,
                                        key);
                        case 1 ->
                                new Finding(
                                        ReportFixtures.KUBE_RULE,
                                        sev,
                                        List.of("IL-0495", "IL-0081"),
                                        msg.toString(),
                                        "fix",
                                        Location.kube(
                                                "Deployment",
                                                i % 3 == 0 ? null : "ns" + i,
                                                "d" + i),
                                        related,
                                        notes,
                                        key);
                        case 2 ->
                                new Finding(
                                        ReportFixtures.AWS_RULE,
                                        sev,
                                        List.of("IL-0364"),
                                        msg.toString(),
                                        "fix",
                                        Location.aws(
                                                "arn:aws:elasticloadbalancing:eu-west-2:1:loadbalancer/net/n"
                                                        + i
                                                        + "/x",
                                                "n" + i,
                                                "eu-west-2"),
                                        related,
                                        notes,
                                        key);
                        default ->
                                new Finding(
                                        "no-such-rule-in-catalog",
                                        sev,
                                        List.of(),
                                        msg.toString(),
                                        "fix",
                                        Location.file("<stdin>", i),
                                        related,
                                        notes,
                                        key);
                    };
            Target t = targets[rnd.nextInt(targets.length)];
            out.add(t == null ? f : f.withTarget(t));
        }
        out.sort(Finding.ORDER);
        return out;
    }

    private static ScanResult rich(List<Finding> findings) {
        Suppressions.Entry expired =
                new Suppressions.Entry(
                        ReportFixtures.AWS_RULE,
                        "prod-*",
                        "migrating \"soon\"",
                        LocalDate.of(2020, 1, 1),
                        "ignore.yaml:3");
        Suppressions.Entry noDate =
                new Suppressions.Entry(
                        ReportFixtures.KUBE_RULE, "ns/*", "why", null, "deja.yaml:9");
        Coverage cov =
                new Coverage(
                        List.of(
                                new Coverage.Entry(
                                        "haproxy",
                                        "conf/haproxy.cfg",
                                        Coverage.Status.READ,
                                        null,
                                        12),
                                new Coverage.Entry(
                                        "kubernetes",
                                        "Secret in prod",
                                        Coverage.Status.DENIED,
                                        "403 forbidden",
                                        -1,
                                        Target.cluster("prod")),
                                new Coverage.Entry(
                                        "kubernetes",
                                        "Deployment in all namespaces",
                                        Coverage.Status.READ,
                                        null,
                                        4,
                                        Target.cluster("stage")),
                                new Coverage.Entry(
                                        "aws",
                                        "DescribeLoadBalancers eu-west-2",
                                        Coverage.Status.READ,
                                        null,
                                        1,
                                        Target.account("123456789012"))));
        List<ScanResult.Suppressed> suppressed =
                List.of(
                        new ScanResult.Suppressed(
                                ReportFixtures.haproxy(3),
                                "accepted: \"load test\"",
                                "ignore.yaml:1"),
                        new ScanResult.Suppressed(
                                ReportFixtures.aws().withTarget(Target.account("1")),
                                "r",
                                "deja.yaml:2"));
        return new ScanResult(
                findings,
                suppressed,
                List.of(expired, noDate),
                List.of(
                        ReportFixtures.AWS_RULE,
                        ReportFixtures.HAPROXY_RULE,
                        ReportFixtures.KUBE_RULE),
                cov,
                42);
    }

    @Test
    void fixtureReportsGiveTheSameBytesAsTheTree() {
        same(ReportFixtures.report(ReportFixtures.typical()));
        same(ReportFixtures.report(ReportFixtures.fleet()));
        same(ReportFixtures.report(ReportFixtures.result(List.of())));
        same(
                new Report(
                        ReportFixtures.typical(),
                        ReportFixtures.catalog(),
                        "0.1.0-test",
                        null,
                        false));
    }

    @Test
    void findingsRichReportWithBaselineFleetEvidenceAndSuppressionsGivesTheSameBytes() {
        List<Finding> findings = many(600, 17);
        ScanResult r = rich(findings);
        Report report = ReportFixtures.report(r);
        same(report);

        // against a baseline holding every other finding: "new" on each finding, the baseline
        // object
        List<Finding> before = new ArrayList<>();
        for (int i = 0; i < findings.size(); i += 2) {
            before.add(findings.get(i));
        }
        String beforeJson =
                ReportFixtures.render(new JsonReporter(), ReportFixtures.report(rich(before)));
        Report withBaseline =
                report.withBaseline(Baseline.parse(beforeJson, "before.json").compare(findings));
        same(withBaseline);

        // proofs attached to some findings (a nested tree written as it is)
        Map<String, Evidence> evidence = new HashMap<>();
        for (int i = 0; i < findings.size(); i += 5) {
            ObjectNode ev = JsonNodeFactory.instance.objectNode();
            ev.put("verdict", "proved")
                    .put("requests", i)
                    .put("ratio", 0.5 + i)
                    .put("big", 1L << 40)
                    .putNull("none")
                    .putArray("steps")
                    .add("step \"1\"")
                    .add(2)
                    .addObject()
                    .put("ok", true);
            evidence.put(
                    findings.get(i).fingerprint(),
                    new Evidence("proved", "held " + i, ev, "<p>" + i + "</p>"));
        }
        same(withBaseline.withEvidence(evidence));

        // a fleet report: each finding's targets, each target's status
        // by identity, as FleetMerge keys them: findings equal by value stay apart
        IdentityHashMap<Finding, List<String>> targetsOf = new IdentityHashMap<>();
        for (int i = 0; i < findings.size(); i += 3) {
            targetsOf.put(findings.get(i), List.of("prod", "stage \"b\""));
        }
        Instant asOf = Instant.parse("2026-11-30T10:15:30.123Z");
        Fleet fleet =
                new Fleet(
                        asOf,
                        Duration.ofHours(36),
                        List.of(
                                new Fleet.TargetStatus(
                                        "prod",
                                        "prod",
                                        null,
                                        "s3://b/prod/r.json",
                                        asOf.minusSeconds(3_600),
                                        false,
                                        Map.of(Severity.HIGH, 3, Severity.LOW, 1),
                                        true,
                                        List.of()),
                                new Fleet.TargetStatus(
                                        "acct",
                                        null,
                                        "123456789012",
                                        "reports/a.json",
                                        asOf.plusSeconds(60),
                                        true,
                                        Map.of(),
                                        false,
                                        List.of("kubernetes: Secret in all namespaces: denied"))),
                        targetsOf,
                        7,
                        2,
                        List.of("x.json: not a deja report"));
        same(report.withFleet(fleet));
        same(withBaseline.withEvidence(evidence).withFleet(fleet));
    }
}
