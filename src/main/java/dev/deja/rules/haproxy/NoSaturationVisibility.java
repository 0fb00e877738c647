package dev.deja.rules.haproxy;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.haproxy.Directive;
import dev.deja.haproxy.Frontends;
import dev.deja.haproxy.HaproxyConfig;
import dev.deja.haproxy.Paths;
import dev.deja.haproxy.Section;
import java.util.ArrayList;
import java.util.List;

/**
 * IL-0264: nothing exposes current sessions against the limit (no {@code stats socket}, no stats page, no
 * Prometheus exporter), so there is nothing to alert on before maxconn is reached; detection took 41 minutes.
 */
public final class NoSaturationVisibility extends HaproxyRule {
    public static final String ID = "haproxy-no-saturation-visibility";

    @Override
    public String id() {
        return ID;
    }

    @Override
    List<Finding> check(HaproxyConfig c, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        List<Frontends.Frontend> fes = Frontends.primary(c);
        if (fes.isEmpty()) {
            return out;
        }
        List<Directive> seen = Frontends.saturationVisibility(c);
        String blindPath = null;
        if (!seen.isEmpty()) {
            // visible on every path? (a stats socket under an undecided .if may be missing on the other path)
            for (Paths.Path p : Paths.of(c, seen.stream().map(Directive::guard).toList())) {
                if (p.description() != null && seen.stream().noneMatch(p::applies)) {
                    blindPath = p.description();
                    break;
                }
            }
            if (blindPath == null) {
                return out;
            }
        }
        Section anchor = c.anchor();
        List<String> names = fes.stream().map(Frontends.Frontend::name).limit(5).toList();
        String msg = c.name() + " has no stats socket, no stats page and no Prometheus exporter: nothing exposes"
                + " the current sessions (scur) of " + (fes.size() == 1 ? "frontend " : fes.size() + " frontends (")
                + String.join(", ", names) + (fes.size() > 5 ? ", ..." : "") + (fes.size() == 1 ? "" : ")")
                + " against their limit (slim), so no alert can fire before maxconn is reached";
        var b = ctx.finding(Notes.at(anchor), msg);
        if (blindPath != null) {
            b.note("on the path where " + blindPath + " (the stats/exporter directives at "
                    + seen.stream().map(Directive::where).toList() + " sit under undecided .if conditions)");
        }
        out.add(b.build());
        return out;
    }
}
