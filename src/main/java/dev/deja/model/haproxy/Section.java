package dev.deja.model.haproxy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * One section of a configuration: {@code global}, {@code defaults [name] [from X]}, {@code frontend
 * NAME}, ..., including sections deja does not know (kept as they are). {@code defaults} is the
 * defaults section this one inherits from (the {@code from} one, or the last {@code defaults} above
 * an anonymous proxy), or null.
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

    public Section(
            String kind,
            String name,
            String from,
            String file,
            int line,
            String condition,
            List<Directive> directives,
            Section defaults,
            Guard guard) {
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

    /**
     * A frontend or listen that clients can reach: it has a {@code bind} line (under an undecided
     * .if too) and is not {@code disabled} (the last of {@code disabled}/{@code enabled}, its own
     * or its defaults chain's; one under an undecided .if does not count). HAProxy gives a frontend
     * without {@code bind} no listener ("has no 'bind' directive. Please declare it as a backend",
     * cfgparse.c check_config_validity) and starts a disabled one stopped; neither holds a
     * connection slot. Checked with haproxy 2.6 -c: a file whose only frontend is disabled, in its
     * own section or in its defaults, "will not start (no listener)".
     */
    public boolean listens() {
        if (!acceptsClients() || ownLast("bind", null) == null) {
            return false;
        }
        for (Section x = this; x != null; x = x.defaults) {
            for (int i = x.directives.size() - 1; i >= 0; i--) {
                Directive d = x.directives.get(i);
                if ((d.is("disabled") || d.is("enabled")) && d.guard() == null) {
                    return d.is("enabled");
                }
            }
        }
        return true;
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

    /**
     * Lookups along the defaults chain, memoised: a long chain of {@code defaults ... from} is
     * walked once, not per frontend.
     */
    private final ConcurrentHashMap<String, Directive> chainMemo = new ConcurrentHashMap<>();

    private volatile Map<String, List<Directive>> byKeyword;
    private volatile int[] chainBlocks;
    private static final Directive NONE =
            new Directive("", 0, List.of("\0"), null, List.of(), null);

    private List<Directive> ownByKeyword(String kw) {
        Map<String, List<Directive>> m = byKeyword;
        if (m == null) {
            m = new HashMap<>();
            for (Directive d : directives) {
                m.computeIfAbsent(d.keyword(), k -> new ArrayList<>()).add(d);
            }
            byKeyword = m;
        }
        return m.getOrDefault(kw, List.of());
    }

    /**
     * Sections up to this many directives are searched in place: an index (a map and a list per
     * keyword) costs more than it saves there, and most frontends of a large config are that small.
     */
    private static final int INDEX_FROM = 16;

    private Directive ownLast(String kw, String second) {
        if (directives.size() < INDEX_FROM) {
            for (int i = directives.size() - 1; i >= 0; i--) {
                Directive d = directives.get(i);
                if (d.keyword().equals(kw) && (second == null || second.equals(d.word(1)))) {
                    return d;
                }
            }
            return null;
        }
        List<Directive> l = ownByKeyword(kw);
        for (int i = l.size() - 1; i >= 0; i--) {
            if (second == null || second.equals(l.get(i).word(1))) {
                return l.get(i);
            }
        }
        return null;
    }

    /**
     * The effective directive by keyword (and second word), iteratively up the chain, memoised on
     * every section passed.
     */
    @SuppressWarnings("ReferenceEquality") // NONE is the memo's sentinel for "looked up, not found"
    private Directive chainLookup(String kw, String second) {
        String key = memoKey(kw, second);
        Directive found = NONE;
        Section stop = null; // the section the answer came from: its own directive or its memo
        boolean own = false;
        for (Section x = this; x != null; x = x.defaults) {
            Directive m = x.chainMemo.get(key);
            if (m != null) {
                found = m;
                stop = x;
                break;
            }
            Directive d = x.ownLast(kw, second);
            if (d != null) {
                found = d;
                stop = x;
                own = true;
                break;
            }
        }
        // memoised on every defaults section passed (a second walk: no list per lookup); not on the
        // proxy asked: its own directives are few or indexed, and a memo per frontend of a large
        // config costs more memory than the lookups it saves
        for (Section x = this; x != stop; x = x.defaults) {
            if (x.memoised()) {
                x.chainMemo.put(key, found);
            }
        }
        if (own && stop.memoised()) {
            stop.chainMemo.put(key, found);
        }
        return found == NONE ? null : found;
    }

    /**
     * Memo keys "kw" and "kw\0second", made once per pair for the whole run (no string per lookup).
     */
    private static final ConcurrentHashMap<String, ConcurrentHashMap<String, String>> KEYS =
            new ConcurrentHashMap<>();

    /** Whether chain lookups are memoised here: defaults sections, which many proxies share. */
    private boolean memoised() {
        return kind.equals("defaults");
    }

    private static String memoKey(String kw, String second) {
        if (second == null) {
            return kw;
        }
        ConcurrentHashMap<String, String> bySecond = KEYS.get(kw);
        if (bySecond == null) {
            KEYS.putIfAbsent(kw, new ConcurrentHashMap<>());
            bySecond = KEYS.get(kw);
        }
        String k = bySecond.get(second);
        if (k == null) {
            bySecond.putIfAbsent(second, kw + '\0' + second);
            k = bySecond.get(second);
        }
        return k;
    }

    /**
     * The undecided .if blocks (ids, sorted) that directives of this section and of its defaults
     * chain sit in, memoised on every section of the chain.
     */
    int[] chainBlocks() {
        int[] b = chainBlocks;
        if (b != null) {
            return b;
        }
        List<Section> chain = new ArrayList<>();
        for (Section x = this; x != null && x.chainBlocks == null; x = x.defaults) {
            chain.add(x);
        }
        if (chain.isEmpty()) { // another thread (rules run in parallel) memoised it meanwhile
            return chainBlocks;
        }
        Section top = chain.get(chain.size() - 1).defaults;
        int[] acc = top == null ? new int[0] : top.chainBlocks;
        for (int i = chain.size() - 1; i >= 0; i--) {
            TreeSet<Integer> ids = null;
            for (Directive d : chain.get(i).directives) {
                if (d.guard() != null) {
                    if (ids == null) {
                        ids = new TreeSet<>();
                        for (int v : acc) {
                            ids.add(v);
                        }
                    }
                    for (int k = 0; k < d.guard().size(); k++) {
                        ids.add(d.guard().block(k));
                    }
                }
            }
            if (ids != null) {
                acc = ids.stream().mapToInt(Integer::intValue).toArray();
            }
            chain.get(i).chainBlocks = acc;
        }
        return acc;
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
        return chainLookup(kw, null);
    }

    public Directive effective(String kw, String second) {
        return chainLookup(kw, second);
    }

    public List<Directive> all(Predicate<Directive> p) {
        return directives.stream().filter(p).toList();
    }

    @Override
    public String toString() {
        return label() + " (" + where() + ")";
    }
}
