package dev.deja.rules.haproxy;

import dev.deja.engine.Figure;
import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.Section;
import dev.deja.model.haproxy.Times;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * IL-0264: {@code http-request tarpit} holds the connection slot for the whole wait. Slots held by
 * one client = hold time x its request rate ({@code --assume-client-rps}), against the frontend's
 * effective maxconn.
 */
public final class TarpitHoldsSlots extends HaproxyRule {
    /**
     * From this share of the frontend's slots (percent; parameter, default 25) the finding is high.
     */
    static final String HIGH_SHARE = "highSharePercent";

    public static final String ID = "haproxy-tarpit-holds-slots";

    public TarpitHoldsSlots() {
        super(ID);
    }

    /**
     * Finding keys (the fingerprint's stable part): a tarpit in the section clients arrive at, and
     * one in a backend reached from frontends (a listen section can have both).
     */
    static final String FRONTEND_KEY = "tarpit where clients arrive";

    static final String BACKEND_KEY = "tarpit in a backend frontends route to";

    @Override
    List<Finding> check(HaproxyConfig c, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        int rps = ctx.settings().getInt("assume-client-rps", 300);
        List<Finding> mine = new ArrayList<>();
        List<Frontends.Frontend> all = Frontends.primary(c);
        for (Frontends.Frontend f : Frontends.of(c)) {
            Finding x = frontend(f, rps, ctx, all);
            if (x != null) {
                mine.add(x);
            }
        }
        out.addAll(Notes.dedupe(mine, Frontends.of(c)));
        out.addAll(backendTarpits(c, rps, ctx));
        return out;
    }

    /**
     * The finding of one frontend's own tarpit, or null. A method rather than the loop's body:
     * called per frontend, it is compiled after a few hundred; a loop body runs interpreted until
     * tens of thousands of turns.
     */
    private static Finding frontend(
            Frontends.Frontend f, int rps, RuleContext ctx, List<Frontends.Frontend> all) {
        if (f.tarpits().isEmpty()) {
            return null;
        }
        Directive tarpit = f.tarpits().get(0);
        long hold = f.tarpitHoldMillis();
        if (hold == 0) {
            return null; // both timeouts unset or 0: HAProxy answers at once, nothing is held
        }
        List<String> notes = notes(f, tarpit);
        String head =
                f.section().label()
                        + " tarpits requests ('"
                        + tarpit.text()
                        + "' at "
                        + tarpit.where()
                        + "): ";
        if (hold < 0) {
            return unknownHold(f, tarpit, head, notes, ctx);
        }
        long held = (long) Math.ceil(rps * (hold / 1000.0));
        long slots = f.maxconn().effective();
        String holds =
                head
                        + "tarpit holds each request "
                        + Times.format(hold)
                        + " ("
                        + f.tarpitHoldSource()
                        + "); one client at "
                        + rps
                        + " req/s holds ";
        String msg;
        Severity sev;
        Figure figure = null;
        if (slots < 0) {
            msg =
                    holds
                            + held
                            + " slots, against a maxconn "
                            + (f.maxconn().unknown()
                                    ? f.maxconn().explain()
                                    : "that is implicit (no maxconn anywhere: HAProxy derives it from the file-descriptor limit)");
            sev = Severity.MEDIUM;
        } else {
            long p = Notes.pct(held, slots);
            msg =
                    holds
                            + Math.min(held, slots)
                            + (held > slots ? " (wants " + held + ")" : "")
                            + " of "
                            + slots
                            + " slots ("
                            + p
                            + "%; maxconn "
                            + f.maxconn().explain()
                            + ")";
            sev = high(held, slots, ctx) ? Severity.HIGH : Severity.MEDIUM;
            figure = slots(f, held, slots, rps, hold, all, notes);
        }
        otherTarpits(f, notes);
        return ctx.finding(Notes.at(f.section(), tarpit), msg)
                .severity(sev)
                .notes(notes)
                .key(FRONTEND_KEY)
                .figure(figure)
                .build();
    }

    /**
     * The notes of a tarpitting frontend's finding: its tarpit, what sets the hold, its maxconn.
     */
    private static List<String> notes(Frontends.Frontend f, Directive tarpit) {
        Directive holdFrom =
                f.tarpit().set() && f.tarpit().millis() != 0
                        ? f.tarpit().directive()
                        : f.section().kind().equals("frontend") ? null : f.connect().directive();
        return new ArrayList<>(
                Notes.of(
                        f,
                        tarpit,
                        holdFrom,
                        f.maxconn().frontendDirective(),
                        f.maxconn().globalDirective()));
    }

