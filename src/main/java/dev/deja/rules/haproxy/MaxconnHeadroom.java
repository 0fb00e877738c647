package dev.deja.rules.haproxy;

import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.Section;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * IL-0264: connection limits without headroom: a frontend or bind maxconn above the global maxconn
 * (HAProxy silently caps it), frontend limits that together far exceed the global one, or no
 * maxconn at all (the limit is whatever the file-descriptor limit gives).
 */
public final class MaxconnHeadroom extends HaproxyRule {
    public static final String ID = "haproxy-maxconn-headroom";

    public MaxconnHeadroom() {
        super(ID);
    }

    /**
     * "Far above": the frontends' limits add up to more than this many times the global maxconn.
     */
    static final int OVERSUBSCRIBED = 2;

    @Override
    List<Finding> check(HaproxyConfig c, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        List<Frontends.Frontend> fes = Frontends.primary(c);
        if (fes.isEmpty()) {
            return out;
        }
        Directive gd = Frontends.globalMaxconn(c);
        long global = fes.get(0).maxconn().global();
        // a maxconn whose value deja cannot read (an unset variable) is set all the same: never "no
        // maxconn"
        boolean anyLimit = global >= 0 || gd != null;
        Tally t = new Tally(global);
        for (Frontends.Frontend f : fes) {
            anyLimit |= t.add(f);
        }
        List<Finding> mine = new ArrayList<>();
        for (Frontends.Frontend f : Frontends.of(c)) {
            aboveGlobal(f, ctx, mine);
        }
        out.addAll(Notes.dedupe(mine, Frontends.of(c)));
        whole(c, ctx, fes, gd, global, anyLimit, t, out);
        return out;
    }

    /**
     * The frontends' limits added up: each readable frontend maxconn (capped at the global) and
     * bind maxconn, by name.
     */
    private static final class Tally {
        final long global;
        long sum;
        final List<String> parts = new ArrayList<>();
        final List<String> bindParts = new ArrayList<>();
        // name and limit (capped at the global) of each frontend with a readable maxconn
        final List<Map.Entry<String, Long>> limits = new ArrayList<>();

        Tally(long global) {
            this.global = global;
        }

        /** Adds the frontend's limits; whether it sets one (readable or not). */
        boolean add(Frontends.Frontend f) {
            boolean anyLimit = false;
            Frontends.Maxconn m = f.maxconn();
            Directive fd = m.frontendDirective();
            if (fd != null) {
                anyLimit = true;
                if (m.frontend() >= 0) {
                    long capped = global >= 0 ? Math.min(m.frontend(), global) : m.frontend();
                    sum += capped;
                    parts.add(f.name() + " " + m.frontend());
                    limits.add(Map.entry(f.name(), capped));
                }
            }
            for (Frontends.Bind b : m.binds()) {
                if (b.maxconn() >= 0
                        || b.directive()
                                .words()
                                .subList(1, b.directive().size())
                                .contains("maxconn")) {
                    anyLimit = true;
                    if (b.maxconn() >= 0) {
                        bindParts.add(
                                f.name()
                                        + " bind "
                                        + b.directive().written(1)
                                        + " maxconn "
                                        + b.maxconn());
                    }
                }
            }
            return anyLimit;
        }
    }

    /** A frontend or bind maxconn above the global one, which HAProxy silently caps. */
    private static void aboveGlobal(Frontends.Frontend f, RuleContext ctx, List<Finding> mine) {
        Frontends.Maxconn m = f.maxconn();
        Directive fd = m.frontendDirective();
        long g = m.global();
        Directive gdir = m.globalDirective();
        if (g >= 0 && m.frontend() > g) {
            Location at =
                    fd.file().equals(f.section().file()) && f.section().directives().contains(fd)
                            ? Notes.at(f.section(), fd)
                            : Notes.at(f.section());
            mine.add(
                    ctx.finding(
                                    at,
                                    f.section().label()
                                            + " maxconn "
                                            + m.frontend()
                                            + " ("
                                            + fd.where()
                                            + ") is above global maxconn "
                                            + g
                                            + " ("
                                            + gdir.where()
                                            + "): HAProxy silently caps it at "
                                            + g
                                            + ", so the frontend never gets the "
                                            + m.frontend()
                                            + " slots it was sized for")
                            .notes(Notes.of(f, fd, gdir))
                            .key("frontend maxconn above global")
                            .build());
        }
        for (Frontends.Bind b : m.binds()) {
            if (g >= 0 && b.maxconn() > g) {
                mine.add(
                        ctx.finding(
                                        Notes.at(f.section(), b.directive()),
                                        "bind of "
                                                + f.section().label()
                                                + " at "
                                                + b.directive().where()
                                                + " has maxconn "
                                                + b.maxconn()
                                                + ", above global maxconn "
                                                + g
                                                + " ("
                                                + gdir.where()
                                                + "): HAProxy silently caps it at "
                                                + g)
                                .notes(Notes.of(f, b.directive(), gdir))
                                .key("bind " + b.directive().written(1) + " maxconn above global")
                                .build());
            }
        }
    }

