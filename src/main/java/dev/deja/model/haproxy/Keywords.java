package dev.deja.model.haproxy;

import dev.deja.engine.DidYouMean;
import java.util.HashSet;
import java.util.Set;

/**
 * The keywords HAProxy knows in its global and proxy sections (defaults, frontend, backend,
 * listen), from {@link KeywordList}: the entries of the manuals of HAProxy 2.0 to 3.4 and the
 * keywords their sources register, written by {@code packaging/haproxy-keywords.py}. A directive
 * whose keyword none of them knows is refused by haproxy ("unknown keyword 'x' in 'frontend'
 * section", "unknown option 'x'.", fatal in every version, checked with haproxy 2.6.12); deja notes
 * it, naming file:line, so that a typo is not silently read as nothing. Keywords that HAProxy reads
 * only to refuse them are {@link RemovedKeywords}. Other sections (peers, resolvers, userlist,
 * cache...) are not checked.
 */
final class Keywords {
    private Keywords() {}

    /** The range of releases the list covers, for messages. */
    static final String RANGE = "2.0 to 3.4";

    private static final class Lists {
        static final Set<String> GLOBAL = new HashSet<>();
        static final Set<String> PROXY = new HashSet<>();

        /** First words of the multi-word keywords ("option", "timeout", "stats"...). */
        static final Set<String> PROXY_FIRST = new HashSet<>();

        static {
            for (int i = 0; i < KeywordList.GLOBAL.length; i += 2) {
                GLOBAL.add(KeywordList.GLOBAL[i]);
            }
            for (int i = 0; i < KeywordList.PROXY.length; i += 2) {
                PROXY.add(KeywordList.PROXY[i]);
                int space = KeywordList.PROXY[i].indexOf(' ');
                if (space > 0) {
                    PROXY_FIRST.add(KeywordList.PROXY[i].substring(0, space));
                }
            }
        }
    }

    /**
     * Why HAProxy refuses the directive's keyword in a section of this kind, for a note; null when
     * the keyword is known, the section kind is not checked, or its keyword comes from a variable.
     */
    static String unknown(String sectionKind, Directive d) {
        boolean global = sectionKind.equals("global");
        if (!global && !RemovedKeywords.PROXY_SECTIONS.contains(sectionKind)
                || d.size() == 0
                || d.unresolved(0)) {
            return null;
        }
        Set<String> known = global ? Lists.GLOBAL : Lists.PROXY;
        int from = 0;
        if (!global && d.size() > 1 && (d.is("no") || d.is("default"))) {
            // "no option httplog", "default option httplog", "no log": only the keywords the
            // manual marks as invertible take a prefix (haproxy 2.6.12: "negation/default is not
            // supported for option 'httplog'.", fatal)
            String negated = "no " + join(d, 1, Math.min(2, d.size() - 1));
            if (known.contains(negated) || known.contains("no " + d.word(1))) {
                return null;
            }
            if (d.size() > 2 && known.contains(join(d, 1, 2))) {
                return "unknown keyword '"
                        + HaproxyParser.abbrev(d.keyword() + " " + join(d, 1, 2))
                        + "' in '"
                        + sectionKind
                        + "' section: HAProxy "
                        + RANGE
                        + " take no '"
                        + d.keyword()
                        + "' before "
                        + join(d, 1, 2)
                        + ", and haproxy refuses the file (\"negation/default is not supported"
                        + " for option\"); remove the line or set the option instead";
            }
            from = 1;
        }
        String first = d.word(from);
        // "timeout" and "option" are keywords only with their second word (haproxy 2.6.12:
        // "unknown option 'x'.", "'timeout' supports 'client', 'server', ... (got 'x')")
        boolean needsSecond = !global && (first.equals("timeout") || first.equals("option"));
        // any of the one to three first words known is enough; the one word first, as it needs
        // no string joined (most lines: "server", "bind", "acl")
        int min = needsSecond ? 2 : 1;
        int max = Math.min(3, d.size() - from);
        if (min == 1 && max >= 1 && known.contains(first)) {
            return null;
        }
        for (int n = Math.max(min, 2); n <= max; n++) {
            if (known.contains(join(d, from, n))) {
                return null;
            }
        }
        if (!global && Lists.PROXY_FIRST.contains(first) && d.size() > from + 1) {
            String two = join(d, from, 2);
            return "unknown keyword '"
                    + HaproxyParser.abbrev(two)
                    + "' in '"
                    + sectionKind
                    + "' section: no release from HAProxy "
                    + RANGE
                    + " knows it, and haproxy refuses the file"
                    + hint(d.word(from + 1), secondWords(first + " "));
        }
        String elsewhere =
                global
                        ? Lists.PROXY.contains(d.keyword())
                                ? " (a keyword of proxy sections, not of global)"
                                : ""
                        : Lists.GLOBAL.contains(d.keyword())
                                ? " (a keyword of the global section, not of proxies)"
                                : "";
        return "unknown keyword '"
                + HaproxyParser.abbrev(d.keyword())
                + "' in '"
                + sectionKind
                + "' section"
                + elsewhere
                + ": no release from HAProxy "
                + RANGE
                + " knows it there, and haproxy refuses the file"
                + (elsewhere.isEmpty() ? hint(d.keyword(), firstWords(known)) : "");
    }

    /** "did you mean" for words long enough to be mistyped keywords ("0" is not). */
    private static String hint(String given, Set<String> candidates) {
        return given.length() < 4 ? "" : DidYouMean.hint(given, candidates);
    }

    /**
     * Words {@code from} to {@code from + n - 1}, with a space between. Not String.join over a
     * subList: that ran in the interpreter for most of a large config's lines (its loop over an
     * Iterable), where this is compiled after a few hundred calls.
     */
    private static String join(Directive d, int from, int n) {
        StringBuilder b = new StringBuilder(d.word(from));
        for (int i = 1; i < n; i++) {
            b.append(' ').append(d.word(from + i));
        }
        return b.toString();
    }

    /** The second words of the proxy keywords that start with {@code prefix} ("option "). */
    private static Set<String> secondWords(String prefix) {
        Set<String> out = new HashSet<>();
        for (String k : Lists.PROXY) {
            if (k.startsWith(prefix)) {
                int end = k.indexOf(' ', prefix.length());
                out.add(end < 0 ? k.substring(prefix.length()) : k.substring(prefix.length(), end));
            }
        }
        return out;
    }

    private static Set<String> firstWords(Set<String> known) {
        Set<String> out = new HashSet<>();
        for (String k : known) {
            int space = k.indexOf(' ');
            out.add(space < 0 ? k : k.substring(0, space));
        }
        return out;
    }
}
