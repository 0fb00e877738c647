package dev.deja.haproxy;

import java.util.List;
import java.util.function.Predicate;

/**
 * One section of a configuration: {@code global}, {@code defaults [name] [from X]}, {@code frontend NAME}, ...,
 * including sections deja does not know (kept as they are). {@code defaults} is the defaults section this one
 * inherits from (the {@code from} one, or the last {@code defaults} above an anonymous proxy), or null.
 */
public final class Section {
    private final String kind;
    private final String name;
    private final String from;
    private final String file;
    private final int line;
    private final String condition;
    private final List<Directive> directives;
    private final Section defaults;
    private final Guard guard;

    public Section(String kind, String name, String from, String file, int line, String condition,
                   List<Directive> directives, Section defaults, Guard guard) {
        this.guard = guard;
        this.kind = kind;
        this.name = name;
        this.from = from;
        this.file = file;
        this.line = line;
        this.condition = condition;
        this.directives = List.copyOf(directives);
        this.defaults = defaults;
    }

    public String kind() {
        return kind;
    }

    /** The name, or null (global, anonymous defaults). */
    public String name() {
        return name;
    }

    public String from() {
        return from;
    }

    public String file() {
        return file;
    }

    public int line() {
        return line;
    }

    /** The undecided .if branch the section header sits in, or null. */
    public String condition() {
        return condition;
    }

    /** The undecided branches the header sits in, or null. */
    public Guard guard() {
        return guard;
    }

    public List<Directive> directives() {
        return directives;
    }

    public Section defaults() {
        return defaults;
    }

    public boolean isProxy() {
        return kind.equals("frontend") || kind.equals("backend") || kind.equals("listen");
    }

    /** Frontend side: frontend or listen. */
    public boolean acceptsClients() {
        return kind.equals("frontend") || kind.equals("listen");
    }

    /** "frontend fe_ping", "global", "defaults" ... */
    public String label() {
        return name == null ? kind : kind + " " + name;
    }

    public String where() {
        return file + ":" + line;
    }

    /** The last directive of this section (not its defaults) that matches. */
    public Directive last(Predicate<Directive> p) {
        for (int i = directives.size() - 1; i >= 0; i--) {
            Directive d = directives.get(i);
            if (p.test(d)) {
                return d;
            }
        }
        return null;
    }

    /** The last matching directive of this section, else of its defaults chain. */
    public Directive effective(Predicate<Directive> p) {
        for (Section s = this; s != null; s = s.defaults) {
            Directive d = s.last(p);
            if (d != null) {
                return d;
            }
        }
        return null;
    }

    public Directive effective(String kw) {
        return effective(d -> d.is(kw));
    }

    public Directive effective(String kw, String second) {
        return effective(d -> d.is(kw, second));
    }

    public List<Directive> all(Predicate<Directive> p) {
        return directives.stream().filter(p).toList();
    }

    @Override
    public String toString() {
        return label() + " (" + where() + ")";
    }
}