    /** The finding for a tarpit whose hold time cannot be read. */
    private static Finding unknownHold(
            Frontends.Frontend f,
            Directive tarpit,
            String head,
            List<String> notes,
            RuleContext ctx) {
        return ctx.finding(
                        Notes.at(f.section(), tarpit),
                        head
                                + "the tarpit hold time is unknown ("
                                + f.tarpitHoldSource()
                                + " cannot be read); every tarpitted request holds a connection slot"
                                + " for that long")
                .severity(Severity.MEDIUM)
                .notes(notes)
                .key(FRONTEND_KEY)
                .build();
    }

    /** Notes the frontend's other tarpit rules, after the first. */
    private static void otherTarpits(Frontends.Frontend f, List<String> notes) {
        if (f.tarpits().size() > 1) {
            notes.add(
                    "other tarpit rules in "
                            + f.section().label()
                            + ": "
                            + f.tarpits().subList(1, f.tarpits().size()).stream()
                                    .map(Directive::where)
                                    .toList());
        }
    }

    /**
     * The slots {@code held} in frontend {@code f} counted against the global maxconn, which
     * HAProxy counts over every frontend of the process ("Sets the maximum per-process number of
     * concurrent connections ... Proxies will stop accepting connections when this limit is
     * reached", HAProxy 2.6 manual 3.2; a frontend without maxconn of its own gets the global one,
     * 4.2): what is left is all the other frontends can accept together. Null when the global
     * maxconn is implicit or unreadable, or no other frontend shares it.
     */
    @SuppressWarnings("ReferenceEquality") // the other frontends: every section but f's own
    /**
     * The slots figure of a frontend whose tarpit holds {@code held} of its {@code slots}, with its
     * share of the process's slots (a note added to {@code notes} when the global maxconn is
     * shared).
     */
    private static Figure.Slots slots(
            Frontends.Frontend f,
            long held,
            long slots,
            long rps,
            long hold,
            List<Frontends.Frontend> all,
            List<String> notes) {
        Figure.ProcessSlots process = process(f, Math.min(held, slots), all);
        if (process != null) {
            notes.add(processNote(f, process));
        }
        return new Figure.Slots(
                f.section().label(), slots, Math.min(held, slots), held, rps, hold, process);
    }

    /**
     * {@code all}: {@link Frontends#primary} of f's configuration, where each frontend and listen
     * section has one view, f's among them.
     */
    static Figure.ProcessSlots process(
            Frontends.Frontend f, long held, List<Frontends.Frontend> all) {
        Frontends.Maxconn m = f.maxconn();
        if (m.globalImplicit() || m.globalUnknown() || m.global() <= 0) {
            return null;
        }
        long left = Math.max(0, m.global() - held);
        List<Figure.Share> others = new ArrayList<>();
        for (Frontends.Frontend o : all) {
            if (o.section() == f.section()) {
                continue;
            }
            if (others.size() == Figure.ProcessSlots.LISTED) {
                break; // the rest only counts (the loop over every frontend per tarpit was n^2)
            }
            long own = o.maxconn().effective();
            others.add(
                    new Figure.Share(
                            o.section().label(), own, own < 0 ? left : Math.min(own, left)));
        }
        // all is Frontends.primary: one view per section, f's section among them
        int count = all.size() - 1;
        return count == 0 ? null : new Figure.ProcessSlots(m.global(), held, left, count, others);
    }

    /**
     * "the global maxconn 800 (...:12) is shared by every frontend of the process: while this
     * client holds 200 of them, 600 are left for frontend hchk_io (its maxconn 800)".
     */
    static String processNote(Frontends.Frontend f, Figure.ProcessSlots p) {
        StringBuilder sb =
                new StringBuilder("the global maxconn ")
                        .append(p.maxconn())
                        .append(" (")
                        .append(f.maxconn().globalDirective().where())
                        .append(
                                ") is shared by every frontend of the process: while this client holds ")
                        .append(p.held())
                        .append(" of them, ")
                        .append(p.left())
                        .append(p.left() == 1 ? " is" : " are")
                        .append(" left for ");
        String sep = "";
        for (Figure.Share s : p.others()) {
            sb.append(sep)
                    .append(s.frontend())
                    .append(" (")
                    .append(
                            s.maxconn() < 0
                                    ? "its maxconn cannot be read"
                                    : "its maxconn " + s.maxconn())
                    .append(')');
            sep = ", ";
        }
        int more = p.otherFrontends() - p.others().size();
        if (more > 0) {
            sb.append(" and ")
                    .append(more)
                    .append(more == 1 ? " other frontend" : " other frontends");
        }
        return sb.toString();
    }

    /** A frontend (or listen) that sends requests to a backend, and the directive that does it. */
    private record Route(Frontends.Frontend frontend, Directive via) {}

    /** High when one client holds at least highSharePercent of the slots (default 25). */
    private static boolean high(long held, long slots, RuleContext ctx) {
        return held * 100 >= slots * (long) ctx.intParameter(HIGH_SHARE);
    }

