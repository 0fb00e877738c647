package dev.deja.rules.haproxy;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.Section;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * IL-0264: rate-limit rules on some HTTP frontends and not on others that reach the same backends
 * (hc-ping.com was limited, hchk.io was not): the limit can be bypassed through the unprotected
 * frontend.
 */
public final class RateLimitNotEverywhere extends HaproxyRule {
    public static final String ID = "haproxy-rate-limit-not-everywhere";

    public RateLimitNotEverywhere() {
        super(ID);
    }

    /**
     * The costliest HAProxy rule: a finding per unprotected frontend, and the host scope of every
     * limited one (8,000 findings in the benchmark's 16,000-frontend config: about 40% of the
     * rules' time there).
     */
    @Override
    public int cost() {
        return 3;
    }

    @Override
    List<Finding> check(HaproxyConfig c, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        List<Frontends.Frontend> http =
                Frontends.primary(c).stream().filter(Frontends.Frontend::http).toList();
        Map<String, BackendLimit> backendLimited = new HashMap<>();
        // for each backend, the rate-limited frontends reaching it, in order: one pass, not
        // frontends x frontends (a frontend's backends are listed each once)
        Map<String, List<Integer>> limitersOf = new HashMap<>();
        for (int i = 0; i < http.size(); i++) {
            Frontends.Frontend l = http.get(i);
            if (!l.rateLimited()) {
                continue;
            }
            for (String b : l.backends()) {
                limitersOf.computeIfAbsent(b, k -> new ArrayList<>()).add(i);
            }
        }
        // what a finding quotes of the limiting frontend, built once per limiter (thousands of
        // unprotected frontends may name the same one)
        Map<Integer, Limiter> limiters = new HashMap<>();
        for (Frontends.Frontend u : http) {
            if (u.rateLimited()) {
                continue;
            }
            int first =
                    Integer.MAX_VALUE; // the first limited frontend sharing an unlimited backend
            // with u
            for (String b : u.backends()) {
                List<Integer> ls = limitersOf.get(b);
                if (ls != null
                        && !limitedFor(
                                backendLimited.computeIfAbsent(b, n -> limitedBackend(c, n)), u)) {
                    first = Math.min(first, ls.get(0));
                }
            }
            if (first == Integer.MAX_VALUE) {
                continue;
            }
            Limiter l = limiters.computeIfAbsent(first, i -> new Limiter(http.get(i)));
            List<String> shared = new ArrayList<>();
            for (String b : u.backends()) {
                if (l.backends.contains(b) && !limitedFor(backendLimited.get(b), u)) {
                    shared.add(b);
                }
            }
            String msg = message(c, u, l, shared, backendLimited);
            out.add(
                    ctx.finding(Notes.at(u.section()), msg)
                            .related(l.related)
                            .notes(Notes.of(u.section(), l.rule))
                            .key("frontend without rate limit")
                            .build()); // one finding per unprotected frontend
        }
        out.addAll(
                HostScopedLimits.check(
                        c,
                        http,
                        b -> backendLimited.computeIfAbsent(b, n -> limitedBackend(c, n)),
                        ctx));
        return out;
    }

    /** A rate-limited frontend as findings quote it: its first rate rule, label and place. */
    private static final class Limiter {
        final Set<String> backends;
        final Directive rule;
        final String label;
        final String quoted; // "'<rule as written>' at <file:line>"
        final String related;

        Limiter(Frontends.Frontend l) {
            this.backends = new HashSet<>(l.backends());
            this.rule = l.rateRules().get(0);
            this.label = l.section().label();
            this.quoted = "'" + rule.text() + "' at " + rule.where();
            this.related = label + " (" + l.section().where() + ")";
        }
    }

    /**
     * What the finding says: which backends u reaches unlimited, which frontend l limits them and
     * how, and a backend limiting on counters u does not feed.
     */
    private static String message(
            HaproxyConfig c,
            Frontends.Frontend u,
            Limiter l,
            List<String> shared,
            Map<String, BackendLimit> backendLimited) {
        StringBuilder msg = new StringBuilder(256);
        msg.append(u.section().label())
                .append(" reaches ")
                .append(shared.size() == 1 ? "backend " : "backends ");
        for (int i = 0; i < shared.size(); i++) {
            msg.append(i == 0 ? "" : ", ").append(shared.get(i));
        }
        msg.append(" with no rate-limit rule, while ")
                .append(l.label)
                .append(" rate-limits the same ")
                .append(shared.size() == 1 ? "backend" : "backends")
                .append(" (")
                .append(l.quoted)
                .append("): a client that goes through ")
                .append(u.name())
                .append(" is not limited at all");
        for (String b : shared) {
            if (backendLimited.get(b) == BackendLimit.NEEDS_TRACKING) {
                Directive br = Frontends.rateRules(c.backend(b).orElseThrow()).get(0);
                msg.append(" (backend ")
                        .append(b)
                        .append(" limits on counters ('")
                        .append(br.text())
                        .append("' at ")
                        .append(br.where())
                        .append(") that only frontends tracking them feed, and ")
                        .append(u.name())
                        .append(" tracks none)");
                break;
            }
        }
        return msg.toString();
    }

    /**
     * Whether a backend (or listen: its rules also run for requests other frontends route to it,
     * checked with HAProxy 2.6) enforces a rate limit itself, and whether it feeds its counters
     * itself.
     */
    enum BackendLimit {
        NONE,
        /** Limits and tracks: the limit holds for every frontend that reaches it. */
        SELF,
        /**
         * Limits on counters it does not track: only requests tracked by their frontend are
         * limited.
         */
        NEEDS_TRACKING
    }

    static BackendLimit limitedBackend(HaproxyConfig c, String name) {
        Section b = c.backend(name).orElse(null);
        if (b == null || Frontends.rateRules(b).isEmpty()) {
            return BackendLimit.NONE;
        }
        return Frontends.tracks(b) ? BackendLimit.SELF : BackendLimit.NEEDS_TRACKING;
    }

    /** Whether backend b's own limit applies to the requests frontend u sends it. */
    static boolean limitedFor(BackendLimit l, Frontends.Frontend u) {
        return l == BackendLimit.SELF
                || l == BackendLimit.NEEDS_TRACKING && !u.trackers().isEmpty();
    }
}
