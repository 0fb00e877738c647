package dev.deja.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.report.JsonReporter;
import dev.deja.report.Report;
import dev.deja.report.TextReporter;
import java.io.StringWriter;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The engine over a tiny synthetic source: ordering, severity filters and overrides, suppressions,
 * determinism.
 */
class EngineTest {
    static final String CASE =
            "id: IL-0001\ntitle: T\norganisation: O\ndate: '2024-01-01'\ntags: [x]\nsummary: It broke. Then more.\n"
                    + "timeline: [{time: '1', event: e}]\nfollowUps: [f]\nlinks: ['https://x']\n"
                    + "libraryUrl: https://incidentlib-api.benchlet.com/cases/IL-0001\n";

    static String rule(String id, String sev) {
        return "id: "
                + id
                + "\ntitle: "
                + id
                + " title\nseverity: "
                + sev
                + "\nsource: haproxy\ncaseIds: [IL-0001]\n"
                + "description: d\nremediation: Fix "
                + id
                + ".\nlinks: ['https://x']\n";
    }

    static final Catalog CATALOG =
            Catalog.load(
                    Map.of(
                            "cases/IL-0001.yaml",
                            CASE,
                            "r-high.yaml",
                            rule("r-high", "high"),
                            "r-low.yaml",
                            rule("r-low", "low")));

    /** A part with items "name@file:line". */
    record Items(List<String> items) {}

    record ItemRule(String id, String only, int cost) implements Rule {
        ItemRule(String id, String only) {
            this(id, only, 1);
        }

        @Override
        public SourceKind source() {
            return SourceKind.HAPROXY;
        }

        @Override
        public List<Finding> check(Snapshot s, RuleContext ctx) {
            List<Finding> out = new ArrayList<>();
            for (String it : s.part(Items.class).map(Items::items).orElse(List.of())) {
                if (only == null || it.startsWith(only)) {
                    String[] a = it.split("[@:]");
                    out.add(
                            ctx.finding(
                                            Location.section(
                                                    a[1], Integer.parseInt(a[2]), "frontend", a[0]),
                                            "frontend " + a[0] + " is risky")
                                    .build());
                }
            }
            return out;
        }
    }

    static Snapshot snapshot(List<String> items, InlineSuppression... sup) {
        SnapshotBuilder b = new SnapshotBuilder();
        b.put(Items.class, new Items(items));
        b.read("haproxy", "a.cfg", items.size());
        for (InlineSuppression s : sup) {
            b.suppress(s);
        }
        return b.build();
    }

    static final List<Rule> RULES =
            List.of(new ItemRule("r-low", null), new ItemRule("r-high", "fe"));
    static final List<String> ITEMS =
            List.of("fe_b@b.cfg:9", "fe_a@a.cfg:30", "be@a.cfg:2", "fe_c@a.cfg:4");

    @Test
    void findingsAreOrderedBySeverityThenLocation() {
        ScanResult r = new Engine(CATALOG).run(snapshot(ITEMS), RULES, Engine.Options.defaults());
        List<String> got =
                r.findings().stream()
                        .map(f -> f.severity().id() + " " + f.location().fileRef())
                        .toList();
        assertEquals(
                List.of(
                        "high a.cfg:4",
                        "high a.cfg:30",
                        "high b.cfg:9",
                        "low a.cfg:2",
                        "low a.cfg:4",
                        "low a.cfg:30",
                        "low b.cfg:9"),
                got);
        assertEquals(List.of("r-high", "r-low"), r.rulesRun());
        assertEquals("Fix r-high.", r.findings().get(0).remediation());
        assertEquals(List.of("IL-0001"), r.findings().get(0).caseIds());
    }

    @Test
    void minSeverityAndOverrides() {
        Engine.Options o =
                new Engine.Options(
                        Severity.MEDIUM,
                        Map.of("r-low", Severity.CRITICAL),
                        Suppressions.NONE,
                        Settings.EMPTY,
                        LocalDate.now());
        ScanResult r = new Engine(CATALOG).run(snapshot(ITEMS), RULES, o);
        assertEquals(7, r.findings().size());
        assertEquals(Severity.CRITICAL, r.findings().get(0).severity());
        Engine.Options high =
                new Engine.Options(
                        Severity.HIGH,
                        Map.of(),
                        Suppressions.NONE,
                        Settings.EMPTY,
                        LocalDate.now());
        assertEquals(3, new Engine(CATALOG).run(snapshot(ITEMS), RULES, high).findings().size());
    }

