package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.engine.Coverage;
import dev.deja.engine.Finding;
import dev.deja.engine.ScanResult;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTML report, rendered by headless Chromium (Debian's {@code chromium}; .ci/run installs it):
 * the findings, messages and case ids are in the rendered DOM, the page logs nothing to the console
 * (no CSP violation, no error), the CSS-only filters hide what they should, and screenshots (phone
 * and desktop) are kept under target/html-report/.
 */
public class HtmlReporterTest {
    public static final Path OUT = Path.of("target", "html-report");
    static String chromium;

    @BeforeAll
    public static void findChromium() throws IOException {
        for (String c : List.of("chromium", "chromium-browser", "google-chrome")) {
            for (String dir :
                    System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
                if (Files.isExecutable(Path.of(dir, c))) {
                    chromium = Path.of(dir, c).toString();
                    break;
                }
            }
            if (chromium != null) {
                break;
            }
        }
        Files.createDirectories(OUT);
    }

    public static void needChromium() {
        Assumptions.assumeTrue(
                chromium != null,
                "chromium is not installed (apt-get install chromium; .ci/run does it): skipping the browser test");
    }

    public record Browser(int code, String dom, List<String> console) {}

    /**
     * Loads a page in a fresh headless profile; returns the DOM after load and every console line.
     */
    public static Browser load(Path page, Path profile, String... extra) throws Exception {
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                chromium,
                                "--headless",
                                "--no-sandbox",
                                "--disable-gpu",
                                "--disable-quic",
                                "--no-first-run",
                                "--disable-background-networking",
                                "--disable-component-update",
                                "--disable-sync",
                                "--disable-extensions",
                                "--user-data-dir=" + profile,
                                "--enable-logging=stderr",
                                "--v=0"));
        cmd.addAll(List.of(extra));
        cmd.add(page.toUri().toString());
        Path err = Files.createTempFile(profile.getParent(), "chromium", ".err");
        Path out = Files.createTempFile(profile.getParent(), "chromium", ".out");
        Process p =
                new ProcessBuilder(cmd)
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile())
                        .start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish in 90 s");
        }
        List<String> console =
                Files.readAllLines(err, StandardCharsets.UTF_8).stream()
                        .filter(l -> l.contains(":CONSOLE"))
                        .toList();
        return new Browser(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), console);
    }

    static Report sample() {
        ScanResult base = ReportFixtures.typical();
        String before =
                ReportFixtures.render(
                        new JsonReporter(),
                        ReportFixtures.report(
                                ReportFixtures.result(List.of(ReportFixtures.aws()))));
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
                                                "PodDisruptionBudget in prod",
                                                Coverage.Status.DENIED,
                                                "403 <forbidden>",
                                                -1),
                                        new Coverage.Entry(
                                                "haproxy",
                                                "haproxy.cfg",
                                                Coverage.Status.READ,
                                                null,
                                                12))),
                        3);
        return ReportFixtures.report(r)
                .withBaseline(Baseline.parse(before, "baseline.json").compare(r.findings()));
    }

    @Test
    void staticShapeSelfContainedAndEscaped() {
        String html = ReportFixtures.render(new HtmlReporter(), sample());
        assertTrue(html.contains("<meta name=\"viewport\""), "phone viewport");
        assertTrue(html.contains("Content-Security-Policy"), "nothing may load from elsewhere");
        assertFalse(
                Pattern.compile("<script|<link|@import|url\\(|src=", Pattern.CASE_INSENSITIVE)
                        .matcher(html)
                        .find(),
                "no script, stylesheet, font or image from anywhere");
        assertFalse(html.contains("<script>alert(1)</script>"), "message text is escaped");
        assertTrue(
                html.contains(
                        "&lt;script&gt;alert(1)&lt;/script&gt; &quot;quoted&quot; &amp; done"));
        assertTrue(html.contains("403 &lt;forbidden&gt;"));
    }

    /**
     * Each case once, its findings under it; a finding from two cases links the second one, whose
     * story is there too.
     */
    @Test
    void eachCaseOnceWithItsFindingsUnderIt() {
        String html =
                ReportFixtures.render(
                        new HtmlReporter(),
                        ReportFixtures.report(
                                ReportFixtures.result(
                                        List.of(
                                                ReportFixtures.haproxy(12),
                                                ReportFixtures.haproxy(30),
                                                ReportFixtures.haproxy(44),
                                                ReportFixtures.kube("controller"),
                                                ReportFixtures.aws()))));
        for (String c : List.of("IL-0264", "IL-0495", "IL-0081", "IL-0364")) {
            assertEquals(1, count(html, "id=\"case-" + c + "\""), c + " has one section");
            assertEquals(
                    1,
                    count(html, "<span class=\"case-id\">" + c + "</span>"),
                    c + "'s story is shown once");
        }
        // the three HAProxy findings sit in IL-0264's section, after its story and before the next
        // case
        int section = html.indexOf("id=\"case-IL-0264\"");
        int next = html.indexOf("<section class=\"case-group", section + 1);
        String group = html.substring(section, next);
        assertEquals(3, count(group, "data-rule=\"" + ReportFixtures.HAPROXY_RULE + "\""), group);
        assertEquals(1, count(group, "class=\"story\""), group);
        // IL-0081 only ever comes second: linked from the finding, with its story at the end
        assertTrue(html.contains("<a href=\"#case-IL-0081\" class=\"case-id\">IL-0081</a>"), html);
        assertTrue(
                html.indexOf("id=\"case-IL-0081\"")
                        > html.indexOf("data-rule=\"" + ReportFixtures.KUBE_RULE + "\""));
    }

    /**
     * One rule for counting: the case table's "Findings" of a case is the number its section says
     * and lists (a finding is counted under its first case; one linking the case second is said
     * apart). The examples have one: IL-0364's table row used to say 9 where its section said 8.
     */
    @Test
    void caseTableCountsWhatEachSectionLists() {
        TestSupport.Run run =
                TestSupport.run("scan", "examples/", "--format", "html", "--fail-on", "none");
        String html = run.out();
        Matcher row =
                Pattern.compile(
                                "<tr><td><a href=\"#case-([A-Z0-9-]+)\">[^<]*</a></td><td>.*?</td><td class=\"num\">(\\d+)( <span class=\"muted also-count\">\\(\\+(\\d+))?")
                        .matcher(html);
        int rows = 0;
        int alsoSeen = 0;
        while (row.find()) {
            rows++;
            String c = row.group(1);
            int listed = Integer.parseInt(row.group(2));
            int section = html.indexOf("<section class=\"case-group\" id=\"case-" + c + "\"");
            if (listed == 0) {
                assertTrue(row.group(4) != null, c + ": a row of 0 says where its findings are");
                continue;
            }
            assertTrue(section >= 0, c + " has a section");
            int next = html.indexOf("<section class=\"case-group", section + 1);
            String group = html.substring(section, next < 0 ? html.length() : next);
            assertEquals(
                    listed,
                    count(group, "<article"),
                    c + ": the table counts what the section lists");
            assertTrue(
                    group.contains(
                            "<span class=\"muted count\">"
                                    + listed
                                    + (listed == 1 ? " finding" : " findings")
                                    + "</span>"),
                    c + ": the section's title says " + listed);
            if (row.group(4) != null) {
                alsoSeen++;
            }
        }
        assertTrue(rows >= 6, "the examples' cases are in the table: " + rows);
        assertTrue(html.contains("<a href=\"#case-IL-0364\">"), "IL-0364 is in the table");
        assertTrue(
                alsoSeen + count(html, "also-count") > 0,
                "a finding linking two cases is said apart");
    }

    @Test
    void markdownCodeSpansAreCode() {
        assertEquals(
                "use <code>timeout http-request</code> &amp; <code>a&lt;b</code>; one ` stays",
                HtmlReporter.md("use `timeout http-request` & `a<b`; one ` stays"));
        // the real rules' fixes use backticks (`timeout http-request 5s`, `http-request deny
        // deny_status 429`)
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "examples/haproxy/il-0264-before.cfg",
                        "examples/kubernetes/il-0495-risky-ingress.yaml",
                        "--format",
                        "html",
                        "--fail-on",
                        "none");
        assertEquals(0, r.code(), r.err());
        String text = r.out().replaceAll("<style>[\\s\\S]*</style>", "");
        assertFalse(text.contains("`"), "no literal backtick in the page");
        assertTrue(
                text.contains("<code>timeout http-request 5s</code>"), "a fix's code span is code");
    }

    @Test
    void sourceChipsOnlyForSourcesTheReportIsAbout() {
        ScanResult haproxyOnly =
                new ScanResult(
                        List.of(ReportFixtures.haproxy(12)),
                        List.of(),
                        List.of(),
                        List.of(ReportFixtures.HAPROXY_RULE),
                        new Coverage(
                                List.of(
                                        new Coverage.Entry(
                                                "haproxy",
                                                "haproxy.cfg",
                                                Coverage.Status.READ,
                                                null,
                                                12))),
                        1);
        String html = ReportFixtures.render(new HtmlReporter(), ReportFixtures.report(haproxyOnly));
        assertFalse(
                html.contains("for=\"src-aws\"") || html.contains("id=\"src-aws\""), "no aws chip");
        assertFalse(html.contains(">Source</span>"), "one source: nothing to filter by");
        String all =
                ReportFixtures.render(
                        new HtmlReporter(), ReportFixtures.report(ReportFixtures.typical()));
        for (String s : List.of("haproxy", "kubernetes", "aws")) {
            assertTrue(all.contains("<label for=\"src-" + s + "\">"), s);
        }
    }

    static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    @Test
    void rendersInChromiumWithoutConsoleErrors(@TempDir Path tmp) throws Exception {
        needChromium();
        Report report = sample();
        Path page = OUT.resolve("deja.html").toAbsolutePath();
        Files.writeString(page, ReportFixtures.render(new HtmlReporter(), report));

        // the console check works: a page that breaks the rules is caught
        Path bad = tmp.resolve("bad.html");
        Files.writeString(
                bad,
                "<!DOCTYPE html><title>x</title><p>x</p><script>console.error('deja-control')</script>");
        Browser control = load(bad, tmp.resolve("p0"), "--dump-dom");
        assertTrue(
                control.console().stream().anyMatch(l -> l.contains("deja-control")),
                "console lines are captured: " + control.console());

        Browser b = load(page, tmp.resolve("p1"), "--dump-dom");
        assertEquals(0, b.code());
        assertEquals(List.of(), b.console(), "the report logs nothing to the console");
        String dom = b.dom();
        for (Finding f : report.result().findings()) {
            assertTrue(dom.contains("data-rule=\"" + f.ruleId() + "\""), f.ruleId());
            String firstLine =
                    f.message()
                            .split("\n")[0]
                            .replace("&", "&amp;")
                            .replace("<", "&lt;")
                            .replace(">", "&gt;");
            assertTrue(
                    dom.contains(firstLine.substring(0, Math.min(60, firstLine.length()))),
                    "message of " + f.ruleId());
            for (String c : f.caseIds()) {
                assertTrue(dom.contains("id=\"case-" + c + "\""), c);
                assertTrue(dom.contains(">" + c + "</a>"), c);
            }
        }
        assertTrue(dom.contains("Healthchecks.io"), "case story: organisation");
        assertTrue(dom.contains("https://incidentlib-api.benchlet.com/cases/IL-0264"), "case link");
        assertTrue(dom.contains("id=\"count-critical\">1<"), "summary by severity");
        Matcher m = Pattern.compile("class=\"badge new\"").matcher(dom);
        int news = 0;
        while (m.find()) {
            news++;
        }
        assertEquals(2, news, "two findings are new against the baseline");
        assertTrue(dom.contains("id=\"incomplete\""), "incomplete scan is said up front");

        Browser phone =
                load(
                        page,
                        tmp.resolve("p2"),
                        "--hide-scrollbars",
                        "--window-size=412,2400",
                        "--screenshot=" + OUT.resolve("deja-phone.png").toAbsolutePath());
        assertEquals(List.of(), phone.console());
        assertTrue(Files.size(OUT.resolve("deja-phone.png")) > 10_000, "phone screenshot written");
        load(
                page,
                tmp.resolve("p3"),
                "--hide-scrollbars",
                "--window-size=1280,2000",
                "--screenshot=" + OUT.resolve("deja-desktop.png").toAbsolutePath());
        assertTrue(
                Files.size(OUT.resolve("deja-desktop.png")) > 10_000, "desktop screenshot written");
    }

    /**
     * Clicks the filter labels from a harness page (the report itself has no script) and reads
     * which findings are displayed, per the report's own CSS.
     */
    @Test
    void cssFiltersHideFindingsBySeverityAndSource(@TempDir Path tmp) throws Exception {
        needChromium();
        Path page = tmp.resolve("deja.html");
        Files.writeString(page, ReportFixtures.render(new HtmlReporter(), sample()));
        Path harness = tmp.resolve("harness.html");
        Files.writeString(
                harness,
                """
                <!DOCTYPE html><title>harness</title><pre id="out"></pre>
                <iframe id="f" src="deja.html" width="400" height="800"></iframe>
                <script>
                document.getElementById('f').addEventListener('load', () => {
                  const d = document.getElementById('f').contentDocument;
                  const shown = () => [...d.querySelectorAll('.finding')]
                      .filter(e => getComputedStyle(e).display !== 'none').map(e => e.dataset.rule).sort().join(',');
                  const click = id => d.querySelector('label[for=' + id + ']').click();
                  const out = [];
                  for (const [sev, src] of [['sev-all','src-all'],['sev-critical','src-all'],['sev-high','src-all'],
                                            ['sev-medium','src-all'],['sev-all','src-aws'],['sev-high','src-haproxy'],
                                            ['sev-critical','src-haproxy']]) {
                    click(sev); click(src);
                    out.push(sev + '/' + src + '=' + shown());
                  }
                  document.getElementById('out').textContent = out.join(';');
                });
                </script>
                """);
        Browser b = load(harness, tmp.resolve("p"), "--allow-file-access-from-files", "--dump-dom");
        Matcher m = Pattern.compile("<pre id=\"out\">([^<]*)</pre>").matcher(b.dom());
        assertTrue(m.find(), b.dom());
        String a = ReportFixtures.AWS_RULE;
        String h = ReportFixtures.HAPROXY_RULE;
        String k = ReportFixtures.KUBE_RULE;
        assertEquals(
                String.join(
                        ";",
                        "sev-all/src-all=" + a + "," + h + "," + k,
                        "sev-critical/src-all=" + k,
                        "sev-high/src-all=" + h + "," + k,
                        "sev-medium/src-all=" + a + "," + h + "," + k,
                        "sev-all/src-aws=" + a,
                        "sev-high/src-haproxy=" + h,
                        "sev-critical/src-haproxy="),
                m.group(1));
    }
}
