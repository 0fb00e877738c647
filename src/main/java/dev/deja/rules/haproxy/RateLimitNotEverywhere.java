package dev.deja.rules.haproxy;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.haproxy.Directive;
import dev.deja.haproxy.Frontends;
import dev.deja.haproxy.HaproxyConfig;
import dev.deja.haproxy.Section;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * IL-0264: rate-limit rules on some HTTP frontends and not on others that reach the same backends (hc-ping.com was
 * limited, hchk.io was not): the limit can be bypassed through the unprotected frontend.
 */
public final class RateLimitNotEverywhere extends HaproxyRule {
    public static final String ID = "haproxy-rate-limit-not-everywhere";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public List<Finding> check(Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (HaproxyConfig c : configs(snapshot)) {
            List<Frontends.Frontend> http = Frontends.primary(c).stream().filter(Frontends.Frontend::http).toList();
            Map<String, Boolean> backendLimited = new HashMap<>();
            // for each backend, the rate-limited frontends reaching it, in order: one pass, not frontends x frontends
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
                int first = Integer.MAX_VALUE; // the first limited frontend sharing an unlimited backend with u
                for (String b : u.backends()) {
                    List<Integer> ls = limitersOf.get(b);
                    if (ls != null && !backendLimited.computeIfAbsent(b, n -> limitedBackend(c, n))) {
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
                    if (lb.contains(b) && !backendLimited.get(b)) {
                        shared.add(b);
                    }
                }
                Directive rule = l.rateRules().get(0);
                String msg = u.section().label() + " reaches " + (shared.size() == 1 ? "backend " : "backends ")
                        + String.join(", ", shared) + " with no rate-limit rule, while " + l.section().label()
                        + " rate-limits the same " + (shared.size() == 1 ? "backend" : "backends") + " ('"
                        + rule.text() + "' at " + rule.where() + "): a client that goes through " + u.name()
                        + " is not limited at all";
                out.add(ctx.finding(Notes.at(u.section()), msg)
                        .related(l.section().label() + " (" + l.section().where() + ")")
                        .notes(Notes.of(u.section(), rule)).build()); // one finding per unprotected frontend
            }
        }
        return out;
    }

    /** A backend that enforces a rate limit itself protects every frontend that uses it. */
    private static boolean limitedBackend(HaproxyConfig c, String name) {
        Section b = c.backend(name).orElse(null);
        if (b == null || b.kind().equals("listen")) {
            return false;
        }
        for (Directive d : b.directives()) {
            if (d.is("http-request") && d.word(1) != null
                    && (d.word(1).equals("deny") || d.word(1).equals("tarpit") || d.word(1).equals("return"))) {
                for (String w : d.words()) {
                    String t = w.startsWith("{") ? w.substring(1) : w;
                    if (t.contains("_rate") || t.startsWith("sc_") || t.startsWith("src_")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
