package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.engine.Catalog;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The README and docs/ say what deja does: the generated pages are current, every page is reachable
 * from the README, every relative link lands, prose is wrapped, the quick start's output is what
 * deja prints, and every deja command in a code block is one deja accepts.
 */
class DocsTest {
    static final Path DOCS = Path.of("docs");

    /** Pages other engineers write; linked before they exist on every branch. */
    static final Set<String> OWNED_ELSEWHERE = Set.of("install.md", "ci.md", "writing-rules.md");

    static Map<Path, String> pages() throws IOException {
        Map<Path, String> m = new LinkedHashMap<>();
        m.put(Path.of("README.md"), Files.readString(Path.of("README.md")));
        try (Stream<Path> s = Files.list(DOCS)) {
            for (Path p : s.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                m.put(p, Files.readString(p));
            }
        }
        return m;
    }

    @Test
    void generatedPagesAreCurrent() throws IOException {
        Catalog c = Catalog.packaged();
        assertEquals(
                RuleDocs.rules(c),
                Files.readString(DOCS.resolve("rules.md")),
                "docs/rules.md differs from rules/*.yaml: regenerate it with "
                        + RuleDocs.RULES_COMMAND);
        assertEquals(
                RuleDocs.cases(c),
                Files.readString(DOCS.resolve("cases.md")),
                "docs/cases.md differs from rules/cases/: regenerate it with "
                        + RuleDocs.CASES_COMMAND);
        for (var r : c.rules()) {
            assertTrue(RuleDocs.rules(c).contains("\n## " + r.id() + "\n"), r.id());
        }
        // the README's counts are the catalog's
        String readme = Files.readString(Path.of("README.md"));
        assertTrue(
                readme.contains(
                        c.rules().size() + " rules from " + c.cases().size() + " incident cases"),
                "README: the number of rules and cases");
    }

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    static String slug(String heading) {
        return heading.strip()
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^\\w\\- ]", "")
                .replace(' ', '-');
    }

    static Set<String> anchors(String page) {
        Set<String> s = new TreeSet<>();
        for (String l : page.split("\n")) {
            if (l.startsWith("#")) {
                s.add(slug(l.replaceFirst("^#+ ", "")));
            }
        }
        return s;
    }

    @Test
    void readmeIsShortAndEveryPageIsReachableAndEveryLinkLands() throws IOException {
        Map<Path, String> pages = pages();
        String readme = pages.get(Path.of("README.md"));
        long lines = readme.lines().count();
        assertTrue(lines < 200, "README.md has " + lines + " lines; it must stay under 200");
        // reachable: from the README, directly or through pages it links
        Set<String> reached = new LinkedHashSet<>();
        List<Path> todo = new ArrayList<>(List.of(Path.of("README.md")));
        List<String> broken = new ArrayList<>();
        while (!todo.isEmpty()) {
            Path p = todo.remove(0);
            String text = pages.get(p);
            if (text == null || !reached.add(p.normalize().toString())) {
                continue;
            }
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String target = m.group(1);
                if (target.startsWith("http") || target.startsWith("mailto:")) {
                    continue;
                }
                String file =
                        target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                String anchor =
                        target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
                Path to = file.isEmpty() ? p : p.resolveSibling(file).normalize();
                if (p.getParent() == null && !file.isEmpty()) {
                    to = Path.of(file).normalize();
                }
                if (OWNED_ELSEWHERE.contains(to.getFileName().toString()) && !Files.exists(to)) {
                    continue;
                }
                if (!Files.exists(to)) {
                    broken.add(p + ": " + target + " (no such file)");
                    continue;
                }
                if (anchor != null && to.toString().endsWith(".md")) {
                    String body = pages.containsKey(to) ? pages.get(to) : Files.readString(to);
                    if (!anchors(body).contains(anchor)) {
                        broken.add(p + ": " + target + " (no such heading)");
                    }
                }
                if (pages.containsKey(to)) {
                    todo.add(to);
                }
            }
        }
        assertEquals(List.of(), broken, "links that land nowhere");
        Set<String> unreached = new TreeSet<>();
        for (Path p : pages.keySet()) {
            if (!reached.contains(p.normalize().toString())) {
                unreached.add(p.toString());
            }
        }
        assertEquals(Set.of(), unreached, "pages the README does not lead to");
        // the pages other engineers write are linked from the README and from the docs index
        for (String owned : OWNED_ELSEWHERE) {
            assertTrue(readme.contains("](docs/" + owned + ")"), "README links docs/" + owned);
            assertTrue(
                    pages.get(DOCS.resolve("README.md")).contains("](" + owned + ")"),
                    "docs/README.md links " + owned);
        }
    }

    @Test
    void proseIsWrappedAtAReadableWidth() throws IOException {
        List<String> wide = new ArrayList<>();
        for (Map.Entry<Path, String> e : pages().entrySet()) {
            boolean code = false;
            int n = 0;
            for (String l : e.getValue().split("\n", -1)) {
                n++;
                if (l.startsWith("```")) {
                    code = !code;
                    continue;
                }
                // a link alone on its line cannot be broken
                boolean oneWord = !l.replaceFirst("^\\s*- ", "").strip().contains(" ");
                if (!code && !l.startsWith("|") && !oneWord && l.length() > 120) {
                    wide.add(e.getKey() + ":" + n + " (" + l.length() + " characters)");
                }
            }
        }
        assertEquals(List.of(), wide, "prose lines over 120 characters (tables and code excepted)");
    }

    /** Code blocks of a page: their info string and lines. */
    record Block(Path page, int line, String lang, List<String> lines) {}

    static List<Block> blocks() throws IOException {
        List<Block> out = new ArrayList<>();
        for (Map.Entry<Path, String> e : pages().entrySet()) {
            String[] lines = e.getValue().split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                if (lines[i].startsWith("```")) {
                    String lang = lines[i].substring(3).strip();
                    int start = i;
                    List<String> body = new ArrayList<>();
                    for (i++; i < lines.length && !lines[i].startsWith("```"); i++) {
                        body.add(lines[i]);
                    }
                    out.add(new Block(e.getKey(), start + 1, lang, body));
                }
            }
        }
        return out;
    }

    /** A shell line as words: quotes removed, cut at a pipe, redirection, ';', '&&' or comment. */
    static List<String> words(String line) {
        List<String> w = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean any = false;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    cur.append(c);
                }
                continue;
            }
            if (c == '\'' || c == '"') {
                quote = c;
                any = true;
            } else if (c == ' ' || c == '\t') {
                if (any || cur.length() > 0) {
                    w.add(cur.toString());
                }
                cur.setLength(0);
                any = false;
            } else if ((c == '#' && cur.length() == 0)
                    || c == '|'
                    || c == '>'
                    || c == ';'
                    || c == '&'
                    || c == '<'
                    || c == '\\') {
                break;
            } else {
                cur.append(c);
            }
        }
        if (any || cur.length() > 0) {
            String last = cur.toString();
            if (!last.matches("\\d")) { // the 2 of 2>
                w.add(last);
            }
        }
        return w;
    }

    static final Pattern DEJA = Pattern.compile("^(?:\\$ )?(?:[A-Z_]+=\\S+ )*(?:\\./)?deja (.*)$");

    /**
     * Every deja command line in a shell or console block parses: its subcommand and options exist
     * and take the values given (a renamed option fails here, naming the page and line).
     */
    @Test
    void everyDejaCommandInTheDocsIsOneDejaAccepts() throws IOException {
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Block b : blocks()) {
            if (!Set.of("", "sh", "console", "bash", "shell").contains(b.lang())) {
                continue;
            }
            for (int i = 0; i < b.lines().size(); i++) {
                Matcher m = DEJA.matcher(b.lines().get(i).strip());
                if (!m.matches()) {
                    continue;
                }
                // variables become a value; a synopsis's [optional] parts are given
                List<String> args =
                        words(
                                m.group(1)
                                        .replaceAll("\\$\\{?[A-Za-z_]+\\}?", "X")
                                        .replaceAll("\\[(--[^\\]]*)\\]", "$1"));
                if (args.isEmpty() || args.get(0).startsWith("deja:")) {
                    continue;
                }
                checked++;
                String[] a = args.toArray(String[]::new);
                try {
                    StringWriter sink = new StringWriter();
                    CommandLine cl =
                            Cli.commandLine(
                                    new Cli.Io(
                                            new PrintWriter(sink),
                                            new PrintWriter(sink),
                                            new ByteArrayInputStream(new byte[0]),
                                            Map.of(),
                                            false),
                                    a);
                    cl.parseArgs(a);
                } catch (CommandLine.ParameterException e) {
                    wrong.add(
                            b.page()
                                    + ":"
                                    + (b.line() + 1 + i)
                                    + ": deja "
                                    + String.join(" ", args)
                                    + ": "
                                    + e.getMessage());
                }
            }
        }
        assertTrue(checked > 40, "the docs' deja commands were found: " + checked);
        assertEquals(List.of(), wrong, "deja commands in the docs that deja rejects");
    }

    /**
     * The README's console blocks are run: each "$ ./deja ..." in-process (COLUMNS=100, as the
     * README says), and the lines shown under it ("..." skips) appear in its output in that order.
     */
    @Test
    void theReadmesQuickStartPrintsWhatItShows() throws IOException {
        int run = 0;
        for (Block b : blocks()) {
            if (!b.page().toString().equals("README.md") || !b.lang().equals("console")) {
                continue;
            }
            for (int i = 0; i < b.lines().size(); i++) {
                String l = b.lines().get(i);
                if (!l.startsWith("$ ./deja ")) {
                    continue;
                }
                List<String> shown = new ArrayList<>();
                for (int j = i + 1;
                        j < b.lines().size() && !b.lines().get(j).startsWith("$ ");
                        j++) {
                    shown.add(b.lines().get(j));
                }
                List<String> args = words(l.substring("$ ./deja ".length()));
                TestSupport.Run r =
                        TestSupport.runWith(
                                new ByteArrayInputStream(new byte[0]),
                                Map.of("COLUMNS", "100"),
                                args.toArray(String[]::new));
                run++;
                assertTrue(
                        r.code() == 0 || r.code() == 1, l + ": exit " + r.code() + "\n" + r.err());
                List<String> out = r.out().lines().toList();
                int at = 0;
                for (String s : shown) {
                    if (s.equals("...")) {
                        continue;
                    }
                    while (at < out.size() && !out.get(at).equals(s)) {
                        at++;
                    }
                    assertTrue(
                            at < out.size(),
                            l + ": the README shows '" + s + "', deja prints:\n" + r.out());
                    at++;
                }
            }
        }
        assertTrue(run >= 4, "the README's commands were run: " + run);
    }
}
