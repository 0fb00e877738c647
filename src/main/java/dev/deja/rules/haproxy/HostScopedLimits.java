package dev.deja.rules.haproxy;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.Section;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * IL-0264 inside one frontend: several hostnames served by one HTTP frontend, the rate limit
 * applied to one of them (its condition, or the tracking it reads, tests the Host header or the
 * SNI) while another hostname, or any other Host header through {@code default_backend}, reaches
 * the same backend with no limit. At Healthchecks.io the limit covered hc-ping.com and not hchk.io.
 * Conditions deja cannot read as a plain AND of terms ({@code ||}, {@code or}, {@code unless}, a
 * negated host test) are left alone: no finding rather than a guess.
 */
final class HostScopedLimits {
    private HostScopedLimits() {}

    /**
     * A fetch that reads the requested host name: the Host header (any match method) or the TLS
     * SNI.
     */
    static final Pattern HOST_FETCH =
            Pattern.compile(
                    "^(req\\.)?hdr(_[a-z]+)?\\(host(,[^)]*)?\\).*|^(req\\.|req_)?ssl_sni.*|^ssl_fc_sni.*|^req\\.ssl_sni.*");

    /**
     * One term of a condition: a named ACL or an anonymous {@code { ... }} one, with the host names
     * it matches.
     */
    private record Term(
            String key, String text, Set<String> hosts, boolean host, Set<String> shownHosts) {}

    /**
     * One definition of an ACL: the words after its name, and the same as written (what messages
     * quote).
     */
    private record Def(List<String> words, List<String> written) {}

    /** The directive's words as written in the file (a variable as ${NAME}, never its value). */
    private static List<String> written(Directive d) {
        return d.written() != null && d.written().size() == d.size() ? d.written() : d.words();
    }

    static List<Finding> check(
            HaproxyConfig c,
            List<Frontends.Frontend> http,
            Function<String, RateLimitNotEverywhere.BackendLimit> backendLimit,
            RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (Frontends.Frontend f : http) {
            if (f.rateRules().isEmpty() || !mayReadHost(f)) {
                continue;
            }
            Map<String, List<Def>> acls = acls(f.section());
            // the host terms every rate rule is scoped to; null: some rule is not host-scoped (or
            // unreadable)
            Map<String, Term> scope = scope(f, acls);
            if (scope == null) {
                continue;
            }
            Directive rule = f.rateRules().get(0);
            // routes: use_backend rules in order, then default_backend
            Map<String, List<Directive>> unlimited = new LinkedHashMap<>();
            Set<String> limitedBackends = new LinkedHashSet<>();
            routes(f, acls, scope, unlimited, limitedBackends);
            for (String b : limitedBackends) {
                List<Directive> routes = unlimited.get(b);
                if (routes == null || RateLimitNotEverywhere.limitedFor(backendLimit.apply(b), f)) {
                    continue;
                }
                out.add(finding(f, b, routes, rule, scope, acls, ctx));
            }
        }
        return out;
    }

    /**
     * Whether a word of f's rate rules, trackers or ACL lines could read the host name: every fetch
     * {@link #HOST_FETCH} matches contains "hdr" or "sni". Without such a word no term is a host
     * test and {@link #scope} would find none; the check spares building the terms of every
     * rate-limited frontend (8,000 of them in the benchmark's 16,000-frontend config).
     */
    private static boolean mayReadHost(Frontends.Frontend f) {
        if (anyHostWord(f.rateRules()) || anyHostWord(f.trackers())) {
            return true;
        }
        List<Directive> own = f.section().directives();
        for (int k = 0; k < own.size(); k++) {
            Directive d = own.get(k);
            if (d.is("acl") && anyHostWord(d)) {
                return true;
            }
        }
        return false;
    }

    private static boolean anyHostWord(List<Directive> ds) {
        for (int k = 0; k < ds.size(); k++) {
            if (anyHostWord(ds.get(k))) {
                return true;
            }
        }
        return false;
    }