    /** What the configuration's limits say together: none, an implicit global, oversubscribed. */
    private static void whole(
            HaproxyConfig c,
            RuleContext ctx,
            List<Frontends.Frontend> fes,
            Directive gd,
            long global,
            boolean anyLimit,
            Tally t,
            List<Finding> out) {
        Section anchor = c.global().orElse(fes.get(0).section());
        if (!anyLimit) {
            out.add(
                    ctx.finding(
                                    Notes.at(anchor),
                                    "no maxconn anywhere in "
                                            + c.name()
                                            + " (global, defaults,"
                                            + " frontends, binds): the global limit is implicit, derived by HAProxy from the file-descriptor"
                                            + " limit (ulimit -n) of the host, so nobody knows how many connection slots "
                                            + fes.size()
                                            + (fes.size() == 1
                                                    ? " frontend has"
                                                    : " frontends have")
                                            + " until they run out")
                            .key("no maxconn")
                            .build());
            return;
        }
        if (global < 0 && gd != null) {
            return; // set to a value deja cannot read: nothing to compare with (the scan notes
            // the variable)
        }
        if (global < 0) {
            out.add(
                    ctx.finding(
                                    Notes.at(anchor),
                                    "global maxconn is implicit in "
                                            + c.name()
                                            + " (derived from the file-descriptor limit of the host), while frontends set their own ("
                                            + String.join(", ", concat(t.parts, t.bindParts))
                                            + "): whether those limits can be reached depends on the host")
                            .severity(Severity.LOW)
                            .key("implicit global maxconn")
                            .build());
            return;
        }
        if (t.parts.size() > 1 && t.sum > OVERSUBSCRIBED * global) {
            out.add(
                    ctx.finding(
                                    Notes.at(c.global().orElseThrow(), gd),
                                    "frontend limits add up to "
                                            + t.sum
                                            + " ("
                                            + String.join(" + ", t.parts)
                                            + ", each capped at the global) against global maxconn "
                                            + global
                                            + " ("
                                            + gd.where()
                                            + "), "
                                            + String.format(
                                                    Locale.ROOT, "%.1f", (double) t.sum / global)
                                            + "x oversubscribed: "
                                            + takeEverySlot(t.limits, global))
                            .severity(Severity.LOW)
                            .notes(Notes.of((Section) null, gd))
                            .key("frontend limits oversubscribed")
                            .build());
        }
    }

    static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /**
     * Which frontends, busy together, take every slot of the global maxconn: the fewest, largest
     * limits first ("frontend a alone", or "2 of the 3 frontends (a 600 + b 500 = 1100 >= 1000)").
     */
    static String takeEverySlot(List<Map.Entry<String, Long>> limits, long global) {
        List<Map.Entry<String, Long>> big = new ArrayList<>(limits);
        big.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        long acc = 0;
        List<String> names = new ArrayList<>();
        List<String> terms = new ArrayList<>();
        for (Map.Entry<String, Long> e : big) {
            acc += e.getValue();
            names.add(e.getKey());
            terms.add(e.getKey() + " " + e.getValue());
            if (acc >= global) {
                break;
            }
        }
        if (names.size() == 1) {
            return "frontend "
                    + names.get(0)
                    + " alone can take all "
                    + global
                    + " slots and starve the others";
        }
        return names.size()
                + " of the "
                + limits.size()
                + " frontends busy at once ("
                + String.join(" + ", terms)
                + " = "
                + acc
                + " >= "
                + global
                + ") take every slot and starve the rest";
    }
}