    /**
     * {@code http-request tarpit} is valid in backends and listen sections too: the rule then runs
     * once the frontend has chosen that backend, waits the backend's timeout tarpit (HAProxy's
     * http_ana.c waits {@code s->be->timeout.tarpit}; proxy.c copies timeout tarpit from defaults
     * into backends too), and holds the connection slot of the frontend the client came through.
     * One finding per tarpit backend, against the frontend that reaching it costs the largest share
     * of slots; the others are notes.
     */
    private static List<Finding> backendTarpits(HaproxyConfig c, int rps, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        List<Frontends.Frontend> fes = Frontends.primary(c);
        Map<Section, List<Route>> routes = routes(c, fes);
        for (Section b : c.sections()) {
            if (!(b.kind().equals("backend") || b.kind().equals("listen"))
                    || b.name() == null
                    || tarpits(b).isEmpty()
                    || c.backend(b.name()).orElse(null) != b) {
                continue;
            }
            List<Route> rs = routes.getOrDefault(b, List.of());
            List<Frontends.Frontend> dynamic = dynamicOthers(fes, b, rs);
            if (rs.isEmpty() && dynamic.isEmpty()) {
                continue; // no frontend reaches it: HAProxy never runs its rules
            }
            long hold = Frontends.tarpitHoldMillis(b);
            if (hold == 0) {
                continue;
            }
            Directive tarpit = tarpits(b).get(0);
            List<String> notes =
                    new ArrayList<>(Notes.of(b, tarpit, Frontends.tarpitHoldDirective(b)));
            for (Frontends.Frontend d : dynamic) {
                notes.add(mayReach(d, b));
            }
            String head =
                    b.label()
                            + " tarpits requests ('"
                            + tarpit.text()
                            + "' at "
                            + tarpit.where()
                            + ")";
            if (hold < 0) {
                out.add(unknownHold(b, tarpit, head, notes, ctx));
            } else if (rs.isEmpty()) {
                out.add(onlyDynamic(b, tarpit, head, hold, rps, dynamic.get(0), notes, ctx));
            } else {
                out.add(routed(b, tarpit, head, hold, rps, rs, fes, notes, ctx));
            }
        }
        return out;
    }

    /** The tarpit backends each frontend names, with the directive that sends requests there. */
    private static Map<Section, List<Route>> routes(HaproxyConfig c, List<Frontends.Frontend> fes) {
        Map<Section, List<Route>> routes = new LinkedHashMap<>();
        // whether a backend tarpits, read once per backend (thousands of frontends may share one)
        Map<Section, Boolean> tarpitting = new IdentityHashMap<>();
        for (Frontends.Frontend f : fes) {
            for (String name : f.backends()) {
                Section b = c.backend(name).orElse(null);
                if (b == null
                        || b == f.section()
                        || !tarpitting.computeIfAbsent(b, x -> !tarpits(x).isEmpty())) {
                    continue;
                }
                routes.computeIfAbsent(b, k -> new ArrayList<>())
                        .add(new Route(f, via(f.section(), name)));
            }
        }
        return routes;
    }

    /** The frontends that pick their backend at run time and do not name {@code b} already. */
    private static List<Frontends.Frontend> dynamicOthers(
            List<Frontends.Frontend> fes, Section b, List<Route> rs) {
        return fes.stream()
                .filter(
                        f ->
                                f.dynamicBackends()
                                        && f.section() != b
                                        && rs.stream()
                                                .noneMatch(
                                                        r -> r.frontend().section() == f.section()))
                .toList();
    }

    /**
     * The note that frontend {@code d}, which picks its backend at run time, may reach {@code b}.
     */
    private static String mayReach(Frontends.Frontend d, Section b) {
        Directive dyn = dynamicRoute(d.section());
        return d.section().label()
                + " picks its backend by name at run time ('"
                + (dyn == null ? "use_backend %[...]" : dyn.text())
                + "'"
                + (dyn == null ? "" : " at " + dyn.where())
                + "): deja cannot tell whether it"
                + " reaches "
                + b.label()
                + "; if it does, its slots are held the same way";
    }

    private static Finding unknownHold(
            Section b, Directive tarpit, String head, List<String> notes, RuleContext ctx) {
        return ctx.finding(
                        Notes.at(b, tarpit),
                        head
                                + ": the tarpit hold time is unknown ("
                                + Frontends.tarpitHoldSource(b)
                                + " cannot be read); every tarpitted request holds the connection slot of the frontend it came"
                                + " through for that long")
                .severity(Severity.MEDIUM)
                .notes(notes)
                .key(BACKEND_KEY)
                .build();
    }

    private static String holdText(Section b, long hold) {
        return "tarpit holds each request "
                + Times.format(hold)
                + " ("
                + Frontends.tarpitHoldSource(b)
                + ")";
    }

