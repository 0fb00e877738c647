package dev.deja.model.haproxy;

import dev.deja.engine.InlineSuppression;
import dev.deja.engine.Location;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Assembles the directives of one HAProxy instance into sections (HAProxy configuration manual 2.5
 * and 4).
 *
 * <ul>
 *   <li>A section starts at its keyword and ends at the next section keyword or at the end of its
 *       file.
 *   <li>{@code defaults}, {@code frontend}, {@code backend} and {@code listen} inherit the last
 *       anonymous or named {@code defaults} above them, or the one named by {@code from NAME}; the
 *       last {@code defaults} carries over to the next files of the same instance, as with {@code
 *       haproxy -f a.cfg -f b.cfg}.
 *   <li>A directive before any section is HAProxy's fatal "unknown keyword out of section"; under
 *       an undecided {@code .if} branch it is a note (HAProxy refuses it only when that branch is
 *       taken).
 *   <li>{@code # deja:ignore RULE REASON} comments apply to the next directive HAProxy reads; on a
 *       section's header line, to the header and every directive of the section.
 * </ul>
 *
 * Adding a directive or opening a section takes constant time (named defaults are found through a
 * map).
 */
final class SectionAssembler {
    private final List<String> notes;
    private final List<Section> sections = new ArrayList<>();
    private final Map<String, Section> namedDefaults = new HashMap<>();
    private final List<InlineSuppression> suppressions = new ArrayList<>();
    private final List<LineLexer.Ignore> pendingIgnores = new ArrayList<>();
    private Section lastDefaults;
    private String pendingBind;
    private Builder current;

    /**
     * Notes (a {@code from} naming no defaults, ignores that suppress nothing, ...) are added to
     * {@code notes}.
     */
    SectionAssembler(List<String> notes) {
        this(notes, HaproxyParser.DEFAULT_VERSION);
    }

    /**
     * {@code version} (as {@code --haproxy-version}) decides which removed keywords are refused
     * ({@link RemovedKeywords}) and which old spellings are read.
     */
    SectionAssembler(List<String> notes, String version) {
        this.notes = notes;
        this.version = version;
    }

    private final String version;

    private boolean atLeast(String v) {
        return Conditions.compareVersions(version, v) >= 0;
    }

    /**
     * A line HAProxy {@code version} refuses: a parse error naming file:line, or a note under an
     * undecided .if.
     */
    private void refuse(String file, int line, String condition, String what) {
        if (condition == null) {
            throw new HaproxyParseException(
                    file, line, what + "; --haproxy-version sets the version");
        }
        notes.add(file + ":" + line + ": " + what + " when " + condition + " holds");
    }

    private final class Builder {
        final String kind;
        final String name;
        final String from;
        final String file;
        final int line;
        final String condition;
        final Guard guard;
        final Section defaults;
        final List<Directive> directives = new ArrayList<>();
        final List<LineLexer.Ignore> headerIgnores = new ArrayList<>();

        Builder(
                String kind,
                String name,
                String from,
                String file,
                int line,
                String condition,
                Guard guard,
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
            Section s =
                    new Section(
                            kind, name, from, file, line, condition, directives, defaults, guard);
            for (LineLexer.Ignore ig : headerIgnores) {
                // an ignore on the header covers the whole section
                for (Directive d : directives) {
                    suppressions.add(
                            new InlineSuppression(
                                    ig.rule(),
                                    Location.file(file, d.line()),
                                    ig.reason(),
                                    ig.origin()));
                }
            }
            return s;
        }
    }

    /** A {@code deja:ignore} comment: it applies to the next directive read. */
    void ignore(LineLexer.Ignore ignore) {
        pendingIgnores.add(ignore);
    }

    /** A line HAProxy skips (in a FALSE {@code .if} branch): pending ignores suppress nothing. */
    void skipped() {
        for (LineLexer.Ignore ig : pendingIgnores) {
            notes.add(
                    ig.origin()
                            + ": deja:ignore "
                            + ig.rule()
                            + " is followed by a line HAProxy skips (false .if"
                            + " branch); it suppresses nothing");
        }
        pendingIgnores.clear();
    }

    /** A section keyword line: closes the current section and opens {@code words.get(0)}. */
    void open(List<String> words, String display, int line, String condition, Guard guard) {
        if (current != null) {
            close(current);
        }
        String kw = words.get(0);
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
        if (name == null
                && (kw.equals("frontend") || kw.equals("backend") || kw.equals("listen"))) {
            // cfgparse-listen.c, v2.0 to v3.4: "'frontend' expects an <id> argument", ERR_ABORT
            String what =
                    "'"
                            + kw
                            + "' without a name: HAProxy refuses the file (\"'"
                            + kw
                            + "' expects an <id> argument\")";
            if (condition == null) {
                throw new HaproxyParseException(display, line, what);
            }
            notes.add(display + ":" + line + ": " + what + " when " + condition + " holds");
        }
        listenAddress(words, kw, name, display, line, condition);
        Section defaults = defaultsOf(kw, name, from, display, line);
        current = new Builder(kw, name, from, display, line, condition, guard, defaults);
        if (pendingBind != null) {
            current.directives.add(
                    new Directive(
                            display,
                            line,
                            List.of("bind", pendingBind),
                            condition,
                            List.of(),
                            guard));
            pendingBind = null;
        }
        for (LineLexer.Ignore ig : pendingIgnores) {
            suppressions.add(
                    new InlineSuppression(
                            ig.rule(), Location.file(display, line), ig.reason(), ig.origin()));
            current.headerIgnores.add(ig);
        }
        pendingIgnores.clear();
    }

    /**
     * 'listen NAME ADDRESS' (or frontend): the address read as a bind line of the section before
     * HAProxy 1.6, refused since.
     */
    private void listenAddress(
            List<String> words,
            String kw,
            String name,
            String display,
            int line,
            String condition) {
        if ((kw.equals("frontend") || kw.equals("listen"))
                && name != null
                && words.size() > 2
                && !words.get(2).equals("from")) {
            // 'listen NAME ADDRESS': read as a bind before HAProxy 1.6, refused since
            if (atLeast("1.6")) {
                refuse(
                        display,
                        line,
                        condition,
                        "'"
                                + kw
                                + " "
                                + HaproxyParser.abbrev(name)
                                + " "
                                + HaproxyParser.abbrev(words.get(2))
                                + "': HAProxy "
                                + version
                                + " refuses the file (\"please use the 'bind' keyword for listening"
                                + " addresses\", since 1.6): move the address to a 'bind' line");
            } else {
                pendingBind = words.get(2);
            }
        }
    }

    /**
     * The defaults section a section inherits from: the one it names with {@code from} (a note when
     * there is none of that name above), else the last defaults section above; null for a defaults
     * section without {@code from}, and for sections that inherit none.
     */
    private Section defaultsOf(String kw, String name, String from, String display, int line) {
        Section defaults = null;
        boolean inherits =
                kw.equals("defaults")
                        || kw.equals("frontend")
                        || kw.equals("backend")
                        || kw.equals("listen");
        if (inherits) {
            if (from != null) {
                defaults = namedDefaults.get(from);
                if (defaults == null) {
                    notes.add(
                            display
                                    + ":"
                                    + line
                                    + ": "
                                    + kw
                                    + (name == null ? "" : " " + name)
                                    + " from "
                                    + from
                                    + ": no defaults section named '"
                                    + from
                                    + "' above (HAProxy would refuse it)");
                }
            } else if (!kw.equals("defaults")) {
                defaults = lastDefaults;
            }
        }
        return defaults;
    }

    /** A directive that is not a section keyword: it joins the current section. */
    void directive(Directive d) {
        for (LineLexer.Ignore ig : pendingIgnores) {
            suppressions.add(
                    new InlineSuppression(
                            ig.rule(),
                            Location.file(d.file(), d.line()),
                            ig.reason(),
                            ig.origin()));
        }
        pendingIgnores.clear();
        if (current == null && d.condition() == null) {
            // HAProxy: "unknown keyword 'x' out of section", a fatal error in every version
            throw new HaproxyParseException(
                    d.file(),
                    d.line(),
                    "unknown keyword '"
                            + HaproxyParser.abbrev(d.keyword())
                            + "' out of section (HAProxy refuses the file: a file must open"
                            + " a section such as global, defaults or frontend before its first directive)");
        } else if (current == null) {
            notes.add(
                    d.where()
                            + ": keyword '"
                            + d.keyword()
                            + "' outside any section (HAProxy refuses it when "
                            + d.condition()
                            + " holds); ignored");
        } else {
            RemovedKeywords.Removed r = RemovedKeywords.of(current.kind, d);
            if (r != null && atLeast(r.since())) {
                refuse(
                        d.file(),
                        d.line(),
                        d.condition(),
                        "'"
                                + d.keyword()
                                + "': HAProxy "
                                + version
                                + " refuses the file (\""
                                + r.haproxySays()
                                + "\")");
                return;
            }
            if (r != null && r.timeout() != null) {
                d = RemovedKeywords.asTimeout(d, r); // HAProxy before 2.1 reads the old spelling
            }
            String unknown = r == null ? Keywords.unknown(current.kind, d) : null;
            if (unknown != null) {
                notes.add(
                        d.where()
                                + ": "
                                + unknown
                                + (d.condition() == null
                                        ? ""
                                        : " (when " + d.condition() + " holds)")
                                + "; deja keeps the line, which no check reads");
            }
            badTime(d);
            current.directives.add(d);
        }
    }

    /**
     * {@code timeout NAME VALUE} whose value is not a time. HAProxy 2.6.12 (checked with it)
     * refuses the file when no unit follows the digits ("unexpected character 'x' in 'timeout
     * http-request'", '5x', '1.5s', '5S'), and only warns when a unit is followed by more ('5sec'
     * is read as 5s: "This will be reported as an error in next versions"). deja refuses the first
     * (exit 2) and notes the second; under an undecided .if both are notes. A value from an unset
     * variable is unknown, not wrong.
     */
    private void badTime(Directive d) {
        String v = d.word(2);
        if (!d.is("timeout")
                || d.word(1) == null
                || v != null && (d.unresolved(2) || Times.millis(v) >= 0)) {
            return;
        }
        // no value at all: haproxy 2.6 -c refuses it too ("'timeout tarpit' expects an integer
        // value (in milliseconds)")
        String what =
                v == null
                        ? "'timeout "
                                + HaproxyParser.abbrev(d.word(1))
                                + "' has no value (a time: digits and an optional unit: us, ms, s, m,"
                                + " h, d)"
                        : "'"
                                + HaproxyParser.abbrev(v)
                                + "' in 'timeout "
                                + HaproxyParser.abbrev(d.word(1))
                                + "' is not a time (digits and an optional unit: us, ms, s, m, h,"
                                + " d)";
        String unit = v == null ? null : Times.unitPrefix(v);
        if (unit != null) {
            notes.add(
                    d.where()
                            + ": "
                            + what
                            + ": HAProxy 2.6 reads it as "
                            + unit
                            + " and warns that later versions"
                            + " refuse it; deja does not read it");
        } else if (d.condition() == null) {
            throw new HaproxyParseException(
                    d.file(), d.line(), what + ": HAProxy refuses the file");
        } else {
            notes.add(
                    d.where()
                            + ": "
                            + what
                            + ": HAProxy refuses the file when "
                            + d.condition()
                            + " holds");
        }
    }

    /**
     * The end of a file: its last section ends; ignores after the last directive suppress nothing.
     */
    void endFile() {
        for (LineLexer.Ignore ig : pendingIgnores) {
            notes.add(
                    ig.origin()
                            + ": deja:ignore "
                            + ig.rule()
                            + " is followed by no directive; it suppresses nothing");
        }
        pendingIgnores.clear();
        if (current != null) {
            close(current);
            current = null;
        }
    }

    /** The sections, in the order they were closed (the order of the files and lines). */
    List<Section> sections() {
        return sections;
    }

    List<InlineSuppression> suppressions() {
        return suppressions;
    }

    private void close(Builder b) {
        Section s = b.build();
        sections.add(s);
        if (s.kind().equals("defaults")) {
            lastDefaults = s;
            if (s.name() != null) {
                namedDefaults.put(s.name(), s);
            }
        }
    }
}
