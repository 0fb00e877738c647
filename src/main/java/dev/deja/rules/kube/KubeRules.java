package dev.deja.rules.kube;

import dev.deja.engine.Rule;
import java.util.List;

/** The kube rule modules. */
public final class KubeRules {
    private KubeRules() {
    }

    public static List<Rule> all() {
        return List.of(new LbProbeFailsFast(), new LbLivenessSameAsReadiness(), new LbProbeOnAdminEndpoint(),
                new LbNoDisruptionHeadroom(), new LbNotSpread(), new IngressNginxSerialReloads(),
                new NlbServiceSingleZoneRisk());
    }
}
