package dev.deja.rules.haproxy;

import dev.deja.engine.Finding;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SourceKind;
import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.HaproxyConfigs;
import java.util.ArrayList;
import java.util.List;

/**
 * Base of the HAProxy rules: each configuration of the snapshot is judged on its own (two unrelated
 * configs are never mixed), so a rule only says what it finds in one configuration.
 */
abstract class HaproxyRule implements Rule {

    private final String id;

    HaproxyRule(String id) {
        this.id = id;
    }

    @Override
    public final String id() {
        return id;
    }

    /** The configurations read, unless a rule reads other parts. */
    @Override
    public List<Class<?>> parts() {
        return List.of(HaproxyConfigs.class);
    }

    @Override
    public final SourceKind source() {
        return SourceKind.HAPROXY;
    }

    @Override
    public final List<Finding> check(Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (HaproxyConfig c : configs(snapshot)) {
            out.addAll(check(c, snapshot, ctx));
        }
        return out;
    }

    /** The findings of one configuration. */
    abstract List<Finding> check(HaproxyConfig config, RuleContext ctx);

    /**
     * The findings of one configuration, for a rule that also reads another part of the snapshot
     * about it (the live figures of {@code --haproxy-runtime}); by default the configuration alone.
     */
    List<Finding> check(HaproxyConfig config, Snapshot snapshot, RuleContext ctx) {
        return check(config, ctx);
    }

    /** Every HAProxy configuration read (none when the scan had no HAProxy file). */
    static List<HaproxyConfig> configs(Snapshot snapshot) {
        return snapshot.part(HaproxyConfigs.class).map(HaproxyConfigs::configs).orElse(List.of());
    }
}
