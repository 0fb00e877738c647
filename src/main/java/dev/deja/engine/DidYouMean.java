package dev.deja.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.apache.commons.text.similarity.LevenshteinDistance;

/**
 * "did you mean" for an id that is not one: the ids that start with what was typed ({@code
 * haproxy-tarpit} -> {@code haproxy-tarpit-holds-slots}), else those that contain it, else those
 * whose whole id or start is within a few typing mistakes of it (Levenshtein distance at most a
 * third of the word rounded up, at least 1, at most 4).
 */
public final class DidYouMean {
    /** At most this many suggestions are shown. */
    static final int MAX = 3;

    private DidYouMean() {}

    /** The closest candidates, best first (at most {@value #MAX}); empty when none is close. */
    public static List<String> closest(String given, Collection<String> candidates) {
        String g = given == null ? "" : given.strip().toLowerCase(Locale.ROOT);
        if (g.isEmpty()) {
            return List.of();
        }
        TreeSet<String> sorted = new TreeSet<>();
        candidates.forEach(c -> sorted.add(c));
        List<String> prefix = new ArrayList<>();
        List<String> contains = new ArrayList<>();
        for (String c : sorted) {
            String lc = c.toLowerCase(Locale.ROOT);
            if (lc.startsWith(g)) {
                prefix.add(c);
            } else if (g.length() >= 3 && lc.contains(g)) {
                contains.add(c);
            }
        }
        if (!prefix.isEmpty()) {
            return first(prefix);
        }
        if (!contains.isEmpty()) {
            return first(contains);
        }
        int threshold = Math.max(1, Math.min(4, (g.length() + 2) / 3));
        LevenshteinDistance distance = new LevenshteinDistance(threshold);
        List<String> near = new ArrayList<>();
        int best = Integer.MAX_VALUE;
        for (String c : sorted) {
            String lc = c.toLowerCase(Locale.ROOT);
            // the whole id mistyped, or its start ("haproxy-tarpt" for haproxy-tarpit-holds-slots)
            int whole = distance.apply(g, lc);
            int start = distance.apply(g, lc.substring(0, Math.min(lc.length(), g.length())));
            int d = whole < 0 ? start : start < 0 ? whole : Math.min(whole, start);
            if (d < 0) { // above the threshold
                continue;
            }
            if (d < best) {
                best = d;
                near.clear();
            }
            if (d == best) {
                near.add(c);
            }
        }
        return first(near);
    }

    /**
     * " (did you mean haproxy-tarpit-holds-slots?)", " (did you mean a, b or c?)", or "" when
     * nothing is close.
     */
    public static String hint(String given, Collection<String> candidates) {
        List<String> c = closest(given, candidates);
        if (c.isEmpty()) {
            return "";
        }
        String list =
                c.size() == 1
                        ? c.get(0)
                        : String.join(", ", c.subList(0, c.size() - 1))
                                + " or "
                                + c.get(c.size() - 1);
        return " (did you mean " + list + "?)";
    }

    private static List<String> first(List<String> l) {
        return List.copyOf(l.subList(0, Math.min(MAX, l.size())));
    }
}
