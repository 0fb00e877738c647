package dev.deja.arch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.body.CompactConstructorDeclaration;
import com.github.javaparser.ast.body.TypeDeclaration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 25: no method over {@value #LIMIT} lines in main code without a reason written beside it.
 * Every method, constructor and compact constructor under {@code src/main/java} is measured from
 * its declaration's first line (its first annotation or modifier; the Javadoc is not counted) to
 * its closing brace. One over the limit needs a {@code // Long: <why>} comment directly above that
 * first line (below the Javadoc), saying why splitting it would be worse; the why may go on over
 * further {@code //} lines and must be at least {@value #MIN_WORDS} words.
 *
 * <p>The long methods that predated this test have all been split (the list that tolerated them is
 * gone): every method over the limit now needs its reason.
 */
class MethodLengthTest {
    static final int LIMIT = 80;
    static final int MIN_WORDS = 6;
    static final Path MAIN = Path.of("src/main/java");
    static final Pattern REASON = Pattern.compile("^\\s*// Long: (.*)$");
    static final Pattern MORE = Pattern.compile("^\\s*// ?(.*)$");

    /** One method over the limit. */
    record LongMethod(String key, int lines, String reason) {}

    @Test
    void noLongMethodWithoutAReason() throws IOException {
        List<String> unexplained = new ArrayList<>();
        List<String> weak = new ArrayList<>();
        for (LongMethod m : longMethods(MAIN)) {
            if (m.reason() != null) {
                if (m.reason().split("\\s+").length < MIN_WORDS) {
                    weak.add(m.key() + " (" + m.lines() + " lines): '// Long: " + m.reason() + "'");
                }
            } else {
                unexplained.add(m.key() + " (" + m.lines() + " lines)");
            }
        }
        assertEquals(
                List.of(),
                unexplained,
                "methods over "
                        + LIMIT
                        + " lines without a '// Long: <why splitting it would be worse>' line"
                        + " directly above the declaration (below its Javadoc): split them or"
                        + " say why not");
        assertEquals(
                List.of(),
                weak,
                "a reason must say why splitting would be worse, in " + MIN_WORDS + "+ words");
    }

    /** The counting itself, on a file made for it: a test that cannot fail is no guard. */
    @Test
    void countsFromTheDeclarationToTheClosingBraceAndReadsTheReason(
            @org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < LIMIT - 4; i++) {
            body.append("        x++;\n");
        }
        String src =
                "package p;\n"
                        + "class A {\n"
                        + "    /**\n     * Javadoc is not counted.\n     */\n"
                        + "    @Deprecated\n"
                        + "    void atLimit() {\n"
                        + "        int x = 0;\n"
                        + body
                        + "    }\n"
                        + "    void over(int y) {\n"
                        + "        int x = 0;\n"
                        + body
                        + "        x++;\n"
                        + "        x++;\n"
                        + "    }\n"
                        + "    /** Doc. */\n"
                        + "    // Long: one switch over the sixty keywords, each case two lines\n"
                        + "    A() {\n"
                        + "        int x = 0;\n"
                        + body
                        + "        x++;\n"
                        + "        x++;\n"
                        + "    }\n"
                        + "    // Long: big\n"
                        + "    void excuse() {\n"
                        + "        int x = 0;\n"
                        + body
                        + "        x++;\n"
                        + "        x++;\n"
                        + "    }\n"
                        + "}\n";
        Files.createDirectories(dir.resolve("p"));
        Files.writeString(dir.resolve("p/A.java"), src);
        List<LongMethod> found = longMethods(dir);
        assertEquals(3, found.size(), found.toString());
        assertEquals(new LongMethod("p/A.java: A.over(int)", LIMIT + 1, null), found.get(0));
        assertEquals(
                new LongMethod(
                        "p/A.java: A.A()",
                        LIMIT + 1,
                        "one switch over the sixty keywords, each case two lines"),
                found.get(1));
        assertEquals("big", found.get(2).reason());
    }

    /** The methods under {@code root} over the limit, in file and line order. */
    static List<LongMethod> longMethods(Path root) throws IOException {
        JavaParser parser =
                new JavaParser(
                        new ParserConfiguration()
                                .setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_17));
        List<Path> files;
        try (Stream<Path> s = Files.walk(root)) {
            files = s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        List<LongMethod> out = new ArrayList<>();
        for (Path f : files) {
            String text = Files.readString(f);
            ParseResult<CompilationUnit> r = parser.parse(text);
            assertTrue(r.isSuccessful(), f + ": " + r.getProblems());
            String[] lines = text.split("\n", -1);
            String rel = root.relativize(f).toString().replace('\\', '/');
            List<Node> decls = new ArrayList<>();
            r.getResult().orElseThrow().walk(Node.TreeTraversal.PREORDER, decls::add);
            for (Node n : decls) {
                if (!(n instanceof CallableDeclaration<?>)
                        && !(n instanceof CompactConstructorDeclaration)) {
                    continue;
                }
                int begin = n.getBegin().orElseThrow().line;
                int end = n.getEnd().orElseThrow().line;
                int length = end - begin + 1;
                if (length > LIMIT) {
                    out.add(new LongMethod(rel + ": " + name(n), length, reason(lines, begin)));
                }
            }
        }
        return out;
    }

    /** {@code Outer.Inner.method(ParamType, ...)}. */
    static String name(Node n) {
        String sig =
                n instanceof CallableDeclaration<?> c
                        ? c.getSignature().asString()
                        : ((CompactConstructorDeclaration) n).getNameAsString() + "()";
        StringBuilder types = new StringBuilder();
        for (Node p = n.getParentNode().orElse(null);
                p != null;
                p = p.getParentNode().orElse(null)) {
            if (p instanceof TypeDeclaration<?> t) {
                types.insert(0, t.getNameAsString() + ".");
            }
        }
        return types + sig;
    }

    /**
     * The reason above line {@code begin} (1-based): the {@code // Long:} line and the {@code //}
     * lines after it up to the declaration; null when there is none.
     */
    static String reason(String[] lines, int begin) {
        int i = begin - 2;
        while (i >= 0 && MORE.matcher(lines[i]).matches() && !REASON.matcher(lines[i]).matches()) {
            i--;
        }
        if (i < 0) {
            return null;
        }
        Matcher m = REASON.matcher(lines[i]);
        if (!m.matches()) {
            return null;
        }
        StringBuilder why = new StringBuilder(m.group(1).strip());
        for (int j = i + 1; j < begin - 1; j++) {
            Matcher more = MORE.matcher(lines[j]);
            more.matches();
            why.append(' ').append(more.group(1).strip());
        }
        return why.toString().strip();
    }
}
