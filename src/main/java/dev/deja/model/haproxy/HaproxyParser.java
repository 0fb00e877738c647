package dev.deja.model.haproxy;

import dev.deja.engine.SourceFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Parser for haproxy.cfg, following HAProxy's configuration manual (sections 2.1 to 2.5 and 4).
 *
 * <ul>
 *   <li>Lines are split into words on spaces and tabs; an unprotected {@code #} starts a comment;
 *       {@code "..."} (weak) and {@code '...'} (strong) quoting; quoted and unquoted parts next to
 *       each other form one word; backslash escapes {@code \ }, {@code \#}, {@code \\}, {@code \'},
 *       {@code \"}, {@code \$}, {@code \n}, {@code \r}, {@code \t}, {@code \xNN} (outside strong
 *       quotes; other backslashes are kept).
 *   <li>Environment variables inside double quotes: {@code $NAME}, {@code ${NAME}}, {@code
 *       ${NAME-default}}, from {@link ScanRequest#variable(String)}; an unset one stays in the word
 *       as {@code ${NAME}} and is listed in {@link Directive#unresolved()}.
 *   <li>Conditional blocks {@code .if/.elif/.else/.endif} (nested) evaluated with {@link
 *       Conditions} against {@code --haproxy-version} (default {@value #DEFAULT_VERSION}); branches
 *       that cannot be decided are all kept, their directives carrying the condition; {@code
 *       .diag/.notice/.warning/.alert} become notes.
 *   <li>Every section keyword; keywords and sections deja does not know are kept (never an error).
 *       A section ends at the next section keyword or at the end of its file; the last {@code
 *       defaults} carries over to the next files of the same instance, as with {@code haproxy -f
 *       a.cfg -f b.cfg}.
 * </ul>
 *
 * Three parts, each with its own tests: {@link LineLexer} (a line into words), {@link
 * ConditionalBlocks} (which lines HAProxy reads, under which undecided branches) and {@link
 * SectionAssembler} (directives into sections, defaults, inline ignores); this class drives them
 * line by line, in one pass over each file (time linear in its size). The only exception thrown is
 * {@link HaproxyParseException}, naming file:line.
 */
public final class HaproxyParser {
    /**
     * What {@code version_atleast()} is evaluated against without {@code --haproxy-version}: the
     * current LTS.
     */
    public static final String DEFAULT_VERSION = "3.2";

    /**
     * Deepest .if nesting accepted: HAProxy's own limit (see {@link
     * ConditionalBlocks#MAX_NESTING}). Lines have no length limit of their own, as in HAProxy 2.6+
     * whose line buffer grows (a 2,000,000-character line passes `haproxy -c`); the file size limit
     * bounds them.
     */
    public static final int MAX_NESTING = ConditionalBlocks.MAX_NESTING;

    /** Every section keyword of HAProxy 3.x's manual. */
    public static final Set<String> SECTION_KEYWORDS =
            Set.of(
                    "global",
                    "defaults",
                    "frontend",
                    "backend",
                    "listen",
                    "userlist",
                    "peers",
                    "resolvers",
                    "mailers",
                    "http-errors",
                    "ring",
                    "cache",
                    "program",
                    "crt-store",
                    "log-forward",
                    "fcgi-app",
                    "traces",
                    "acme",
                    "dynamic-update",
                    "ssl-f-use-defaults",
                    "log-profile",
                    "namespace_list");

    private final String version;
    private final List<String> notes = new ArrayList<>();
    private final List<String> files = new ArrayList<>();
    private final LineLexer lexer;
    private final ConditionalBlocks blocks;
    private final SectionAssembler assembler;
    private int directiveCount;

    private HaproxyParser(Function<String, String> variable, String version) {
        this.version = version == null || version.isBlank() ? DEFAULT_VERSION : version.strip();
        this.lexer = new LineLexer(variable);
        this.blocks = new ConditionalBlocks(variable, this.version, notes);
        this.assembler = new SectionAssembler(notes, this.version);
    }

    /**
     * Parses one configuration text, e.g. a haproxy.cfg kept in a Kubernetes ConfigMap. {@code
     * display} is how findings name the file ({@code "configmap ingress/haproxy#haproxy.cfg"});
     * variables come from {@code request.variable(...)} and {@code .if} versions from {@code
     * request.haproxyVersion}.
     */
    public static HaproxyConfig parse(String display, String text, ParseOptions options) {
        return parse(display, List.of(new SourceFile(display, text)), options);
    }

    /** Parses several files as one HAProxy instance, in {@code -f} order. */
    public static HaproxyConfig parse(String name, List<SourceFile> files, ParseOptions options) {
        ParseOptions o = options == null ? ParseOptions.NONE : options;
        HaproxyParser p = new HaproxyParser(o.variable(), o.version());
        for (SourceFile f : files) {
            p.parseFile(f.display(), f.text());
        }
        return new HaproxyConfig(
                name,
                p.files,
                p.assembler.sections(),
                p.notes,
                p.assembler.suppressions(),
                p.directiveCount,
                p.blocks.undecided());
    }

    private void parseFile(String display, String text) {
        files.add(display);
        Cursor at = new Cursor();
        while (at.pos < text.length()) {
            lines(display, text, at);
        }
        assembler.endFile();
        blocks.endFile(display);
        missingLf(display, text, at.lineNo);
    }

    /** Where {@link #lines} goes on: the next line's offset, and the last line's number. */
    private static final class Cursor {
        int pos;
        int lineNo;
    }

    /**
     * The next {@link #LINES_PER_CALL} lines (fewer at the end of the file). The loop over a file's
     * lines is split in these calls for the JIT, as {@link #line} is: a short-lived JVM compiles a
     * method after a few hundred calls, but a loop in a method called once (parseFile) only after
     * 120,000 turns, so a file's loop ran in the interpreter to its end (8% of the main thread's
     * samples on the 85,000-line benchmark config); this one is compiled after some 4,000 lines.
     */
    private void lines(String display, String text, Cursor at) {
        int pos = at.pos;
        int lineNo = at.lineNo;
        int len = text.length();
        for (int n = 0; n < LINES_PER_CALL && pos < len; n++) {
            lineNo++;
            int nl = text.indexOf('\n', pos);
            int end = nl < 0 ? len : nl;
            if (end > pos && text.charAt(end - 1) == '\r') {
                end--;
            }
            line(display, text, pos, end, lineNo);
            pos = nl < 0 ? len : nl + 1;
        }
        at.pos = pos;
        at.lineNo = lineNo;
    }

    private static final int LINES_PER_CALL = 16;

    /**
     * One line, {@code text[start, end)}. A method of its own, not the loop's body: a short-lived
     * JVM compiles a method after a few hundred calls, but a loop inside a method called once only
     * after tens of thousands of turns (on-stack replacement), so a large file's lines were mostly
     * read by the interpreter.
     */
    private void line(String display, String text, int start, int end, int lineNo) {
        lexer.lex(text, start, end, display, lineNo);
        List<String> words = lexer.words();
        int comment = lexer.commentStart();
        if (comment >= 0) {
            LineLexer.Ignore ig = LineLexer.ignore(text, comment, end, display, lineNo);
            if (ig != null) {
                assembler.ignore(ig);
            }
        }
        if (words.isEmpty()) {
            return;
        }
        String kw = words.get(0);
        if (!kw.isEmpty() && kw.charAt(0) == '.') {
            blocks.directive(
                    words, lexer.rawArgs(text, start, end), lexer.unresolved(), display, lineNo);
            return;
        }
        if (blocks.inactive()) {
            assembler.skipped();
            return;
        }
        directiveCount++;
        if (SECTION_KEYWORDS.contains(kw)) {
            assembler.open(words, display, lineNo, blocks.condition(), blocks.guard());
            return;
        }
        List<String> unresolved = lexer.unresolved();
        Directive d =
                new Directive(
                        display,
                        lineNo,
                        List.copyOf(words),
                        blocks.condition(),
                        unresolved.isEmpty() ? List.of() : List.copyOf(unresolved),
                        blocks.guard(),
                        lexer.written());
        if (!d.unresolved().isEmpty()) {
            List<String> own =
                    d.unresolved().stream().filter(n -> OwnVariables.own(n, version)).toList();
            List<String> unset =
                    d.unresolved().stream().filter(n -> !OwnVariables.own(n, version)).toList();
            if (!unset.isEmpty()) {
                notes.add(
                        d.where()
                                + ": variable"
                                + (unset.size() > 1 ? "s " : " ")
                                + String.join(", ", unset)
                                + " not set (give --env NAME=VALUE); kept as unknown");
            }
            if (!own.isEmpty()) {
                notes.add(
                        d.where()
                                + ": "
                                + String.join(", ", own)
                                + " set by HAProxy itself; value unknown to deja, kept as unknown");
            }
        }
        assembler.directive(d);
    }

    /**
     * A last line without its LF: HAProxy 2.3 and later refuse the file ("Missing LF on last line,
     * file might have been truncated", cfgparse.c: ERR_ALERT | ERR_FATAL), 2.2 warns ("This will
     * become a hard error in HAProxy 2.3"), older versions read it silently.
     */
    private void missingLf(String display, String text, int lineNo) {
        if (text.isEmpty() || text.charAt(text.length() - 1) == '\n') {
            return;
        }
        if (Conditions.compareVersions(version, "2.3") >= 0) {
            throw new HaproxyParseException(
                    display,
                    lineNo,
                    "missing LF on last line: HAProxy "
                            + version
                            + " refuses the file (\"Missing LF on last line, file might have been truncated\", fatal since 2.3;"
                            + " --haproxy-version sets the version); end the file with a newline (in a YAML ConfigMap: '|'"
                            + " keeps it, '|-' strips it)");
        }
        if (Conditions.compareVersions(version, "2.2") >= 0) {
            notes.add(
                    display
                            + ":"
                            + lineNo
                            + ": missing LF on last line: HAProxy "
                            + version
                            + " warns (fatal"
                            + " from 2.3 on); end the file with a newline");
        }
    }

    /** At most 80 characters of a text for a message. */
    static String abbrev(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }
}