    private static boolean anyHostWord(Directive d) {
        for (int i = 0; i < d.size(); i++) {
            if (mayNameHost(d.word(i))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether w contains "hdr" or "sni" in any case (ASCII letters folded with | 0x20), or a
     * character outside ASCII, which lower-casing may turn into one: the full test decides then.
     */
    static boolean mayNameHost(String w) {
        int n = w.length();
        for (int at = 0; at < n; at++) {
            char ch = w.charAt(at);
            if (ch >= 0x80) {
                return true;
            }
            if (at + 2 < n) {
                int a = ch | 0x20;
                int b = w.charAt(at + 1) | 0x20;
                int c = w.charAt(at + 2) | 0x20;
                if (a == 'h' && b == 'd' && c == 'r' || a == 's' && b == 'n' && c == 'i') {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The host terms every rate rule of f is scoped to, by key; null when some rule is not
     * host-scoped (or deja cannot read it).
     */
    private static Map<String, Term> scope(Frontends.Frontend f, Map<String, List<Def>> acls) {
        Map<String, Term> scope = new LinkedHashMap<>();
        boolean scoped = true;
        for (Directive r : f.rateRules()) {
            List<Term> terms = terms(r, r.is("tcp-request") ? 3 : 2, acls);
            List<Term> hosts = terms == null ? null : terms.stream().filter(Term::host).toList();
            if (hosts != null && hosts.isEmpty() && readsTrackedCounter(r)) {
                hosts = trackerHosts(f, acls);
            }
            if (hosts == null || hosts.isEmpty()) {
                scoped = false;
                break;
            }
            hosts.forEach(t -> scope.putIfAbsent(t.key(), t));
        }
        return scoped ? scope : null;
    }

    /**
     * Sorts f's routes (use_backend rules in order, then default_backend): a backend a route of the
     * limited hosts reaches into limited, every other route into unlimited by its backend.
     */
    private static void routes(
            Frontends.Frontend f,
            Map<String, List<Def>> acls,
            Map<String, Term> scope,
            Map<String, List<Directive>> unlimited,
            Set<String> limitedBackends) {
        for (Directive d : f.section().directives()) {
            if (!d.is("use_backend") || d.word(1) == null || d.word(1).contains("%[")) {
                continue;
            }
            List<Term> terms = terms(d, 2, acls);
            if (terms == null) {
                continue; // a condition deja does not read: neither limited nor unlimited
            }
            List<Term> hosts = terms.stream().filter(Term::host).toList();
            if (hosts.stream().anyMatch(t -> matches(t, scope))) {
                limitedBackends.add(d.word(1));
            } else {
                unlimited.computeIfAbsent(d.word(1), k -> new ArrayList<>()).add(d);
            }
        }
        Directive db = f.section().effective("default_backend");
        if (db != null && db.word(1) != null && !db.word(1).contains("%[")) {
            if (limitedBackends.isEmpty()) {
                limitedBackends.add(
                        db.word(1)); // the limited host falls through to the default backend
            }
            unlimited.computeIfAbsent(db.word(1), k -> new ArrayList<>()).add(db);
        }
    }

    /** The finding for backend b, reached limited by one host and unlimited through routes. */
    private static Finding finding(
            Frontends.Frontend f,
            String b,
            List<Directive> routes,
            Directive rule,
            Map<String, Term> scope,
            Map<String, List<Def>> acls,
            RuleContext ctx) {
        Directive via = routes.get(0);
        String who =
                via.is("default_backend")
                        ? "requests for any other host (any other Host header)"
                        : "requests for "
                                + describe(
                                        terms(via, 2, acls).stream().filter(Term::host).toList());
        String msg =
                f.section().label()
                        + " rate-limits only requests for "
                        + describe(List.copyOf(scope.values()))
                        + " ('"
                        + rule.text()
                        + "' at "
                        + rule.where()
                        + "), while "
                        + who
                        + " reach the same backend "
                        + b
                        + " ('"
                        + via.text()
                        + "' at "
                        + via.where()
                        + ") with no rate limit: a client that"
                        + " sends the same requests under that other name is not limited by HAProxy at all (unless the"
                        + " backend itself refuses that name)";
        List<String> notes = new ArrayList<>(Notes.of(f, rule, via));
        for (Directive other : routes.subList(1, routes.size())) {
            notes.add("also unlimited into " + b + ": '" + other.text() + "' at " + other.where());
        }
        return ctx.finding(Notes.at(f.section(), via), msg)
                .notes(notes)
                .key("host-scoped rate limit, backend " + b)
                .build();
    }

    private static boolean matches(Term t, Map<String, Term> scope) {
        if (scope.containsKey(t.key())) {
            return true;
        }
        for (Term s : scope.values()) {
            if (!t.hosts().isEmpty() && !Collections.disjoint(t.hosts(), s.hosts())) {
                return true;
            }
        }
        return false;
    }

    private static String describe(List<Term> terms) {
        List<String> parts = new ArrayList<>();
        for (Term t : terms) {
            parts.add(
                    t.text()
                            + (t.shownHosts().isEmpty() || t.text().contains(" ")
                                    ? ""
                                    : " (" + String.join(", ", t.shownHosts()) + ")"));
        }
        return String.join(" and ", parts);
    }

    /** ACL name to its definitions (each: the words after the name). */
    private static Map<String, List<Def>> acls(Section s) {
        Map<String, List<Def>> out = new LinkedHashMap<>();
        for (Directive d : s.directives()) {
            if (d.is("acl") && d.size() > 2) {
                out.computeIfAbsent(d.word(1), k -> new ArrayList<>())
                        .add(
                                new Def(
                                        d.words().subList(2, d.size()),
                                        written(d).subList(2, d.size())));
            }
        }
        return out;
    }

    /**
     * The terms of a rule's condition (words from {@code from}), when it is a plain AND after
     * {@code if}; null when there is none or deja does not read it ({@code unless}, {@code ||},
     * {@code or}, a negated host test).
     */
    private static List<Term> terms(Directive d, int from, Map<String, List<Def>> acls) {
        int i = from;
        while (i < d.size() && !d.word(i).equals("if") && !d.word(i).equals("unless")) {
            i++;
        }
        if (i >= d.size() || d.word(i).equals("unless")) {
            return i >= d.size() ? List.of() : null;
        }
        List<Term> out = new ArrayList<>();
        for (i = i + 1; i < d.size(); i++) {
            String w = d.word(i);
            if (w.equals("||") || w.equalsIgnoreCase("or")) {
                return null;
            }
            boolean neg = w.startsWith("!");
            if (neg) {
                w = w.substring(1);
            }
            if (w.startsWith("{")) {
                List<String> words = new ArrayList<>();
                List<String> shown = new ArrayList<>(); // the same words as written
                String first = w.substring(1);
                String firstShown = stripNeg(written(d).get(i)).substring(1);
                if (!first.isEmpty()) {
                    words.add(first);
                    shown.add(firstShown);
                }
                while (i + 1 < d.size() && !d.word(i).endsWith("}")) {
                    i++;
                    words.add(d.word(i));
                    shown.add(written(d).get(i));
                }
                if (!words.isEmpty() && words.get(words.size() - 1).endsWith("}")) {
                    String last = words.remove(words.size() - 1);
                    String lastShown = shown.remove(shown.size() - 1);
                    if (last.length() > 1) {
                        words.add(last.substring(0, last.length() - 1));
                        shown.add(
                                lastShown.endsWith("}")
                                        ? lastShown.substring(0, lastShown.length() - 1)
                                        : lastShown);
                    }
                }
                Term t =
                        term(
                                "{ " + String.join(" ", words) + " }",
                                "{ " + String.join(" ", shown) + " }",
                                List.of(new Def(words, shown)));
                if (neg && t.host()) {
                    return null;
                }
                out.add(t);
            } else if (!w.isEmpty()) {
                Term t = term(w, w, acls.getOrDefault(w, List.of()));
                if (neg && t.host()) {
                    return null;
                }
                out.add(t);
            }
        }
        return out;
    }

    /**
     * A term from its definitions: a host test when every definition reads the host name. {@code
     * name} (with the variables' values) identifies it; {@code shownName} (as written) is what
     * messages quote.
     */
    private static Term term(String name, String shownName, List<Def> defs) {
        boolean host = !defs.isEmpty();
        Set<String> hosts = new LinkedHashSet<>();
        Set<String> shownHosts = new LinkedHashSet<>();
        for (Def def : defs) {
            List<String> words = def.words();
            if (words.isEmpty()
                    || !HOST_FETCH.matcher(words.get(0).toLowerCase(Locale.ROOT)).matches()) {
                host = false;
                continue;
            }
            for (int k = 1; k < words.size(); k++) {
                String v = words.get(k);
                if (v.equals("-m") || v.equals("-f") || v.equals("-M")) {
                    k++;
                } else if (!v.startsWith("-")) {
                    hosts.add(v.toLowerCase(Locale.ROOT));
                    String shown = k < def.written().size() ? def.written().get(k) : v;
                    shownHosts.add(shown.equals(v) ? v.toLowerCase(Locale.ROOT) : shown);
                }
            }
        }
        return new Term(
                name.startsWith("{") ? name : "acl:" + name, shownName, hosts, host, shownHosts);
    }

    private static String stripNeg(String w) {
        return w.startsWith("!") ? w.substring(1) : w;
    }

    /**
     * Whether a rate rule reads a tracked counter (sc_*, scN_*), whose scope is that of the
     * tracking.
     */
    private static boolean readsTrackedCounter(Directive r) {
        for (int i = 0; i < r.size(); i++) {
            // the word without its braces and negations, case-insensitively (no string per word)
            String w = r.word(i);
            int from = 0;
            while (from < w.length() && (w.charAt(from) == '{' || w.charAt(from) == '!')) {
                from++;
            }
            if (w.regionMatches(true, from, "sc_", 0, 3)
                    || w.length() - from > 3
                            && w.regionMatches(true, from, "sc", 0, 2)
                            && Character.isDigit(w.charAt(from + 2))
                            && w.charAt(from + 3) == '_') {
                return true;
            }
        }
        return false;
    }

    /**
     * The host terms every tracking rule of the frontend is scoped to, or null when one is not
     * host-scoped.
     */
    private static List<Term> trackerHosts(Frontends.Frontend f, Map<String, List<Def>> acls) {
        if (f.trackers().isEmpty()) {
            return null;
        }
        List<Term> out = new ArrayList<>();
        for (Directive t : f.trackers()) {
            List<Term> terms = terms(t, t.is("tcp-request") ? 3 : 2, acls);
            List<Term> hosts =
                    terms == null ? List.of() : terms.stream().filter(Term::host).toList();
            if (hosts.isEmpty()) {
                return null;
            }
            out.addAll(hosts);
        }
        return out;
    }
}
