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
import java.util.LinkedHashSet;
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

    @Override
    List<Finding> check(HaproxyConfig c, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        List<Frontends.Frontend> http =
                Frontends.primary(c).stream().filter(Frontends.Frontend::http).toList();
        Map<String, BackendLimit> backendLimited = new HashMap<>();
        // for each backend, the rate-limited frontends reaching it, in order: one pass, not
        // frontends x frontends
        Map<String, List<Integer>> limitersOf = new HashMap<>();
        List<Set<String>> backendsOf = new ArrayList<>();
        for (int i = 0; i < http.size(); i++) {
            Frontends.Frontend l = http.get(i);
            backendsOf.add(new HashSet<>(l.backends()));
            if (l.rateLimited()) {
                for (String b : new LinkedHashSet<>(l.backends())) {
                    limitersOf.computeIfAbsent(b, k -> new ArrayList<>()).add(i);
                }
            }
        }
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
            Frontends.Frontend l = http.get(first);
            Set<String> lb = backendsOf.get(first);
            List<String> shared = new ArrayList<>();
            for (String b : u.backends()) {
                if (lb.contains(b) && !limitedFor(backendLimited.get(b), u)) {
                    shared.add(b);
                }
            }
            Directive rule = l.rateRules().get(0);
            String msg = message(c, u, l, shared, rule, backendLimited);
            out.add(
                    ctx.finding(Notes.at(u.section()), msg)
                            .related(l.section().label() + " (" + l.section().where() + ")")
                            .notes(Notes.of(u.section(), rule))
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

    /**
     * What the finding says: which backends u reaches unlimited, which frontend l limits them and
     * how, and a backend limiting on counters u does not feed.
     */
    private static String message(
            HaproxyConfig c,
            Frontends.Frontend u,
            Frontends.Frontend l,
            List<String> shared,
            Directive rule,
            Map<String, BackendLimit> backendLimited) {
        String msg =
                u.section().label()
                        + " reaches "
                        + (shared.size() == 1 ? "backend " : "backends ")
                        + String.join(", ", shared)
                        + " with no rate-limit rule, while "
                        + l.section().label()
                        + " rate-limits the same "
                        + (shared.size() == 1 ? "backend" : "backends")
                        + " ('"
                        + rule.text()
                        + "' at "
                        + rule.where()
                        + "): a client that goes through "
                        + u.name()
                        + " is not limited at all";
        for (String b : shared) {
            if (backendLimited.get(b) == BackendLimit.NEEDS_TRACKING) {
                Directive br = Frontends.rateRules(c.backend(b).orElseThrow()).get(0);
                msg +=
                        " (backend "
                                + b
                                + " limits on counters ('"
                                + br.text()
                                + "' at "
                                + br.where()
                                + ") that only frontends tracking them feed, and "
                                + u.name()
                                + " tracks none)";
                break;
            }
        }
        return msg;
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
