package dev.deja.rules.haproxy;

import dev.deja.engine.Location;
import dev.deja.haproxy.Directive;
import dev.deja.haproxy.Section;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
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
