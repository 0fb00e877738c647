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
import java.util.List;
import java.util.Map;

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
            for (Frontends.Frontend u : http) {
                if (u.rateLimited()) {
                    continue;
                }
                for (Frontends.Frontend l : http) {
                    if (!l.rateLimited()) {
                        continue;
                    }
                    List<String> shared = new ArrayList<>();
                    for (String b : u.backends()) {
                        if (l.backends().contains(b) && !backendLimited.computeIfAbsent(b, n -> limitedBackend(c, n))) {
                            shared.add(b);
                        }
                    }
                    if (shared.isEmpty()) {
                        continue;
                    }
                    Directive rule = l.rateRules().get(0);
                    String msg = u.section().label() + " reaches " + (shared.size() == 1 ? "backend " : "backends ")
                            + String.join(", ", shared) + " with no rate-limit rule, while " + l.section().label()
                            + " rate-limits the same " + (shared.size() == 1 ? "backend" : "backends") + " ('"
                            + rule.text() + "' at " + rule.where() + "): a client that goes through " + u.name()
                            + " is not limited at all";
                    out.add(ctx.finding(Notes.at(u.section()), msg)
                            .related(l.section().label() + " (" + l.section().where() + ")")
                            .notes(Notes.of(u.section(), rule)).build());
                    break; // one finding per unprotected frontend
                }
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
