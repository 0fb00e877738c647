package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.Finding;
import dev.deja.engine.InputException;
import dev.deja.engine.Location;
import dev.deja.engine.Severity;
import java.util.List;
import org.junit.jupiter.api.Test;

class BaselineTest {
    static String jsonOf(List<Finding> fs) {
        return ReportFixtures.render(
                new JsonReporter(), ReportFixtures.report(ReportFixtures.result(fs)));
    }

    @Test
    void aFindingThatOnlyMovedLinesIsNotNew() {
        Baseline b = Baseline.parse(jsonOf(List.of(ReportFixtures.haproxy(12))), "old.json");
        BaselineDiff d = b.compare(List.of(ReportFixtures.haproxy(40)));
        assertEquals(List.of(), d.newFindings());
        assertEquals(1, d.unchanged());
        assertEquals(0, d.fixed());
        assertTrue(d.found());
    }

    @Test
    void numbersInsideTheMessageDoNotMatterButItsWordsAndKeyDo() {
        Location l = Location.file("haproxy.cfg", 3);
        Finding a =
                new Finding(
                        "haproxy-x-y",
                        Severity.LOW,
                        List.of(),
                        "timeout set at haproxy.cfg:3 (line 3) is 5s",
                        "Fix.",
                        l,
                        List.of(),
                        List.of());
        Finding moved =
                new Finding(
                        "haproxy-x-y",
                        Severity.LOW,
                        List.of(),
                        "timeout set at haproxy.cfg:9 (line 9) is 5s",
                        "Fix.",
                        Location.file("haproxy.cfg", 9),
                        List.of(),
                        List.of());
        Finding changed =
                new Finding(
                        "haproxy-x-y",
                        Severity.LOW,
                        List.of(),
                        "timeout set at haproxy.cfg:3 (line 3) is 50s",
                        "Fix.",
                        l,
                        List.of(),
                        List.of());
        assertEquals(a.fingerprint(), moved.fingerprint());
        // a number is not the identity of a problem (scaling, a new limit): the same problem stays
        // the same
        assertEquals(a.fingerprint(), changed.fingerprint());
        assertNotEquals(
                a.legacyFingerprint(), changed.legacyFingerprint(), "schema 1.0 kept the numbers");
        Finding reworded =
                new Finding(
                        "haproxy-x-y",
                        Severity.LOW,
                        List.of(),
                        "timeout set at haproxy.cfg:3 is unset",
                        "Fix.",
                        l,
                        List.of(),
                        List.of());
        assertNotEquals(a.fingerprint(), reworded.fingerprint());
        assertNotEquals(
                a.fingerprint(), a.withLocation(Location.file("other.cfg", 3)).fingerprint());
        // with a key, the message is not part of the identity at all; different keys are different
        // problems
        Finding keyed =
                new Finding(
                        "haproxy-x-y",
                        Severity.LOW,
                        List.of(),
                        "anything",
                        "Fix.",
                        l,
                        List.of(),
                        List.of(),
                        "timeout-client");
        Finding keyedReworded =
                new Finding(
                        "haproxy-x-y",
                        Severity.LOW,
                        List.of(),
                        "something else",
                        "Fix.",
                        l,
                        List.of(),
                        List.of(),
                        "timeout-client");
        assertEquals(keyed.fingerprint(), keyedReworded.fingerprint());
        assertNotEquals(
                keyed.fingerprint(),
                new Finding(
                                "haproxy-x-y",
                                Severity.LOW,
                                List.of(),
                                "anything",
                                "Fix.",
                                l,
                                List.of(),
                                List.of(),
                                "timeout-server")
                        .fingerprint());
    }

    @Test
    void newFixedAndDuplicatesCountAsAMultiset() {
        Baseline b =
                Baseline.parse(
                        jsonOf(List.of(ReportFixtures.kube("a"), ReportFixtures.aws())),
                        "old.json");
        Finding a1 = ReportFixtures.kube("a");
        Finding a2 = ReportFixtures.kube("a");
        Finding c = ReportFixtures.kube("c");
        BaselineDiff d = b.compare(List.of(a1, a2, c));
        assertEquals(2, d.newFindings().size());
        assertFalse(d.isNew(a1), "the first equal finding matches the baseline");
        assertTrue(d.isNew(a2), "the second equal finding is new (identity, not equality)");
        assertTrue(d.isNew(c));
        assertEquals(1, d.fixed(), "the AWS finding is gone");
        assertEquals(2, d.baselineTotal());
    }

    @Test
    void onlyWhatThisScanLookedAtCanBeFixed() {
        Baseline b =
                Baseline.parse(
                        jsonOf(
                                List.of(
                                        ReportFixtures.kube("a"),
                                        ReportFixtures.kube("b"),
                                        ReportFixtures.aws())),
                        "old.json");
        // this scan saw Kubernetes only, and no longer finds b: b is fixed, the AWS finding was not
        // looked at
        BaselineDiff d =
                b.compare(
                        List.of(ReportFixtures.kube("a")),
                        (rule, loc) -> rule.equals(ReportFixtures.kube("x").ruleId()));
        assertEquals(1, d.fixed());
        assertEquals(1, d.unchanged());
        // a scan that looked nowhere the baseline found anything fixes nothing
        assertEquals(0, b.compare(List.of(), (rule, loc) -> false).fixed());
        assertEquals(3, b.compare(List.of()).fixed());
    }

    @Test
    void anAbsentBaselineMakesEverythingNew() {
        BaselineDiff d =
                Baseline.absent("configmap:deja/deja-report")
                        .compare(List.of(ReportFixtures.aws()));
        assertFalse(d.found());
        assertEquals(1, d.newFindings().size());
    }

    @Test
    void garbageIsRefusedWithTheSourceNamed() {
        InputException e =
                assertThrows(InputException.class, () -> Baseline.parse("{not json", "old.json"));
        assertTrue(
                e.getMessage().startsWith("old.json: baseline is not a deja JSON report"),
                e.getMessage());
        e = assertThrows(InputException.class, () -> Baseline.parse("{\"a\": 1}", "x.json"));
        assertTrue(e.getMessage().contains("--format json"), e.getMessage());
        e =
                assertThrows(
                        InputException.class,
                        () ->
                                Baseline.parse(
                                        "{\"schemaVersion\":\"2.0\",\"findings\":[]}", "x.json"));
        assertTrue(e.getMessage().contains("schema 2.0"), e.getMessage());
    }

    @Test
    void textReportMarksNewFindingsAndSummarisesTheBaseline() {
        var now = ReportFixtures.typical();
        Baseline b = Baseline.parse(jsonOf(List.of(ReportFixtures.aws())), "old.json");
        Report r = ReportFixtures.report(now).withBaseline(b.compare(now.findings()));
        String text = ReportFixtures.render(new TextReporter(), r);
        assertTrue(text.contains("CRITICAL  NEW  kube-lb-pods-fail-together"), text);
        assertTrue(text.contains("MEDIUM    aws-nlb-zone-health-hidden"), text);
        assertTrue(
                text.contains("Against the baseline old.json: 2 new, 1 unchanged, 0 fixed"), text);
    }
}
