package dev.deja.rules.aws;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.model.aws.NlbViews;
import dev.deja.model.aws.TargetView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * IL-0364's exact symptom: the NLB publishes no health for targets of a zone (state {@code
 * unavailable}, e.g. reason {@code Elb.InternalError}), or DescribeTargetHealth fails with {@code
 * HealthUnavailable}. One finding per load balancer, target group and zone.
 */
public final class NlbZoneHealthUnreported extends NlbPairRule {
    public static final String ID = "aws-nlb-zone-health-unreported";

    public NlbZoneHealthUnreported() {
        super(ID);
    }

    @Override
    void check(NlbViews.Pair p, RuleContext ctx, List<Finding> out) {
        int zones = p.lb().zones().size();
        if ("HealthUnavailable".equals(p.tg().healthErrorCode())) {
            out.add(unavailable(p, zones, ctx));
            return;
        }
        Map<String, List<TargetView>> byZone = new TreeMap<>();
        for (TargetView t : p.tg().targets()) {
            if (t.healthUnreported()) {
                byZone.computeIfAbsent(t.zoneKnown() ? t.zone() : "", k -> new ArrayList<>())
                        .add(t);
            }
        }
        byZone.forEach(
                (zone, targets) -> {
                    long inZone =
                            zone.isEmpty()
                                    ? p.tg().targets().stream().filter(t -> !t.zoneKnown()).count()
                                    : p.tg().targets().stream().filter(t -> t.inZone(zone)).count();
                    TargetView first = targets.get(0);
                    String reason =
                            first.reason() == null
                                    ? ""
                                    : ", reason "
                                            + first.reason()
                                            + (first.description() == null
                                                    ? ""
                                                    : ": " + first.description());
                    String where =
                            zone.isEmpty()
                                    ? "whose zone could not be read (deja does not guess the zone)"
                                    : "in "
                                            + zone
                                            + (p.crossZone().orElse(true)
                                                    ? ""
                                                    : " ("
                                                            + NlbViews.share(Math.max(1, zones))
                                                            + ", cross-zone off)");
                    RuleContext.FindingBuilder f =
                            ctx.finding(
                                            NlbViews.location(p.lb()),
                                            NlbViews.name(p.lb())
                                                    + ": target group "
                                                    + p.tg().name()
                                                    + " reports no health for "
                                                    + targets.size()
                                                    + " of "
                                                    + inZone
                                                    + " targets "
                                                    + where
                                                    + " (state unavailable"
                                                    + reason
                                                    + "): unhealthy targets"
                                                    + " there are not detected and keep receiving traffic, as in IL-0364 (6 h 27 min)")
                                    .key(
                                            "target group "
                                                    + p.tg().name()
                                                    + " health unreported in "
                                                    + (zone.isEmpty()
                                                            ? "an unknown zone"
                                                            : "zone " + zone));
                    f.note(
                            "targets: "
                                    + String.join(
                                            ", ",
                                            targets.stream()
                                                    .limit(10)
                                                    .map(TargetView::display)
                                                    .toList())
                                    + (targets.size() > 10 ? ", ..." : ""));
                    p.related().forEach(f::related);
                    out.add(f.build());
                });
    }

    /** DescribeTargetHealth failing with HealthUnavailable: no health in any zone. */
    private static Finding unavailable(NlbViews.Pair p, int zones, RuleContext ctx) {
        RuleContext.FindingBuilder f =
                ctx.finding(
                                NlbViews.location(p.lb()),
                                NlbViews.name(p.lb())
                                        + ": DescribeTargetHealth for"
                                        + " target group "
                                        + p.tg().name()
                                        + " fails with HealthUnavailable ("
                                        + p.tg().healthErrorMessage()
                                        + "): the load balancer reports no health for its targets"
                                        + " in any of its "
                                        + zones
                                        + " zones ("
                                        + String.join(", ", p.lb().zones())
                                        + "), so a dead target there is not taken out; at IL-0364 this lasted 6 h 27 min")
                        .key("target group " + p.tg().name() + " health unavailable");
        p.related().forEach(f::related);
        return f.build();
    }
}
