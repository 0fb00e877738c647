package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The figures of an HTML page laid out by headless Chromium, each text's box measured (getBBox): a
 * label running out of its picture (a long name, a large limit) or into another (a tick's label on
 * a line of figures) is named. The page's figures are put in a page of their own, with the page's
 * style, and a script that writes what it measures into the page, which --dump-dom returns.
 */
public final class FigureLayout {
    private FigureLayout() {}

    /**
     * What is wrong with the figures of {@code html} ("figure 2 (slots): "a" overlaps "b""), none
     * when they are right; at least {@code atLeast} figures must be there. The page is kept as
     * target/html-report/NAME.html for a person to look at.
     */
    public static List<String> problems(String html, String name, int atLeast) throws Exception {
        Matcher style = Pattern.compile("<style>.*?</style>", Pattern.DOTALL).matcher(html);
        StringBuilder page = new StringBuilder("<!doctype html><html><head>");
        page.append(style.find() ? style.group() : "").append("</head><body><main>");
        int n = 0;
        Matcher svg = Pattern.compile("<svg .*?</svg>", Pattern.DOTALL).matcher(html);
        while (svg.find()) {
            if (svg.group().contains("data-figure=")) {
                page.append(svg.group());
                n++;
            }
        }
        assertTrue(n >= atLeast, "figures to measure: " + n + ", expected at least " + atLeast);
        page.append(
                """
                </main><pre id="layout"></pre><script>
                const out = [];
                const figs = document.querySelectorAll('svg[data-figure]');
                figs.forEach((svg, i) => {
                  const vb = svg.viewBox.baseVal;
                  const name = 'figure ' + i + ' (' + svg.dataset.figure + '): ';
                  const boxes = [...svg.querySelectorAll('text')].map(t => [t, t.getBBox()]);
                  for (const [t, b] of boxes) {
                    if (b.x < vb.x - 0.5 || b.y < vb.y - 0.5 || b.x + b.width > vb.x + vb.width + 0.5
                        || b.y + b.height > vb.y + vb.height + 0.5) {
                      out.push(name + '"' + t.textContent + '" runs out of the picture');
                    }
                  }
                  for (let a = 0; a < boxes.length; a++) {
                    for (let c = a + 1; c < boxes.length; c++) {
                      const p = boxes[a][1], q = boxes[c][1];
                      const dx = Math.min(p.x + p.width, q.x + q.width) - Math.max(p.x, q.x);
                      const dy = Math.min(p.y + p.height, q.y + q.height) - Math.max(p.y, q.y);
                      if (dx > 1 && dy > 1) {
                        out.push(name + '"' + boxes[a][0].textContent + '" overlaps "'
                                 + boxes[c][0].textContent + '"');
                      }
                    }
                  }
                });
                document.getElementById('layout').textContent =
                    ['measured ' + figs.length].concat(out).join('|');
                </script></body></html>
                """);
        Files.createDirectories(HtmlReporterTest.OUT);
        Path file = HtmlReporterTest.OUT.resolve(name + ".html").toAbsolutePath();
        Files.writeString(file, page);
        Path profile = Files.createTempDirectory(HtmlReporterTest.OUT, name + "-profile");
        HtmlReporterTest.Browser b = HtmlReporterTest.load(file, profile, "--dump-dom");
        assertEquals(0, b.code());
        Matcher m =
                Pattern.compile("<pre id=\"layout\">(.*?)</pre>", Pattern.DOTALL).matcher(b.dom());
        assertTrue(m.find() && !m.group(1).isEmpty(), "the script ran; console: " + b.console());
        List<String> found = List.of(m.group(1).split("\\|"));
        assertEquals("measured " + n, found.get(0), "every figure measured");
        return found.subList(1, found.size());
    }
}