    @Test
    void inlineSuppressionsMatchFileAndLine() {
        InlineSuppression s =
                new InlineSuppression(
                        "r-high", Location.file("a.cfg", 30), "accepted risk", "a.cfg:29");
        ScanResult r =
                new Engine(CATALOG).run(snapshot(ITEMS, s), RULES, Engine.Options.defaults());
        assertEquals(6, r.findings().size());
        assertEquals(1, r.suppressed().size());
        assertEquals("accepted risk", r.suppressed().get(0).reason());
        assertEquals("a.cfg:29", r.suppressed().get(0).origin());
        assertEquals("r-high", r.suppressed().get(0).finding().ruleId());
    }

    /** The rules over the items, with this ignore file ("ignore.yaml"), on 2026-01-01. */
    static ScanResult runWithIgnoreFile(String yaml) {
        Suppressions sup = Suppressions.parse(yaml, "ignore.yaml", CATALOG);
        Engine.Options o =
                new Engine.Options(
                        Severity.INFO, Map.of(), sup, Settings.EMPTY, LocalDate.of(2026, 1, 1));
        return new Engine(CATALOG).run(snapshot(ITEMS), RULES, o);
    }

    @Test
    void ignoreFileSuppressesByGlobAndReportsExpiredEntries() {
        String yaml =
                "- rule: r-low\n  object: fe_*\n  reason: known\n"
                        + "- rule: '*'\n  object: b.cfg\n  reason: old\n  expires: 2020-01-01\n";
        ScanResult r = runWithIgnoreFile(yaml);
        assertEquals(3, r.suppressed().size());
        assertTrue(r.suppressed().stream().allMatch(x -> x.origin().equals("ignore.yaml:1")));
        assertEquals(1, r.expired().size());
        assertEquals("ignore.yaml:4", r.expired().get(0).origin());
        assertEquals(4, r.findings().size());
    }

    @Test
    void eachIgnoreEntryMatchesWithItsOwnObjectPattern() {
        String yaml =
                "- rule: r-high\n  object: nothing*\n  reason: first\n"
                        + "- rule: r-high\n  object: fe_a\n  reason: second\n";
        ScanResult r = runWithIgnoreFile(yaml);
        assertEquals(1, r.suppressed().size());
        assertEquals("ignore.yaml:4", r.suppressed().get(0).origin());
        assertEquals("second", r.suppressed().get(0).reason());
        assertEquals("fe_a", r.suppressed().get(0).finding().location().name());
    }

    @Test
    void todaysDateIsReadOnlyWhenASuppressionHasAnExpiryDate() {
        AtomicInteger asked = new AtomicInteger();
        Supplier<LocalDate> today =
                () -> {
                    asked.incrementAndGet();
                    return LocalDate.of(2026, 1, 1);
                };
        Suppressions noExpiry =
                Suppressions.parse(
                        "- rule: r-low\n  object: fe_*\n  reason: known\n", "i", CATALOG);
        ScanResult r =
                new Engine(CATALOG)
                        .run(
                                snapshot(ITEMS),
                                RULES,
                                new Engine.Options(
                                        Severity.INFO, Map.of(), noExpiry, Settings.EMPTY, today));
        assertEquals(3, r.suppressed().size());
        assertEquals(0, asked.get(), "no entry expires: the date is not needed");
        Suppressions expiring =
                Suppressions.parse(
                        "- rule: r-low\n  object: fe_*\n  reason: known\n  expires: 2025-12-31\n",
                        "i",
                        CATALOG);
        r =
                new Engine(CATALOG)
                        .run(
                                snapshot(ITEMS),
                                RULES,
                                new Engine.Options(
                                        Severity.INFO, Map.of(), expiring, Settings.EMPTY, today));
        assertEquals(0, r.suppressed().size(), "expired the day before 'today'");
        assertEquals(1, r.expired().size());
        assertTrue(asked.get() > 0);
        Supplier<LocalDate> here = Engine.Options.todayHere();
        assertEquals(here.get(), here.get());
        assertTrue(Math.abs(here.get().toEpochDay() - LocalDate.now().toEpochDay()) <= 1);
    }

