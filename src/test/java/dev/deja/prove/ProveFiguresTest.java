package dev.deja.prove;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.report.HtmlReporterTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deja prove --format html} on the real haproxy, the page loaded in headless Chromium: one
 * figure puts before and after on one time axis, and its numbers are the runs' own (the table's
 * "legit ok" of each run, the slots of the example's maxconn).
 */
class ProveFiguresTest {
    @Test
    void beforeAndAfterOverTimeAsTheTableCountsThem(@TempDir Path tmp) throws Exception {
        HtmlReporterTest.findChromium();
        HtmlReporterTest.needChromium();
        Path page = HtmlReporterTest.OUT.resolve("prove.html").toAbsolutePath();
        TestSupport.Run r =
                ProveTest.prove(
                        "prove",
                        ProveTest.BEFORE,
                        "--rule",
                        Prover.TARPIT,
                        "--duration",
                        "3s",
                        "--no-find-limit",
                        "--format",
                        "html",
                        "-o",
                        page.toString());
        assertEquals(1, r.code(), r.err() + r.out());
        HtmlReporterTest.Browser b = HtmlReporterTest.load(page, tmp.resolve("p1"), "--dump-dom");
        assertEquals(0, b.code());
        assertEquals(List.of(), b.console());
        assertEquals(
                List.of(),
                dev.deja.report.FigureLayout.problems(Files.readString(page), "prove-layout", 1));
        String dom = b.dom();
        assertEquals(1, count(dom, "data-figure=\"prove-timeline\""), dom);
        assertTrue(dom.contains("<title>Legitimate success and slots in use over time"), dom);
        Matcher run =
                Pattern.compile(
                                "<g class=\"run\" data-run=\"([^\"]+)\" data-ok=\"(\\d+)\" data-sent=\"(\\d+)\""
                                        + " data-slots=\"(\\d+)\">(.*?)</g>",
                                Pattern.DOTALL)
                        .matcher(dom);
        List<String> runs = new ArrayList<>();
        while (run.find()) {
            String label = run.group(1);
            runs.add(label);
            int ok = Integer.parseInt(run.group(2));
            int sent = Integer.parseInt(run.group(3));
            // the same run's row of the table: "<td>before</td><td>OK/TOTAL</td>"
            Matcher row =
                    Pattern.compile(
                                    "<tr><td>"
                                            + Pattern.quote(label)
                                            + "</td><td>(\\d+)/(\\d+)</td>")
                            .matcher(dom);
            assertTrue(row.find(), "a table row for " + label);
            assertEquals(Integer.parseInt(row.group(1)), ok, label + ": answered, as the table");
            assertTrue(
                    sent > 0 && sent <= Integer.parseInt(row.group(2)), label + ": sent " + sent);
            assertEquals("200", run.group(4), "hc_ping's maxconn 200 is the limit drawn");
            assertTrue(run.group(5).contains("data-limit=\"200\""), run.group(5));
            // the seconds add up to the run
            Matcher sec =
                    Pattern.compile("data-second=\"\\d+\" data-ok=\"(\\d+)\" data-sent=\"(\\d+)\"")
                            .matcher(run.group(5));
            int okSum = 0;
            int sentSum = 0;
            while (sec.find()) {
                okSum += Integer.parseInt(sec.group(1));
                sentSum += Integer.parseInt(sec.group(2));
            }
            assertEquals(ok, okSum, label);
            assertEquals(sent, sentSum, label);
        }
        assertEquals(2, runs.size(), "before and after: " + runs);
        assertEquals("before", runs.get(0));
        Path png = HtmlReporterTest.OUT.resolve("prove.png").toAbsolutePath();
        HtmlReporterTest.load(
                page,
                tmp.resolve("p2"),
                "--hide-scrollbars",
                "--window-size=1000,1400",
                "--screenshot=" + png);
        assertTrue(Files.size(png) > 10_000, "screenshot written: " + png);
    }

    /**
     * The maxconn fix raises the limit to four digits ("limit 1200"): its label, right of the plot,
     * stays inside the picture (it ran out of it at 1200, by eye).
     */
    @Test
    void aLargerLimitAfterTheFixStaysInsideThePicture() throws Exception {
        HtmlReporterTest.findChromium();
        HtmlReporterTest.needChromium();
        Path page = HtmlReporterTest.OUT.resolve("prove-maxconn.html").toAbsolutePath();
        TestSupport.Run r =
                ProveTest.prove(
                        "prove",
                        ProveTest.BEFORE,
                        "--rule",
                        Prover.MAXCONN,
                        "--duration",
                        "3s",
                        "--no-find-limit",
                        "--format",
                        "html",
                        "-o",
                        page.toString());
        assertTrue(r.code() == 0 || r.code() == 1, r.err() + r.out());
        String html = Files.readString(page);
        Matcher limits = Pattern.compile(">limit (\\d+)<").matcher(html);
        int widest = 0;
        while (limits.find()) {
            widest = Math.max(widest, limits.group(1).length());
        }
        assertTrue(widest >= 4, "the fix's limit has four digits or more: " + html);
        assertEquals(
                List.of(), dev.deja.report.FigureLayout.problems(html, "prove-maxconn-layout", 1));
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
