package dev.deja.rules.haproxy;

import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.Section;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Caveats and locations shared by the HAProxy rules. */
public final class Notes {
    private Notes() {}

    /** Notes for a finding that relied on a section and some directives (nulls ignored). */
    static List<String> of(Section s, Directive... used) {
        Set<String> out = new LinkedHashSet<>();
        if (s != null && s.condition() != null) {
            out.add(
                    s.label()
                            + " exists only when "
                            + s.condition()
                            + " holds, which deja could not decide");
        }
        for (Directive d : used) {
            if (d == null) {
                continue;
            }
            if (d.conditional()) {
                out.add(
                        "'"
                                + d.text()
                                + "' at "
                                + d.where()
                                + " applies only when "
                                + d.condition()
                                + " holds, which deja could not decide (too many undecided .if combinations to analyse each path: every"
                                + " branch was read together)");
            }
            if (!d.unresolved().isEmpty()) {
                out.add(
                        "'"
                                + d.text()
                                + "' at "
                                + d.where()
                                + " uses unset variable"
                                + (d.unresolved().size() > 1 ? "s " : " ")
                                + String.join(", ", d.unresolved())
                                + ": its value is unknown (give --env "
                                + d.unresolved().get(0)
                                + "=VALUE)");
            }
        }
        return new ArrayList<>(out);
    }

    /**
     * Notes for a finding on one frontend view: the path it holds on, or the conditions of what it
     * relied on.
     */
    static List<String> of(Frontends.Frontend f, Directive... used) {
        if (f.path() == null) {
            return of(f.section(), used);
        }
        List<String> out = new ArrayList<>();
        out.add(
                PATH
                        + f.path()
                        + " (deja could not decide these .if conditions and analysed every"
                        + " path; give --env or --haproxy-version to decide them)");
        for (String n : of((Section) null, used)) {
            if (!n.contains("could not decide")) {
                out.add(n);
            }
        }
        return out;
    }

    static final String PATH = "on the path where ";

    /**
     * Findings of one configuration with the same rule, place and message (from several paths)
     * merged into one with all their notes; when the finding holds on every path of its frontend,
     * the path notes are dropped.
     */
    static List<Finding> dedupe(List<Finding> in, List<Frontends.Frontend> views) {
        Map<String, Integer> viewsPerSection = new HashMap<>();
        if (severalViewsOfOneSection(views)) {
            for (Frontends.Frontend v : views) {
                viewsPerSection.merge(
                        v.section().kind() + "/" + v.section().name(), 1, Integer::sum);
            }
        }
        Map<List<Object>, Finding> out = new LinkedHashMap<>();
        Map<List<Object>, Integer> count = new HashMap<>();
        for (Finding f : in) {
            merge(f, out, count);
        }
        List<Finding> result = new ArrayList<>();
        for (Map.Entry<List<Object>, Finding> e : out.entrySet()) {
            Finding f = e.getValue();
            Integer n = viewsPerSection.get(f.location().kind() + "/" + f.location().name());
            if (n != null && n > 1 && count.get(e.getKey()) >= n) {
                f =
                        new Finding(
                                        f.ruleId(),
                                        f.severity(),
                                        f.caseIds(),
                                        f.message(),
                                        f.remediation(),
                                        f.location(),
                                        f.related(),
                                        f.notes().stream()
                                                .filter(x -> !x.startsWith(PATH))
                                                .toList(),
                                        f.key())
                                .withFigure(f.figure());
            }
            result.add(f);
        }
        return result;
    }

    /**
     * Whether a section has more than one view (paths through undecided .if blocks); a section's
     * views are next to each other (Frontends.compute).
     */
    @SuppressWarnings("ReferenceEquality") // the same Section object
    private static boolean severalViewsOfOneSection(List<Frontends.Frontend> views) {
        for (int i = 1; i < views.size(); i++) {
            if (views.get(i).section() == views.get(i - 1).section()) {
                return true;
            }
        }
        return false;
    }

    /**
     * One finding into {@link #dedupe}'s maps (a method, not the loop's body, so that it is
     * compiled early).
     */
    private static void merge(
            Finding f, Map<List<Object>, Finding> out, Map<List<Object>, Integer> count) {
        List<Object> key = f.sameFindingKey();
        count.merge(key, 1, Integer::sum);
        Finding prev = out.get(key);
        if (prev == null) {
            out.put(key, f);
        } else {
            Set<String> notes = new LinkedHashSet<>(prev.notes());
            notes.addAll(f.notes());
            Set<String> related = new LinkedHashSet<>(prev.related());
            related.addAll(f.related());
            Finding worst = f.severity().compareTo(prev.severity()) > 0 ? f : prev;
            out.put(
                    key,
                    new Finding(
                                    worst.ruleId(),
                                    worst.severity(),
                                    worst.caseIds(),
                                    worst.message(),
                                    worst.remediation(),
                                    worst.location(),
                                    List.copyOf(related),
                                    List.copyOf(notes),
                                    worst.key())
                            .withFigure(worst.figure()));
        }
    }

    /**
     * The section header; unnamed sections (global, anonymous defaults) are named by their kind.
     */
    public static Location at(Section s) {
        return s.name() == null
                ? Location.section(s.file(), s.line(), null, s.kind())
                : Location.section(s.file(), s.line(), s.kind(), s.name());
    }

    /** A directive of the section. */
    public static Location at(Section s, Directive d) {
        return s.name() == null
                ? Location.section(d.file(), d.line(), null, s.kind())
                : Location.section(d.file(), d.line(), s.kind(), s.name());
    }

    static long pct(long part, long whole) {
        return whole <= 0 ? 0 : Math.round(100.0 * part / whole);
    }
}
