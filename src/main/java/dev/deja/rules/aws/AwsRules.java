package dev.deja.rules.aws;

import dev.deja.engine.Rule;
import java.util.List;

/** The aws rule modules. */
public final class AwsRules {
    private AwsRules() {
    }

    public static List<Rule> all() {
        return List.of(new NlbZoneHealthUnreported(), new NlbZoneWithoutHealthyTarget(), new NlbCrossZoneOffUneven(),
                new NlbZonalShiftDisabled(), new TgHealthCheckSlowDetection());
    }
}
