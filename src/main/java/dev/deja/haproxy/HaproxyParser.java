package dev.deja.haproxy;

import dev.deja.engine.InlineSuppression;
import dev.deja.engine.Location;
import dev.deja.source.ScanRequest;
import dev.deja.source.SourceFile;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Parser for haproxy.cfg, following HAProxy's configuration manual (sections 2.1 to 2.5 and 4).
 *
 * <ul>
 *   <li>Lines are split into words on spaces and tabs; an unprotected {@code #} starts a comment; {@code "..."}
 *       (weak) and {@code '...'} (strong) quoting; quoted and unquoted parts next to each other form one word;
 *       backslash escapes {@code \ }, {@code \#}, {@code \\}, {@code \'}, {@code \"}, {@code \$}, {@code \n},
 *       {@code \r}, {@code \t}, {@code \xNN} (outside strong quotes; other backslashes are kept).</li>
 *   <li>Environment variables inside double quotes: {@code $NAME}, {@code ${NAME}}, {@code ${NAME-default}}, from
 *       {@link ScanRequest#variable(String)}; an unset one stays in the word as {@code ${NAME}} and is listed in
 *       {@link Directive#unresolved()}.</li>
 *   <li>Conditional blocks {@code .if/.elif/.else/.endif} (nested) evaluated with {@link Conditions} against
 *       {@code --haproxy-version} (default {@value #DEFAULT_VERSION}); branches that cannot be decided are all kept,
 *       their directives carrying the condition; {@code .diag/.notice/.warning/.alert} become notes.</li>
 *   <li>Every section keyword; keywords and sections deja does not know are kept (never an error). A section
 *       ends at the next section keyword or at the end of its file; the last {@code defaults} carries over to the
 *       next files of the same instance, as with {@code haproxy -f a.cfg -f b.cfg}.</li>
 * </ul>
 * The only exception thrown is {@link HaproxyParseException}, naming file:line.
 */
public final class HaproxyParser {
    /** What {@code version_atleast()} is evaluated against without {@code --haproxy-version}: the current LTS. */
    public static final String DEFAULT_VERSION = "3.2";
    /**
     * Deepest .if nesting accepted: HAProxy's own limit (cfgparse.c: "too many nested '.if', max is 100"; 2.6 refuses
     * the 100th nested .if). Lines have no length limit of their own, as in HAProxy 2.6+ whose line buffer grows (a
     * 2,000,000-character line passes `haproxy -c`); the file size limit bounds them.
     */
    public static final int MAX_NESTING = 99;

    /** Every section keyword of HAProxy 3.x's manual. */
    public static final Set<String> SECTION_KEYWORDS = Set.of("global", "defaults", "frontend", "backend", "listen",
            "userlist", "peers", "resolvers", "mailers", "http-errors", "ring", "cache", "program", "crt-store",
            "log-forward", "fcgi-app", "traces", "acme", "dynamic-update", "ssl-f-use-defaults", "log-profile",
            "namespace_list");

    private final Function<String, String> variable;
    private final String version;
    private final List<Section> sections = new ArrayList<>();
    private final Map<String, Section> namedDefaults = new HashMap<>();
    private final List<String> notes = new ArrayList<>();
    private final List<InlineSuppression> suppressions = new ArrayList<>();
    private final List<String> files = new ArrayList<>();
    private final List<String[]> blockWhere = new ArrayList<>();
    private final List<List<String>> blockBranches = new ArrayList<>();
    private final List<Boolean> blockNone = new ArrayList<>();
    private Section lastDefaults;
    private int directiveCount;

    // tokenizer output for the current line (reused)
    private final ArrayList<String> words = new ArrayList<>();
    private final ArrayList<String> unresolvedNames = new ArrayList<>();
    private final StringBuilder word = new StringBuilder();
    private int commentStart;
    /** The arguments of the current line's dot-directive as written, else null. */
    private String rawArgs;

    private HaproxyParser(Function<String, String> variable, String version) {
        this.variable = variable;
        this.version = version == null || version.isBlank() ? DEFAULT_VERSION : version.strip();
    }

    /**
     * Parses one configuration text, e.g. a haproxy.cfg kept in a Kubernetes ConfigMap. {@code display} is how
     * findings name the file ({@code "configmap ingress/haproxy#haproxy.cfg"}); variables come from
     * {@code request.variable(...)} and {@code .if} versions from {@code request.haproxyVersion}.
     */
    public static HaproxyConfig parse(String display, String text, ScanRequest request) {
        return parse(display, List.of(new SourceFile(display, text)), request);
    }

    /** Parses several files as one HAProxy instance, in {@code -f} order. */
    public static HaproxyConfig parse(String name, List<SourceFile> files, ScanRequest request) {
        HaproxyParser p = new HaproxyParser(request == null ? n -> null : request::variable,
                request == null ? null : request.haproxyVersion);
        for (SourceFile f : files) {
            p.parseFile(f.display(), f.text());
        }
        List<UndecidedBlock> blocks = new ArrayList<>();
        for (int i = 0; i < p.blockWhere.size(); i++) {
            blocks.add(new UndecidedBlock(i, p.blockWhere.get(i)[0], p.blockBranches.get(i), p.blockNone.get(i)));
        }
        return new HaproxyConfig(name, p.files, p.sections, p.notes, p.suppressions, p.directiveCount, blocks);
    }

    // ------------------------------------------------------------------ conditional blocks

    private static final class Frame {
        final int line;
        final String text;
        /** The expression as written, variables unexpanded: what messages show. */
        String raw;
        /** State of the branch being read. */
        Conditions.Tri branch;
        /** Whether an earlier branch was taken: TRUE, FALSE, or UNKNOWN (undecided). */
        Conditions.Tri earlier;
        boolean elseSeen;
        boolean parentInactive;
        String branchText;
        /** Index in {@link #blocks} once a branch is undecided, else -1; then the branch number. */
        int block = -1;
        int branchNo = -1;

        Frame(int line, String text) {
            this.line = line;
            this.text = text;
        }
    }

    private final class SectionBuilder {
        final String kind;
        final String name;
        final String from;
        final String file;
        final int line;
        final String condition;
        final Guard guard;
        final Section defaults;
        final List<Directive> directives = new ArrayList<>();
        final List<String[]> headerIgnores = new ArrayList<>();

        SectionBuilder(String kind, String name, String from, String file, int line, String condition, Guard guard,
                       Section defaults) {
            this.guard = guard;
            this.kind = kind;
            this.name = name;
            this.from = from;
            this.file = file;
            this.line = line;
            this.condition = condition;
            this.defaults = defaults;
        }

        Section build() {
            Section s = new Section(kind, name, from, file, line, condition, directives, defaults, guard);
            for (String[] ig : headerIgnores) {
                // an ignore on the header covers the whole section
                for (Directive d : directives) {
                    suppressions.add(new InlineSuppression(ig[0], Location.file(file, d.line()), ig[1], ig[2]));
                }
            }
            return s;
        }
    }

    private void parseFile(String display, String text) {
        files.add(display);
        Deque<Frame> stack = new ArrayDeque<>();
        String condition = null; // description of the undecided branches we are in, null when none
        Guard guard = null;
        boolean inactive = false;
        SectionBuilder cur = null;
        List<String[]> pendingIgnores = new ArrayList<>();
        int lineNo = 0;
        int pos = 0;
        int len = text.length();
        while (pos < len) {
            lineNo++;
            int nl = text.indexOf('\n', pos);
            int end = nl < 0 ? len : nl;
            int next = nl < 0 ? len : nl + 1;
            if (end > pos && text.charAt(end - 1) == '\r') {
                end--;
            }
            tokenize(text, pos, end, display, lineNo);
            // a conditional or message directive as written (variables unexpanded), for every message about it
            rawArgs = !words.isEmpty() && words.get(0).startsWith(".")
                    ? text.substring(pos, commentStart >= 0 && commentStart < end ? commentStart : end).strip()
                            .replaceFirst("^\\S+\\s*", "") : null;
            if (commentStart >= 0) {
                String[] ig = ignore(text, commentStart, end, display, lineNo);
                if (ig != null) {
                    pendingIgnores.add(ig);
                }
            }
            pos = next;
            if (words.isEmpty()) {
                continue;
            }
            String kw = words.get(0);
            if (!kw.isEmpty() && kw.charAt(0) == '.') {
                switch (kw) {
                    case ".if" -> {
                        if (stack.size() >= MAX_NESTING) {
                            throw new HaproxyParseException(display, lineNo, "too many nested '.if', max is " + (MAX_NESTING + 1)
                                    + " (as HAProxy)");
                        }
                        Frame f = new Frame(lineNo, expression());
                        f.raw = rawArgs;
                        f.parentInactive = inactive;
                        if (inactive) {
                            f.branch = Conditions.Tri.FALSE;
                            f.earlier = Conditions.Tri.TRUE;
                        } else {
                            Conditions.Tri t = eval(display, lineNo, f.text, f.raw);
                            f.branch = t;
                            f.earlier = t;
                            f.branchText = ".if " + f.raw + " (" + display + ":" + lineNo + ")";
                            undecided(f, display);
                        }
                        stack.push(f);
                    }
                    case ".elif", ".else" -> {
                        Frame f = stack.peek();
                        if (f == null) {
                            throw new HaproxyParseException(display, lineNo, kw + " without .if");
                        }
                        if (f.elseSeen) {
                            throw new HaproxyParseException(display, lineNo, kw + " after .else (of the .if at line " + f.line + ")");
                        }
                        boolean isElse = kw.equals(".else");
                        f.elseSeen = isElse;
                        if (f.parentInactive || f.earlier == Conditions.Tri.TRUE) {
                            f.branch = Conditions.Tri.FALSE;
                        } else {
                            String expr = isElse ? null : expression();
                            Conditions.Tri t = isElse ? Conditions.Tri.TRUE : eval(display, lineNo, expr, rawArgs);
                            if (f.earlier == Conditions.Tri.FALSE) {
                                f.branch = t;
                                f.earlier = t;
                            } else { // earlier branches undecided
                                f.branch = t == Conditions.Tri.FALSE ? Conditions.Tri.FALSE : Conditions.Tri.UNKNOWN;
                                f.earlier = t == Conditions.Tri.TRUE ? Conditions.Tri.TRUE : Conditions.Tri.UNKNOWN;
                            }
                            f.branchText = (isElse ? ".else" : ".elif " + rawArgs) + " (" + display + ":" + lineNo
                                    + ", of .if " + f.raw + " at line " + f.line + ")";
                            undecided(f, display);
                        }
                    }
                    case ".endif" -> {
                        if (stack.isEmpty()) {
                            throw new HaproxyParseException(display, lineNo, ".endif without .if");
                        }
                        Frame done = stack.pop();
                        if (done.block >= 0) {
                            blockNone.set(done.block, done.earlier != Conditions.Tri.TRUE);
                        }
                    }
                    case ".diag", ".notice", ".warning", ".alert" -> {
                        if (!inactive) {
                            // with a variable, as written: a variable's value is never printed
                            String msg = rawArgs.indexOf('$') >= 0 ? rawArgs : String.join(" ", words.subList(1, words.size()));
                            notes.add(display + ":" + lineNo + ": " + kw.substring(1) + ": " + msg
                                    + (kw.equals(".alert") ? " (HAProxy refuses to start on this .alert)" : "")
                                    + (condition == null ? "" : " [only when " + condition + "]"));
                        }
                    }
                    default -> {
                        if (!inactive) {
                            notes.add(display + ":" + lineNo + ": unknown directive " + kw + " kept as is");
                        }
                    }
                }
                // recompute the state
                inactive = false;
                StringBuilder c = null;
                List<int[]> g = null;
                for (java.util.Iterator<Frame> it = stack.descendingIterator(); it.hasNext(); ) {
                    Frame f = it.next();
                    if (f.branch == Conditions.Tri.FALSE) {
                        inactive = true;
                        break;
                    }
                    if (f.branch == Conditions.Tri.UNKNOWN) {
                        if (c == null) {
                            c = new StringBuilder();
                            g = new ArrayList<>();
                        } else {
                            c.append(" and ");
                        }
                        c.append(f.branchText);
                        g.add(new int[] {f.block, f.branchNo});
                    }
                }
                condition = inactive || c == null ? null : c.toString();
                guard = null;
                if (condition != null) {
                    int[] bl = new int[g.size()];
                    int[] br = new int[g.size()];
                    for (int k = 0; k < bl.length; k++) {
                        bl[k] = g.get(k)[0];
                        br[k] = g.get(k)[1];
                    }
                    guard = new Guard(bl, br);
                }
                continue;
            }
            if (inactive) {
                for (String[] ig : pendingIgnores) {
                    notes.add(ig[2] + ": deja:ignore " + ig[0] + " is followed by a line HAProxy skips (false .if"
                            + " branch); it suppresses nothing");
                }
                pendingIgnores.clear();
                continue;
            }
            directiveCount++;
            if (SECTION_KEYWORDS.contains(kw)) {
                if (cur != null) {
                    close(cur);
                }
                cur = open(kw, display, lineNo, condition, guard);
                for (String[] ig : pendingIgnores) {
                    suppressions.add(new InlineSuppression(ig[0], Location.file(display, lineNo), ig[1], ig[2]));
                    cur.headerIgnores.add(ig);
                }
                pendingIgnores.clear();
                continue;
            }
            for (String[] ig : pendingIgnores) {
                suppressions.add(new InlineSuppression(ig[0], Location.file(display, lineNo), ig[1], ig[2]));
            }
            pendingIgnores.clear();
            Directive d = new Directive(display, lineNo, List.copyOf(words), condition,
                    unresolvedNames.isEmpty() ? List.of() : List.copyOf(unresolvedNames), guard);
            if (!d.unresolved().isEmpty()) {
                notes.add(d.where() + ": variable" + (d.unresolved().size() > 1 ? "s " : " ")
                        + String.join(", ", d.unresolved()) + " not set (give --env NAME=VALUE); kept as unknown");
            }
            if (cur == null && condition == null) {
                // HAProxy: "unknown keyword 'x' out of section", a fatal error in every version
                throw new HaproxyParseException(display, lineNo, "unknown keyword '" + abbrev(kw) + "' out of section"
                        + " (HAProxy refuses the file: a file must open a section such as global, defaults or frontend"
                        + " before its first directive)");
            } else if (cur == null) {
                notes.add(d.where() + ": keyword '" + kw + "' outside any section (HAProxy refuses it when "
                        + condition + " holds); ignored");
            } else {
                cur.directives.add(d);
            }
        }
        for (String[] ig : pendingIgnores) {
            notes.add(ig[2] + ": deja:ignore " + ig[0] + " is followed by no directive; it suppresses nothing");
        }
        if (!stack.isEmpty()) {
            Frame f = stack.peek();
            throw new HaproxyParseException(display, f.line, ".if without matching .endif before the end of the file");
        }
        missingLf(display, text, lineNo);
        if (cur != null) {
            close(cur);
        }
    }

    /**
     * A last line without its LF: HAProxy 2.3 and later refuse the file ("Missing LF on last line, file might have
     * been truncated", cfgparse.c: ERR_ALERT | ERR_FATAL), 2.2 warns ("This will become a hard error in HAProxy
     * 2.3"), older versions read it silently.
     */
    private void missingLf(String display, String text, int lineNo) {
        if (text.isEmpty() || text.charAt(text.length() - 1) == '\n') {
            return;
        }
        if (Conditions.compareVersions(version, "2.3") >= 0) {
            throw new HaproxyParseException(display, lineNo, "missing LF on last line: HAProxy " + version
                    + " refuses the file (\"Missing LF on last line, file might have been truncated\", fatal since 2.3;"
                    + " --haproxy-version sets the version); end the file with a newline (in a YAML ConfigMap: '|'"
                    + " keeps it, '|-' strips it)");
        }
        if (Conditions.compareVersions(version, "2.2") >= 0) {
            notes.add(display + ":" + lineNo + ": missing LF on last line: HAProxy " + version + " warns (fatal"
                    + " from 2.3 on); end the file with a newline");
        }
    }

    /** Registers the frame's current branch as undecided (a new block on its first undecided branch). */
    private void undecided(Frame f, String display) {
        if (f.branch != Conditions.Tri.UNKNOWN) {
            return;
        }
        if (f.block < 0) {
            f.block = blockWhere.size();
            blockWhere.add(new String[] {display + ":" + f.line});
            blockBranches.add(new ArrayList<>());
            blockNone.add(Boolean.TRUE);
        }
        blockBranches.get(f.block).add(f.branchText);
        f.branchNo = blockBranches.get(f.block).size() - 1;
    }

    private String expression() {
        return String.join(" ", words.subList(1, words.size()));
    }

    /** Evaluates {@code expr} (variables expanded); messages show {@code raw}, as written, never a variable's value. */
    private Conditions.Tri eval(String display, int line, String expr, String raw) {
        Conditions.Tri[] out = new Conditions.Tri[1];
        Conditions c;
        try {
            c = Conditions.evaluate(expr, variable, version, unresolvedNames, out);
        } catch (Conditions.SyntaxError e) {
            throw new HaproxyParseException(display, line, "cannot evaluate condition '" + abbrev(raw) + "'"
                    + (raw.indexOf('$') >= 0 ? " (the values of its variables are not shown)" : ": " + abbrev(e.getMessage())));
        }
        if (out[0] == Conditions.Tri.UNKNOWN) {
            notes.add(display + ":" + line + ": undecided condition '" + raw + "' ("
                    + String.join("; ", c.reasons) + "): every branch is analysed");
        }
        return out[0];
    }

    /** At most 80 characters of a text for a message. */
    private static String abbrev(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }

    private SectionBuilder open(String kw, String display, int line, String condition, Guard guard) {
        String name = null;
        String from = null;
        int i = 1;
        if (words.size() > 1 && !words.get(1).equals("from")) {
            name = words.get(1);
            i = 2;
        }
        for (; i < words.size() - 1; i++) {
            if (words.get(i).equals("from")) {
                from = words.get(i + 1);
                break;
            }
        }
        Section defaults = null;
        boolean inherits = kw.equals("defaults") || kw.equals("frontend") || kw.equals("backend") || kw.equals("listen");
        if (inherits) {
            if (from != null) {
                defaults = namedDefaults.get(from);
                if (defaults == null) {
                    notes.add(display + ":" + line + ": " + kw + (name == null ? "" : " " + name) + " from " + from
                            + ": no defaults section named '" + from + "' above (HAProxy would refuse it)");
                }
            } else if (!kw.equals("defaults")) {
                defaults = lastDefaults;
            }
        }
        return new SectionBuilder(kw, name, from, display, line, condition, guard, defaults);
    }

    private void close(SectionBuilder b) {
        Section s = b.build();
        sections.add(s);
        if (s.kind().equals("defaults")) {
            lastDefaults = s;
            if (s.name() != null) {
                namedDefaults.put(s.name(), s);
            }
        }
    }

    /** {@code # deja:ignore <rule-id> <reason>} in a comment: {rule, reason, origin}, or null. */
    private static String[] ignore(String text, int from, int end, String display, int line) {
        int at = -1; // searched within this line only: a search to the end of the text was quadratic in comments
        for (int i = text.indexOf('d', from); i >= 0 && i + "deja:ignore".length() <= end; i = text.indexOf('d', i + 1)) {
            if (text.startsWith("deja:ignore", i)) {
                at = i;
                break;
            }
        }
        if (at < 0) {
            return null;
        }
        String rest = text.substring(at + "deja:ignore".length(), end).strip();
        if (rest.isEmpty()) {
            return null;
        }
        int sp = 0;
        while (sp < rest.length() && !Character.isWhitespace(rest.charAt(sp))) {
            sp++;
        }
        String rule = rest.substring(0, sp);
        String reason = rest.substring(sp).strip();
        if (reason.isEmpty()) { // one rule for every suppression (--ignore-file, annotations): a reason is required
            throw new HaproxyParseException(display, line, "deja:ignore " + rule + " gives no reason (write"
                    + " '# deja:ignore <rule-id> <reason>': why the risk is accepted)");
        }
        return new String[] {rule, reason, display + ":" + line};
    }

    // ------------------------------------------------------------------ word splitting

    /**
     * Splits text[start, end) into {@link #words}; sets {@link #commentStart} (index after '#', or -1). A word
     * made of plain characters only is cut out of the text in one piece; the builder is used from the first quote
     * or backslash on.
     */
    private void tokenize(String text, int start, int end, String display, int line) {
        words.clear();
        unresolvedNames.clear();
        commentStart = -1;
        StringBuilder w = word;
        w.setLength(0);
        boolean inWord = false;
        boolean plain = false; // the current word is text[wordStart, i) verbatim
        int wordStart = 0;
        char quote = 0; // 0, '"' or '\''
        int i = start;
        while (i < end) {
            char c = text.charAt(i);
            if (plain) {
                i = plainEnd(text, i, end);
                if (i == end) {
                    break;
                }
                c = text.charAt(i);
                if (c == ' ' || c == '\t') {
                    words.add(text.substring(wordStart, i));
                    plain = false;
                    inWord = false;
                    i++;
                    continue;
                }
                // leave the fast path: copy what we have and handle c below
                w.append(text, wordStart, i);
                plain = false;
            }
            if (quote == '\'') {
                if (c == '\'') {
                    quote = 0;
                } else {
                    w.append(c);
                }
                i++;
                continue;
            }
            if (c == '\\' && i + 1 < end) {
                char n = text.charAt(i + 1);
                switch (n) {
                    case ' ', '\\', '#', '\'', '"', '$' -> {
                        w.append(n);
                        i += 2;
                    }
                    case 'n' -> {
                        w.append('\n');
                        i += 2;
                    }
                    case 'r' -> {
                        w.append('\r');
                        i += 2;
                    }
                    case 't' -> {
                        w.append('\t');
                        i += 2;
                    }
                    case 'x' -> {
                        int h1 = i + 2 < end ? Character.digit(text.charAt(i + 2), 16) : -1;
                        int h2 = i + 3 < end ? Character.digit(text.charAt(i + 3), 16) : -1;
                        if (h1 < 0 || h2 < 0) {
                            throw new HaproxyParseException(display, line,
                                    "invalid escape '\\x' (two hexadecimal digits expected)");
                        }
                        w.append((char) (h1 * 16 + h2));
                        i += 4;
                    }
                    default -> {
                        w.append(c);
                        i++;
                    }
                }
                inWord = true;
                continue;
            }
            if (quote == '"') {
                if (c == '"') {
                    quote = 0;
                    i++;
                } else if (c == '$') {
                    i = variable(text, i, end, display, line);
                } else {
                    w.append(c);
                    i++;
                }
                continue;
            }
            switch (c) {
                case ' ', '\t' -> {
                    if (inWord) {
                        words.add(w.toString());
                        w.setLength(0);
                        inWord = false;
                    }
                    i++;
                }
                case '#' -> {
                    commentStart = i + 1;
                    i = end;
                }
                case '"', '\'' -> {
                    quote = c;
                    inWord = true;
                    i++;
                }
                default -> {
                    if (!inWord) {
                        plain = true;
                        wordStart = i;
                        inWord = true;
                    } else {
                        w.append(c);
                    }
                    i++;
                }
            }
        }
        if (quote != 0) {
            throw new HaproxyParseException(display, line, "unterminated " + (quote == '"' ? "double" : "single")
                    + " quote (quotes do not span lines)");
        }
        if (plain) {
            words.add(text.substring(wordStart, end));
        } else if (inWord) {
            words.add(w.toString());
            w.setLength(0);
        }
    }

    /** The index of the first space, tab, '#', quote or backslash in text[i, end), or end. */
    private static int plainEnd(String text, int i, int end) {
        while (i < end) {
            char c = text.charAt(i);
            if (c == ' ' || c == '\t' || c == '#' || c == '"' || c == '\'' || c == '\\') {
                return i;
            }
            i++;
        }
        return end;
    }

    /** Expands a variable at text[i] == '$' inside double quotes; returns the index after it. */
    private int variable(String text, int i, int end, String display, int line) {
        StringBuilder w = word;
        if (i + 1 < end && text.charAt(i + 1) == '{') {
            int close = text.indexOf('}', i + 2);
            if (close < 0 || close >= end) {
                throw new HaproxyParseException(display, line, "unterminated variable '${' (missing '}')");
            }
            String inner = text.substring(i + 2, close);
            String name = inner;
            String dflt = null;
            int dash = inner.indexOf('-');
            if (dash >= 0) {
                name = inner.substring(0, dash);
                dflt = inner.substring(dash + 1);
            }
            int br = name.indexOf('[');
            if (br >= 0) {
                name = name.substring(0, br);
            }
            if (name.isEmpty() || !validName(name)) {
                throw new HaproxyParseException(display, line, "invalid variable name '${" + inner + "}'");
            }
            String v = variable.apply(name);
            if (v != null) {
                w.append(v);
            } else if (dflt != null) {
                w.append(dflt);
            } else {
                w.append("${").append(name).append('}');
                if (!unresolvedNames.contains(name)) {
                    unresolvedNames.add(name);
                }
            }
            return close + 1;
        }
        int j = i + 1;
        while (j < end && isNameChar(text.charAt(j))) {
            j++;
        }
        if (j == i + 1) {
            w.append('$');
            return i + 1;
        }
        String name = text.substring(i + 1, j);
        String v = variable.apply(name);
        if (v != null) {
            w.append(v);
        } else {
            w.append("${").append(name).append('}');
            if (!unresolvedNames.contains(name)) {
                unresolvedNames.add(name);
            }
        }
        return j;
    }

    private static boolean isNameChar(char c) {
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    private static boolean validName(String n) {
        for (int k = 0; k < n.length(); k++) {
            if (!isNameChar(n.charAt(k))) {
                return false;
            }
        }
        return true;
    }
}