    @Test
    void ignoreFileErrorsNameFileAndLine() {
        InputException unknownKey =
                assertThrows(
                        InputException.class,
                        () ->
                                Suppressions.parse(
                                        "- rule: r-low\n  reason: x\n  objekt: y\n",
                                        "ig.yaml",
                                        CATALOG));
        assertEquals(
                "ig.yaml:3: unknown key 'objekt' (expected rule, object, reason, expires)",
                unknownKey.getMessage());
        InputException noReason =
                assertThrows(
                        InputException.class,
                        () -> Suppressions.parse("- rule: r-low\n", "ig.yaml", CATALOG));
        assertEquals("ig.yaml:1: entry for r-low has no 'reason'", noReason.getMessage());
        InputException notYaml =
                assertThrows(
                        InputException.class,
                        () -> Suppressions.parse("- rule: r-low\n   bad: [\n", "ig.yaml", CATALOG));
        assertTrue(
                notYaml.getMessage().startsWith("ig.yaml:2: not valid YAML: "),
                notYaml.getMessage());
        InputException badRule =
                assertThrows(
                        InputException.class,
                        () ->
                                Suppressions.parse(
                                        "- rule: nope\n  reason: r\n", "ig.yaml", CATALOG));
        assertTrue(badRule.getMessage().startsWith("ig.yaml:1: unknown rule 'nope'"));
        InputException badDate =
                assertThrows(
                        InputException.class,
                        () ->
                                Suppressions.parse(
                                        "- rule: r-low\n  reason: r\n  expires: soon\n",
                                        "ig.yaml",
                                        CATALOG));
        assertTrue(badDate.getMessage().startsWith("ig.yaml:3: expires 'soon'"));
        assertThrows(
                InputException.class, () -> Suppressions.parse("rule: x\n", "ig.yaml", CATALOG));
    }

    @Test
    void sameInputGivesByteIdenticalJsonWhateverTheRuleOrder() throws Exception {
        List<Rule> reversed = new ArrayList<>(RULES);
        Collections.reverse(reversed);
        List<String> shuffled = new ArrayList<>(ITEMS);
        Collections.reverse(shuffled);
        String a = json(new Engine(CATALOG).run(snapshot(ITEMS), RULES, Engine.Options.defaults()));
        String b =
                json(
                        new Engine(CATALOG)
                                .run(snapshot(shuffled), reversed, Engine.Options.defaults()));
        assertEquals(a, b);
        assertTrue(a.contains("\"schemaVersion\" : \"1.4\""), a);
    }

    @Test
    void textReportGroupsByCaseAndSummarises() throws Exception {
        ScanResult r = new Engine(CATALOG).run(snapshot(ITEMS), RULES, Engine.Options.defaults());
        StringWriter w = new StringWriter();
        new TextReporter().write(new Report(r, CATALOG, "test", Severity.MEDIUM, false), w);
        String text = w.toString();
        assertTrue(text.startsWith("IL-0001  T (O, 2024-01-01)\n  It broke.\n"), text);
        assertTrue(text.contains("HIGH      r-high  frontend fe_c (a.cfg:4)"), text);
        assertTrue(text.contains("fix: Fix r-high."), text);
        assertTrue(
                text.contains(
                        "7 findings (3 high, 4 low); sources: haproxy (1 scope); 2 rules run"),
                text);
        assertTrue(!text.contains("\u001B["), "no colour when not a terminal");
    }

    static String json(ScanResult r) throws Exception {
        StringWriter w = new StringWriter();
        new JsonReporter().write(new Report(r, CATALOG, "test", Severity.MEDIUM, false), w);
        return w.toString();
    }

    @Test
    void costlierRulesStartFirstAndTheFindingsDoNotDependOnIt() throws Exception {
        List<Rule> rules =
                List.of(
                        new ItemRule("a", null, 1),
                        new ItemRule("b", null, 3),
                        new ItemRule("c", null, 1),
                        new ItemRule("d", null, 2),
                        new ItemRule("e", null, 3));
        assertEquals(List.of(1, 4, 3, 0, 2), Engine.startOrder(rules), "ties keep their order");
        assertEquals(List.of(0, 1), Engine.startOrder(RULES));
        List<Rule> costly =
                List.of(new ItemRule("r-low", null, 1), new ItemRule("r-high", "fe", 9));
        assertEquals(List.of(1, 0), Engine.startOrder(costly));
        Engine e = new Engine(CATALOG);
        assertEquals(
                json(e.run(snapshot(ITEMS), RULES, Engine.Options.defaults())),
                json(e.run(snapshot(ITEMS), costly, Engine.Options.defaults())));
    }
}
