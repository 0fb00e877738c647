package dev.deja.model.haproxy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The effective settings of every frontend and listen of a configuration (own directive, else its
 * defaults chain, else HAProxy's default): the traversal the HAProxy rules share.
 */
public final class Frontends {
    private Frontends() {}

    /**
     * A time setting: the directive it comes from (null when unset) and its value (-1 when
     * unknown).
     */
    public record Setting(Directive directive, long millis) {
        static final Setting UNSET = new Setting(null, -1);

        public boolean set() {
            return directive != null;
        }

        /** Set and readable (not an unresolved variable or a malformed value). */
        public boolean known() {
            return directive != null && millis >= 0;
        }

        /** Set under an undecided .if branch. */
        public boolean conditional() {
            return directive != null && directive.conditional();
        }
    }

    /** A {@code bind} line and its own {@code maxconn} (-1 when it has none). */
    public record Bind(Directive directive, long maxconn) {}

    /**
     * Connection limits: the global maxconn (-1 when implicit: HAProxy derives it from the
     * file-descriptor limit), the frontend's own or inherited maxconn (-1 when unset: it then
     * defaults to the global one), each bind's, and the effective limit of the frontend (the
     * frontend's capped by the global; -1 when unknown).
     */
    public record Maxconn(
            long global,
            Directive globalDirective,
            long frontend,
            Directive frontendDirective,
            List<Bind> binds) {
        /** No global maxconn at all: HAProxy derives it from the file-descriptor limit. */
        public boolean globalImplicit() {
            return globalDirective == null;
        }

        /** A global maxconn is set but deja cannot read it (an unset variable, or not a number). */
        public boolean globalUnknown() {
            return globalDirective != null && global < 0;
        }

        /** The frontend's (own or inherited) maxconn is set but deja cannot read it. */
        public boolean frontendUnknown() {
            return frontendDirective != null && frontend < 0;
        }

        /** The effective limit depends on a value deja cannot read: never call it absent then. */
        public boolean unknown() {
            return frontendUnknown() || globalUnknown();
        }

        /**
         * The slots this frontend can hold, or -1 when HAProxy derives them at start-up or deja
         * cannot read them.
         */
        public long effective() {
            if (unknown()) {
                return -1;
            }
            if (frontend >= 0 && global >= 0) {
                return Math.min(frontend, global);
            }
            return frontend >= 0 ? frontend : global;
        }

        /** "maxconn 800 (frontend, haproxy.cfg:14)" style explanation of {@link #effective()}. */
        public String explain() {
            if (unknown()) {
                List<String> parts = new ArrayList<>();
                if (frontendUnknown()) {
                    parts.add(unreadable(frontendDirective));
                }
                if (globalUnknown()) {
                    parts.add(unreadable(globalDirective));
                }
                return "set to a value deja cannot read (" + String.join("; ", parts) + ")";
            }
            if (frontend >= 0 && global >= 0) {
                if (frontend > global) {
                    return global
                            + " (frontend maxconn "
                            + frontend
                            + " at "
                            + frontendDirective.where()
                            + " is silently capped by global maxconn "
                            + global
                            + ")";
                }
                return frontend + " at " + frontendDirective.where();
            }
            if (frontend >= 0) {
                return frontend
                        + " at "
                        + frontendDirective.where()
                        + " (global maxconn is implicit, derived from the file-descriptor limit)";
            }
            if (global >= 0) {
                return global
                        + " (no frontend maxconn: the global one at "
                        + globalDirective.where()
                        + ")";
            }
            return "implicit (no maxconn anywhere: HAProxy derives it from the file-descriptor limit)";
        }
    }

    /**
     * Why a set value cannot be read: "'maxconn ${MAXCONN}' at a.cfg:3 uses unset variable MAXCONN
     * (give --env MAXCONN=VALUE)", or "... is not a number".
     */
    public static String unreadable(Directive d) {
        if (!d.unresolved().isEmpty()) {
            return "'" + d.text() + "' at " + d.where() + " " + OwnVariables.why(d.unresolved());
        }
        return "'" + d.text() + "' at " + d.where() + " is not a number";
    }

    /**
     * One frontend or listen with its effective settings on one path through undecided {@code .if}
     * blocks; {@code path} is null when the settings are the same on every path, else it says which
     * branches were taken.
     */
    public record Frontend(
            HaproxyConfig config,
            Section section,
            String mode,
            Directive modeDirective,
            Setting httpRequest,
            Setting client,
            Setting keepAlive,
            Setting tarpit,
            Setting connect,
            Maxconn maxconn,
            List<Directive> tarpits,
            List<Directive> rateRules,
            List<Directive> trackers,
            List<Directive> stickTables,
            List<String> backends,
            boolean dynamicBackends,
            String path) {
        public boolean http() {
            return mode.equals("http");
        }

        public String name() {
            return section.name() == null ? "(unnamed)" : section.name();
        }

        /**
         * Whether requests are rate limited: a deny/tarpit/return/reject rule whose condition reads
         * a rate.
         */
        public boolean rateLimited() {
            return !rateRules.isEmpty();
        }

        /**
         * How long a tarpitted request holds its slot, in ms: timeout tarpit, else (unset or 0, as
         * HAProxy copies it then) timeout connect of a listen, else 0 (no wait); -1 when the value
         * is unknown. A frontend has no timeout connect (HAProxy ignores it there and does not
         * inherit it), so its unset tarpit answers at once.
         */
        public long tarpitHoldMillis() {
            return holdMillis(tarpit, connect, section);
        }

        public String tarpitHoldSource() {
            return holdSource(tarpit, connect, section);
        }
    }

    /**
     * The hold of a tarpit whose rule runs in section {@code s} (a frontend or listen for its own
     * rules, a backend for the rules of a backend: HAProxy waits the timeout tarpit of the proxy
     * the rule belongs to, which a backend also inherits from its defaults): timeout tarpit, else
     * timeout connect, else 0; -1 when unknown.
     */
    public static long tarpitHoldMillis(Section s) {
        return holdMillis(time(s, "tarpit"), time(s, "connect"), s);
    }

    /** Where {@link #tarpitHoldMillis(Section)} comes from, for messages. */
    public static String tarpitHoldSource(Section s) {
        return holdSource(time(s, "tarpit"), time(s, "connect"), s);
    }

    /** The directive the hold of a tarpit in section {@code s} comes from, or null. */
    public static Directive tarpitHoldDirective(Section s) {
        Setting t = time(s, "tarpit");
        return t.set() && t.millis() != 0
                ? t.directive()
                : hasConnect(s) ? time(s, "connect").directive() : null;
    }

    /**
     * Whether the proxy has a timeout connect: backends and listens. HAProxy ignores {@code timeout
     * connect} in a frontend (with a warning) and copies it from defaults only into proxies with a
     * backend side, so a frontend's unset timeout tarpit falls back to 0 (cfgparse.c: tarpit =
     * connect when unset).
     */
    static boolean hasConnect(Section s) {
        return !s.kind().equals("frontend");
    }

    private static long holdMillis(Setting tarpit, Setting connect, Section s) {
        if (tarpit.set() && tarpit.millis() != 0) {
            return tarpit.millis();
        }
        if (connect.set() && hasConnect(s)) {
            return connect.millis();
        }
        return 0;
    }

    private static String holdSource(Setting tarpit, Setting connect, Section s) {
        if (tarpit.set() && tarpit.millis() != 0) {
            return "timeout tarpit at " + tarpit.directive().where();
        }
        String why =
                tarpit.set()
                        ? "timeout tarpit is 0 at " + tarpit.directive().where()
                        : "timeout tarpit is unset";
        if (!hasConnect(s)) {
            return why
                    + " and a frontend has no timeout connect to fall back to: HAProxy answers at once";
        }
        if (connect.set()) {
            return "timeout connect at " + connect.directive().where() + ", as " + why;
        }
        return "neither timeout tarpit nor timeout connect is set";
    }

    /**
     * Every frontend and listen of the configuration with its effective settings, once per path
     * through the undecided {@code .if} blocks its settings depend on (computed once per
     * configuration).
     */
    public static List<Frontend> of(HaproxyConfig config) {
        return config.frontendViews();
    }

    /**
     * One view per frontend or listen: the first path's (for checks over the whole configuration).
     */
    public static List<Frontend> primary(HaproxyConfig config) {
        List<Frontend> out = new ArrayList<>();
        Section last = null;
        for (Frontend f : of(config)) {
            if (f.section() != last) {
                out.add(f);
                last = f.section();
            }
        }
        return out;
    }

    static List<Frontend> compute(HaproxyConfig config) {
        List<Directive> gmaxes = new ArrayList<>();
        for (Section g : config.globals()) {
            for (Directive d : g.directives()) {
                if (d.is("maxconn")) {
                    gmaxes.add(d);
                }
            }
        }
        boolean gmaxGuarded = gmaxes.stream().anyMatch(d -> d.guard() != null);
        List<Frontend> out = new ArrayList<>();
        // the settings of shared directives (a defaults section's timeouts reach every frontend),
        // read once
        Map<Directive, Setting> times = new IdentityHashMap<>();
        for (Section s : config.sections()) {
            if (!s.listens()) {
                continue; // no bind line, or disabled: it holds no connection slot
            }
            int[] blocks =
                    s.chainBlocks(); // memoised per section: a long defaults chain is walked once
            if (s.guard() == null && blocks.length == 0 && !gmaxGuarded) {
                // no .if block decides anything here: one view (what Paths.of would find)
                out.add(frontend(config, s, Paths.Path.ALL, gmaxes, times));
                continue;
            }
            List<Guard> guards = new ArrayList<>();
            guards.add(s.guard());
            if (blocks.length > 0) {
                guards.add(
                        new Guard(
                                blocks,
                                new int[blocks.length])); // only the block ids matter to Paths.of
            }
            gmaxes.forEach(d -> guards.add(d.guard()));
            List<Paths.Path> paths = Paths.of(config, guards);
            if (paths.size() == 1) {
                out.add(frontend(config, s, paths.get(0), gmaxes, times));
                continue;
            }
            List<Frontend> views = new ArrayList<>();
            for (Paths.Path p : paths) {
                if (p.applies(s.guard())) {
                    views.add(frontend(config, s, p, gmaxes, times));
                }
            }
            boolean same = views.stream().map(Frontends::signature).distinct().count() <= 1;
            if (same && !views.isEmpty()) {
                out.add(frontend(config, s, Paths.Path.ALL, gmaxes, times));
            } else {
                out.addAll(views);
            }
        }
        return List.copyOf(out);
    }

    /** What a view resolved to: the directives it chose. */
    private static List<Object> signature(Frontend f) {
        return List.of(
                String.valueOf(f.modeDirective()),
                String.valueOf(f.httpRequest().directive()),
                String.valueOf(f.client().directive()),
                String.valueOf(f.keepAlive().directive()),
                String.valueOf(f.tarpit().directive()),
                String.valueOf(f.connect().directive()),
                String.valueOf(f.maxconn().frontendDirective()),
                String.valueOf(f.maxconn().globalDirective()),
                f.maxconn().binds().toString(),
                f.tarpits().toString(),
                f.rateRules().toString(),
                f.trackers().toString(),
                f.stickTables().toString(),
                f.backends().toString());
    }

    static Frontend frontend(
            HaproxyConfig config,
            Section full,
            Paths.Path path,
            List<Directive> gmaxes,
            Map<Directive, Setting> times) {
        Directive gmax = globalMaxconn(path, gmaxes);
        long global = gmax == null ? -1 : number(gmax, 1);
        @SuppressWarnings("ReferenceEquality") // Path.ALL is the sentinel for "every path"
        Section s = path == Paths.Path.ALL ? full : restrict(full, path);
        Directive mode = s.effective("mode");
        String m = mode == null ? "tcp" : String.valueOf(mode.word(1)).toLowerCase(Locale.ROOT);
        Directive fmax = s.effective("maxconn");
        if (fmax != null && number(fmax, 1) == 0) {
            fmax = null; // maxconn 0: HAProxy gives the frontend the global maxconn
        }
        long fe = fmax == null ? -1 : number(fmax, 1);
        List<Bind> binds = new ArrayList<>(2);
        Map<String, String> acls = null;
        List<Directive> requestRules = new ArrayList<>();
        List<Directive> tables = new ArrayList<>(2);
        List<Directive> own = s.directives();
        for (int k = 0; k < own.size(); k++) { // indexed loops here: no iterator per frontend
            Directive d = own.get(k);
            switch (d.keyword()) {
                case "bind" -> binds.add(new Bind(d, bindMaxconn(d)));
                case "acl" -> {
                    if (d.size() > 2) {
                        if (acls == null) {
                            acls = new HashMap<>();
                        }
                        acls.merge(
                                d.word(1),
                                String.join(" ", d.words().subList(2, d.size())),
                                (a, b) -> a + " " + b);
                    }
                }
                case "http-request", "tcp-request" -> requestRules.add(d);
                case "stick-table" -> tables.add(d);
                default -> {}
            }
        }
        List<Directive> tarpits = new ArrayList<>(0);
        List<Directive> rate = new ArrayList<>(0);
        List<Directive> trackers = new ArrayList<>(0);
        sortRequestRules(
                config,
                requestRules,
                acls == null ? Map.of() : acls,
                tables,
                tarpits,
                rate,
                trackers);
        List<String> backends = new ArrayList<>(2); // in order, each once (a frontend has few)
        boolean dynamic = routes(s, own, backends);
        return new Frontend(
                config,
                full,
                m,
                mode,
                time(s, "http-request", times),
                time(s, "client", times),
                time(s, "http-keep-alive", times),
                time(s, "tarpit", times),
                time(s, "connect", times),
                new Maxconn(global, gmax, fe, fmax, binds),
                tarpits,
                rate,
                trackers,
                List.copyOf(tables),
                List.copyOf(backends),
                dynamic,
                path.description());
    }

    /**
     * The global maxconn on the path: the first line with a value other than 0 (HAProxy keeps it
     * and refuses the later ones with "'maxconn' already specified"; 0 is "not set"), or null.
     */
    private static Directive globalMaxconn(Paths.Path path, List<Directive> gmaxes) {
        for (int i = 0; i < gmaxes.size(); i++) {
            if (path.applies(gmaxes.get(i)) && number(gmaxes.get(i), 1) != 0) {
                return gmaxes.get(i);
            }
        }
        return null;
    }

    /** A bind line's own maxconn; -1 when it has none, or 0 (the frontend's limit applies). */
    private static long bindMaxconn(Directive d) {
        long b = -1;
        for (int i = 2; i < d.size() - 1; i++) {
            if ("maxconn".equals(d.word(i))) {
                b = number(d, i + 1);
                if (b == 0) {
                    b = -1;
                }
            }
        }
        return b;
    }

    /**
     * Sorts a frontend's request rules into {@code tarpits}, {@code rate} (limiting actions whose
     * condition reads a rate or counter, directly or through {@code acls}) and {@code trackers},
     * and adds to {@code tables} the stick-tables the trackers name.
     */
    private static void sortRequestRules(
            HaproxyConfig config,
            List<Directive> requestRules,
            Map<String, String> acls,
            List<Directive> tables,
            List<Directive> tarpits,
            List<Directive> rate,
            List<Directive> trackers) {
        for (int k = 0; k < requestRules.size(); k++) {
            Directive d = requestRules.get(k);
            int a = d.is("tcp-request") ? 2 : 1;
            String action = d.word(a);
            if (action == null) {
                continue;
            }
            if (action.equals("tarpit")) {
                tarpits.add(d);
            }
            if (action.startsWith("track-sc") || action.startsWith("sc-inc-gpc")) {
                trackers.add(d);
                for (int i = a + 1; i < d.size() - 1; i++) {
                    if (d.word(i).equals("table")) {
                        Section t = config.backend(d.word(i + 1)).orElse(null);
                        Directive st = t == null ? null : t.last(x -> x.is("stick-table"));
                        if (st != null && !tables.contains(st)) {
                            tables.add(st);
                        }
                    }
                }
            }
            boolean limiting =
                    switch (action) {
                        case "deny", "tarpit", "return", "reject", "silent-drop" -> true;
                        default -> false;
                    };
            if (limiting && readsRate(d, a + 1, acls)) {
                rate.add(d);
            }
        }
    }

    /**
     * Adds to {@code backends} those the section routes to (a listen's own name, its
     * default_backend, each use_backend), in order and each once; true when one is chosen at run
     * time ({@code %[...]}).
     */
    private static boolean routes(Section s, List<Directive> own, List<String> backends) {
        boolean dynamic = false;
        if (s.kind().equals("listen") && s.name() != null) {
            backends.add(s.name());
        }
        Directive db = s.effective("default_backend");
        if (db != null && db.word(1) != null) {
            dynamic |= db.word(1).contains("%[");
            addOnce(backends, db.word(1));
        }
        for (int k = 0; k < own.size(); k++) {
            Directive d = own.get(k);
            if (d.is("use_backend") && d.word(1) != null) {
                if (d.word(1).contains("%[")) {
                    dynamic = true;
                } else {
                    addOnce(backends, d.word(1));
                }
            }
        }
        return dynamic;
    }

    private static void addOnce(List<String> list, String v) {
        if (!list.contains(v)) {
            list.add(v);
        }
    }

    /** The section (and its defaults chain) as read on one path. */
    private static Section restrict(Section s, Paths.Path path) {
        List<Section> chain = new ArrayList<>();
        for (Section x = s; x != null; x = x.defaults()) {
            chain.add(x);
        }
        Section parent = null;
        for (int i = chain.size() - 1; i >= 0; i--) {
            Section x = chain.get(i);
            List<Directive> kept = new ArrayList<>();
            for (Directive d : x.directives()) {
                if (path.applies(d)) {
                    kept.add(d);
                }
            }
            parent =
                    new Section(
                            x.kind(),
                            x.name(),
                            x.from(),
                            x.file(),
                            x.line(),
                            x.condition(),
                            kept,
                            parent,
                            x.guard());
        }
        return parent;
    }

    /**
     * The rate-limiting rules of a section's own directives (deny, tarpit, return, reject or
     * silent-drop whose condition reads a rate or counter, directly or through one of the section's
     * ACLs): for a backend, the limits it enforces itself on every request routed to it.
     */
    public static List<Directive> rateRules(Section s) {
        Map<String, String> acls = new HashMap<>();
        for (Directive d : s.directives()) {
            if (d.is("acl") && d.size() > 2) {
                acls.merge(
                        d.word(1),
                        String.join(" ", d.words().subList(2, d.size())),
                        (a, b) -> a + " " + b);
            }
        }
        List<Directive> out = new ArrayList<>();
        for (Directive d : s.directives()) {
            if (!d.is("http-request") && !d.is("tcp-request")) {
                continue;
            }
            int a = d.is("tcp-request") ? 2 : 1;
            String action = d.word(a);
            boolean limiting =
                    action != null
                            && switch (action) {
                                case "deny", "tarpit", "return", "reject", "silent-drop" -> true;
                                default -> false;
                            };
            if (limiting && readsRate(d, a + 1, acls)) {
                out.add(d);
            }
        }
        return out;
    }

    /** Whether a section's own request rules track counters ({@code track-scN}). */
    public static boolean tracks(Section s) {
        for (Directive d : s.directives()) {
            String action =
                    d.is("http-request") ? d.word(1) : d.is("tcp-request") ? d.word(2) : null;
            if (action != null && action.startsWith("track-sc")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the condition of a rule (words from {@code from}) reads a rate or counter of a stick
     * table.
     */
    static boolean readsRate(Directive d, int from, Map<String, String> acls) {
        boolean cond = false;
        for (int i = from; i < d.size(); i++) {
            String w = d.word(i);
            if (w.equals("if") || w.equals("unless")) {
                cond = true;
                continue;
            }
            if (!cond) {
                continue;
            }
            String t = w;
            while (t.startsWith("!") || t.startsWith("{")) {
                t = t.substring(1);
            }
            if (rateFetch(t)) {
                return true;
            }
            String acl = acls.get(t);
            if (acl != null) {
                for (String part : acl.split(" ")) {
                    if (rateFetch(part)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    static boolean rateFetch(String w) {
        String t = w.toLowerCase(Locale.ROOT);
        return t.contains("_rate")
                || t.startsWith("sc_")
                || t.startsWith("src_")
                || t.startsWith("table_")
                || (t.length() > 3
                        && t.startsWith("sc")
                        && Character.isDigit(t.charAt(2))
                        && t.charAt(3) == '_');
    }

    /**
     * {@link #time(Section, String)}, the setting of a directive read before taken from {@code
     * times}.
     */
    static Setting time(Section s, String which, Map<Directive, Setting> times) {
        Directive d = s.effective("timeout", which);
        return d == null ? Setting.UNSET : times.computeIfAbsent(d, Frontends::setting);
    }

    static Setting time(Section s, String which) {
        Directive d = s.effective("timeout", which);
        return d == null ? Setting.UNSET : setting(d);
    }

    private static Setting setting(Directive d) {
        return new Setting(d, d.unresolved(2) ? -1 : Times.millis(d.word(2)));
    }

    /**
     * A maxconn argument as HAProxy reads it: {@code atol()} (cfgparse-global.c for the global,
     * cfgparse-listen.c for proxies, {@code bind_parse_maxconn} for binds), so the leading digits
     * count ("5x" is 5, "08" is 8, "+8" is 8) and a word without any is 0, which HAProxy takes as
     * "no limit of its own" (checked with haproxy 2.6: frontend slim of "maxconn 5x" is 5, of
     * "maxconn abc" the global's). -1 when it is missing, an unresolved variable, negative or too
     * long to read.
     */
    public static long number(Directive d, int i) {
        String w = d.word(i);
        if (w == null || d.unresolved(i) || w.isEmpty()) {
            return -1;
        }
        int k = w.charAt(0) == '+' ? 1 : 0;
        if (w.charAt(0) == '-') {
            return -1;
        }
        long v = 0;
        for (int digits = 0; k < w.length(); k++, digits++) {
            char c = w.charAt(k);
            if (c < '0' || c > '9') {
                break;
            }
            if (digits == 18) {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /**
     * The global maxconn line HAProxy keeps: the first whose value is not 0 (a later one is refused
     * with "'maxconn' already specified", and 0 means not set), or null when there is none. Reads
     * every line whatever its .if block (the views of {@link #of} take each path's own).
     */
    public static Directive globalMaxconn(HaproxyConfig c) {
        for (Section g : c.globals()) {
            for (Directive d : g.directives()) {
                if (d.is("maxconn") && number(d, 1) != 0) {
                    return d;
                }
            }
        }
        return null;
    }

    /** Whether a maxconn line's value is 0 as HAProxy reads it: no limit of its own. */
    public static boolean zero(Directive maxconn) {
        return number(maxconn, 1) == 0;
    }

    /** Whether the argument is a plain number as written (no sign, nothing after the digits). */
    public static boolean plainNumber(String w) {
        if (w == null || w.isEmpty()) {
            return false;
        }
        for (int k = 0; k < w.length(); k++) {
            if (w.charAt(k) < '0' || w.charAt(k) > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * The directives that let one watch sessions against the limit (stats socket, stats page,
     * Prometheus exporter); stops at the first that applies on every path (then it is the only one
     * returned).
     */
    public static List<Directive> saturationVisibility(HaproxyConfig config) {
        List<Directive> out = new ArrayList<>();
        for (Section s : config.sections()) {
            for (Directive d : s.directives()) {
                boolean visible =
                        s.kind().equals("global") && d.is("stats", "socket")
                                || (s.isProxy() || s.kind().equals("defaults"))
                                        && d.is("stats")
                                        && d.word(1) != null
                                        && !d.word(1).equals("auth")
                                        && !d.word(1).equals("realm")
                                        && !d.word(1).equals("timeout")
                                        && !d.word(1).equals("maxconn")
                                || d.is("http-request")
                                        && "use-service".equals(d.word(1))
                                        && d.word(2) != null
                                        && d.word(2).startsWith("prometheus-exporter");
                if (visible) {
                    if (d.guard() == null && s.guard() == null) {
                        return List.of(d);
                    }
                    out.add(d);
                }
            }
        }
        return out;
    }
}
