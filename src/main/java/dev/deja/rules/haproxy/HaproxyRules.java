package dev.deja.rules.haproxy;

import dev.deja.engine.Rule;
import java.util.List;

/** The haproxy rule modules. */
public final class HaproxyRules {
    private HaproxyRules() {
    }

    public static List<Rule> all() {
        return List.of(new TarpitHoldsSlots(), new MissingHttpRequestTimeout(), new MaxconnHeadroom(),
                new RateLimitNotEverywhere(), new NoSaturationVisibility());
    }
}
