package dev.deja.rules.haproxy;

import dev.deja.engine.Rule;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SourceKind;
import dev.deja.haproxy.HaproxyConfig;
import dev.deja.haproxy.HaproxyConfigs;
import java.util.List;

/** What the HAProxy rules share: their source, and the configurations of the snapshot. */
abstract class HaproxyRule implements Rule {
    @Override
    public final SourceKind source() {
        return SourceKind.HAPROXY;
    }

    /** Every HAProxy configuration read (none when the scan had no HAProxy file). */
    static List<HaproxyConfig> configs(Snapshot snapshot) {
        return snapshot.part(HaproxyConfigs.class).map(HaproxyConfigs::configs).orElse(List.of());
    }
}
