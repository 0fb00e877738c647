package dev.deja.rules.haproxy;

import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.haproxy.Directive;
import dev.deja.haproxy.Frontends;
import dev.deja.haproxy.Section;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Caveats and locations shared by the HAProxy rules. */
final class Notes {
    private Notes() {
    }

    /** Notes for a finding that relied on a section and some directives (nulls ignored). */
    static List<String> of(Section s, Directive... used) {
        Set<String> out = new LinkedHashSet<>();
        if (s != null && s.condition() != null) {
            out.add(s.label() + " exists only when " + s.condition() + " holds, which deja could not decide");
        }
        for (Directive d : used) {
            if (d == null) {
                continue;
            }
            if (d.conditional()) {
                out.add("'" + d.text() + "' at " + d.where() + " applies only when " + d.condition()
                        + " holds, which deja could not decide: both paths were considered");
            }
            if (!d.unresolved().isEmpty()) {
                out.add("'" + d.text() + "' at " + d.where() + " uses unset variable" + (d.unresolved().size() > 1 ? "s " : " ")
                        + String.join(", ", d.unresolved()) + ": its value is unknown (give --env NAME=VALUE)");
            }
        }
        return new ArrayList<>(out);
    }

    /** The section header; unnamed sections (global, anonymous defaults) are named by their kind. */
    /** Notes for a finding on one frontend view: the path it holds on, or the conditions of what it relied on. */
    static List<String> of(Frontends.Frontend f, Directive... used) {
        if (f.path() == null) {
            return of(f.section(), used);
        }
        List<String> out = new ArrayList<>();
        out.add("on the path where " + f.path() + " (deja could not decide these .if conditions and analysed every"
                + " path; give --env or --haproxy-version to decide them)");
        for (String n : of((Section) null, used)) {
            if (!n.contains("could not decide")) {
                out.add(n);
            }
        }
        return out;
    }

    /** Findings with the same rule, place and message (from several paths) merged into one with all their notes. */
    static List<Finding> dedupe(List<Finding> in) {
        Map<String, Finding> out = new LinkedHashMap<>();
        for (Finding f : in) {
            String key = f.ruleId() + "|" + f.location() + "|" + f.message();
            Finding prev = out.get(key);
            if (prev == null) {
                out.put(key, f);
            } else {
                Set<String> notes = new LinkedHashSet<>(prev.notes());
                notes.addAll(f.notes());
                Set<String> related = new LinkedHashSet<>(prev.related());
                related.addAll(f.related());
                Finding worst = f.severity().compareTo(prev.severity()) > 0 ? f : prev;
                out.put(key, new Finding(worst.ruleId(), worst.severity(), worst.caseIds(), worst.message(),
                        worst.remediation(), worst.location(), List.copyOf(related), List.copyOf(notes)));
            }
        }
        return new ArrayList<>(out.values());
    }

    static Location at(Section s) {
        return s.name() == null ? Location.section(s.file(), s.line(), null, s.kind())
                : Location.section(s.file(), s.line(), s.kind(), s.name());
    }

    /** A directive of the section. */
    static Location at(Section s, Directive d) {
        return s.name() == null ? Location.section(d.file(), d.line(), null, s.kind())
                : Location.section(d.file(), d.line(), s.kind(), s.name());
    }

    static long pct(long part, long whole) {
        return whole <= 0 ? 0 : Math.round(100.0 * part / whole);
    }
}