    /** No frontend names {@code b}, but {@code d} picks its backend at run time. */
    private static Finding onlyDynamic(
            Section b,
            Directive tarpit,
            String head,
            long hold,
            int rps,
            Frontends.Frontend d,
            List<String> notes,
            RuleContext ctx) {
        long held = (long) Math.ceil(rps * (hold / 1000.0));
        long slots = d.maxconn().effective();
        return ctx.finding(
                        Notes.at(b, tarpit),
                        head
                                + ", and no frontend names it, but "
                                + d.section().label()
                                + " picks its backend at run time and may send requests there: "
                                + holdText(b, hold)
                                + "; one client at "
                                + rps
                                + " req/s would hold "
                                + slotsText(held, slots, d))
                .severity(Severity.MEDIUM)
                .notes(notes)
                .key(BACKEND_KEY)
                .build();
    }

    /**
     * The finding against the route whose frontend loses the largest share of its slots; the other
     * routes are notes.
     */
    @SuppressWarnings("ReferenceEquality") // the other routes: every one but the worst itself
    private static Finding routed(
            Section b,
            Directive tarpit,
            String head,
            long hold,
            int rps,
            List<Route> rs,
            List<Frontends.Frontend> fes,
            List<String> notes,
            RuleContext ctx) {
        long held = (long) Math.ceil(rps * (hold / 1000.0));
        Route worst = null;
        for (Route r : rs) {
            if (worst == null || share(held, r) > share(held, worst)) {
                worst = r;
            }
        }
        Frontends.Frontend f = worst.frontend();
        long slots = f.maxconn().effective();
        String msg =
                head
                        + ", which "
                        + f.section().label()
                        + " sends there ('"
                        + worst.via().text()
                        + "' at "
                        + worst.via().where()
                        + "): "
                        + holdText(b, hold)
                        + "; one client at "
                        + rps
                        + " req/s holds "
                        + slotsText(held, slots, f);
        Severity sev = slots >= 0 && high(held, slots, ctx) ? Severity.HIGH : Severity.MEDIUM;
        List<String> all =
                new ArrayList<>(
                        Notes.of(
                                f,
                                worst.via(),
                                f.maxconn().frontendDirective(),
                                f.maxconn().globalDirective()));
        all.addAll(notes);
        Figure figure = null;
        if (slots >= 0) {
            figure = slots(f, held, slots, rps, hold, fes, all);
        }
        for (Route r : rs) {
            if (r != worst) {
                all.add(
                        "also reached from "
                                + r.frontend().section().label()
                                + " ('"
                                + r.via().text()
                                + "' at "
                                + r.via().where()
                                + "): "
                                + slotsText(
                                        held, r.frontend().maxconn().effective(), r.frontend()));
            }
        }
        return ctx.finding(Notes.at(b, tarpit), msg)
                .severity(sev)
                .notes(all)
                .related(f.section().label() + " (" + f.section().where() + ")")
                .key(BACKEND_KEY)
                .figure(figure)
                .build();
    }

    private static String slotsText(long held, long slots, Frontends.Frontend f) {
        if (slots < 0) {
            return held
                    + " slots of "
                    + f.section().label()
                    + ", against a maxconn "
                    + (f.maxconn().unknown()
                            ? f.maxconn().explain()
                            : "that is implicit (no maxconn anywhere: HAProxy derives it from the file-descriptor limit)");
        }
        return Math.min(held, slots)
                + (held > slots ? " (wants " + held + ")" : "")
                + " of "
                + slots
                + " slots of "
                + f.section().label()
                + " ("
                + Notes.pct(held, slots)
                + "%; maxconn "
                + f.maxconn().explain()
                + ")";
    }

    /** The share of the route's frontend slots one client holds (unknown slots rank last). */
    private static double share(long held, Route r) {
        long slots = r.frontend().maxconn().effective();
        return slots <= 0 ? -1 : (double) held / slots;
    }

    static List<Directive> tarpits(Section s) {
        return s.all(d -> d.is("http-request", "tarpit"));
    }

    /** The directive of frontend {@code s} that sends requests to backend {@code name}. */
    private static Directive via(Section s, String name) {
        for (Directive d : s.directives()) {
            if (d.is("use_backend") && name.equals(d.word(1))) {
                return d;
            }
        }
        Directive db = s.effective("default_backend");
        return db != null ? db : s.directives().isEmpty() ? null : s.directives().get(0);
    }

    private static Directive dynamicRoute(Section s) {
        for (Directive d : s.directives()) {
            if ((d.is("use_backend") || d.is("default_backend"))
                    && d.word(1) != null
                    && d.word(1).contains("%[")) {
                return d;
            }
        }
        Directive db = s.effective("default_backend");
        return db != null && db.word(1) != null && db.word(1).contains("%[") ? db : null;
    }
}
