package dev.deja.rules.haproxy;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.HaproxyRuntime;
import dev.deja.model.haproxy.Paths;
import dev.deja.model.haproxy.RuntimeStats;
import dev.deja.model.haproxy.Section;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * IL-0264: nothing exposes current sessions against the limit (no {@code stats socket}, no stats
 * page, no Prometheus exporter), so there is nothing to alert on before maxconn is reached;
 * detection took 41 minutes. Live figures read in the same scan ({@code --haproxy-runtime}: runtime
 * API, stats page or exporter) that hold every frontend of the configuration are visibility too,
 * whatever the file says (the outlet may be declared in a file not scanned): then nothing fires.
 */
public final class NoSaturationVisibility extends HaproxyRule {
    public static final String ID = "haproxy-no-saturation-visibility";

    public NoSaturationVisibility() {
        super(ID);
    }

    @Override
    List<Finding> check(HaproxyConfig c, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = check(c, ctx);
        HaproxyRuntime rt = snapshot.part(HaproxyRuntime.class).orElse(null);
        if (out.isEmpty() || rt == null || rt.instances().isEmpty()) {
            return out;
        }
        Set<String> names =
                Frontends.primary(c).stream()
                        .map(Frontends.Frontend::name)
                        .collect(Collectors.toSet());
        List<String> read = new ArrayList<>();
        for (HaproxyRuntime.Instance in : rt.instances()) {
            Set<String> live =
                    in.rows().stream()
                            .filter(r -> r.type().equals("frontend"))
                            .map(RuntimeStats.Row::proxy)
                            .collect(Collectors.toSet());
            if (live.containsAll(names)) {
                return List.of(); // its figures were read: something exposes them
            }
            read.add(in.format().label + " " + in.address());
        }
        return judge(
                c,
                ctx,
                "the live figures read in this scan ("
                        + String.join(", ", read)
                        + ") do not hold all"
                        + " of its frontends, so they are not this configuration's HAProxy");
    }

    @Override
    List<Finding> check(HaproxyConfig c, RuleContext ctx) {
        return judge(c, ctx, null);
    }

    /**
     * The configuration alone; {@code liveNote}: why the live figures read do not count for it, or
     * null.
     */
    private List<Finding> judge(HaproxyConfig c, RuleContext ctx, String liveNote) {
        List<Finding> out = new ArrayList<>();
        List<Frontends.Frontend> fes = Frontends.primary(c);
        if (fes.isEmpty()) {
            return out;
        }
        List<Directive> seen = Frontends.saturationVisibility(c);
        String blindPath = null;
        if (!seen.isEmpty()) {
            // visible on every path? (a stats socket under an undecided .if may be missing on the
            // other path)
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
        String msg =
                c.name()
                        + " has no stats socket, no stats page and no Prometheus exporter: nothing exposes"
                        + " the current sessions (scur) of "
                        + (fes.size() == 1 ? "frontend " : fes.size() + " frontends (")
                        + String.join(", ", names)
                        + (fes.size() > 5 ? ", ..." : "")
                        + (fes.size() == 1 ? "" : ")")
                        + " against their limit (slim), so no alert can fire before maxconn is reached";
        var b = ctx.finding(Notes.at(anchor), msg).key("no saturation visibility");
        if (blindPath != null) {
            b.note(
                    "on the path where "
                            + blindPath
                            + " (the stats/exporter directives at "
                            + seen.stream().map(Directive::where).toList()
                            + " sit under undecided .if conditions)");
        }
        if (liveNote != null) {
            b.note(liveNote);
        }
        out.add(b.build());
        return out;
    }
}
