package dev.deja.rules.aws;

import dev.deja.engine.Figure;
import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.model.aws.NlbViews;
import dev.deja.model.aws.TargetView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An enabled zone of an NLB where a target group has no healthy target (none registered there, or
 * all unhealthy, draining, initial or unavailable) while cross-zone load balancing is off for that
 * group: clients that resolve that zone's address fail.
 */
public final class NlbZoneWithoutHealthyTarget extends NlbPairRule {
    public static final String ID = "aws-nlb-zone-without-healthy-target";

    public NlbZoneWithoutHealthyTarget() {
        super(ID);
    }

    @Override
    void check(NlbViews.Pair p, RuleContext ctx, List<Finding> out) {
        if (!p.tg().healthRead() || p.crossZone().orElse(true)) {
            return;
        }
        int zones = p.lb().zones().size();
        List<TargetView> unknown = p.healthyWithUnknownZone();
        for (Map.Entry<String, Integer> z : p.healthyByZone().entrySet()) {
            if (z.getValue() > 0) {
                continue;
            }
            RuleContext.FindingBuilder f =
                    ctx.finding(
                                    NlbViews.location(p.lb()),
                                    NlbViews.name(p.lb())
                                            + ": zone "
                                            + z.getKey()
                                            + " has no healthy target of target group "
                                            + p.tg().name()
                                            + " ("
                                            + p.statesIn(z.getKey())
                                            + ") and cross-zone load balancing is off ("
                                            + p.tg().crossZoneOrigin(p.lb())
                                            + "): clients that resolve the zone's address ("
                                            + NlbViews.share(zones)
                                            + ") fail")
                            .key(
                                    "target group "
                                            + p.tg().name()
                                            + " zone "
                                            + z.getKey()
                                            + " without healthy target");
            if (!unknown.isEmpty()) {
                f.severity(Severity.MEDIUM).note(NlbViews.unknownZoneNote(unknown));
            }
            p.related().forEach(f::related);
            List<Figure.Zone> figure = new ArrayList<>();
            for (Map.Entry<String, Integer> y : p.healthyByZone().entrySet()) {
                figure.add(new Figure.Zone(y.getKey(), y.getValue(), p.registeredIn(y.getKey())));
            }
            f.figure(new Figure.ZoneTargets(NlbViews.name(p.lb()), p.tg().name(), figure));
            out.add(f.build());
        }
    }
}
