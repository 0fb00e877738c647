package dev.deja.rules.aws;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.model.aws.NlbViews;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Cross-zone load balancing off (the load balancer attribute, or the target group's override) while
 * healthy targets are spread unevenly across the enabled zones: a zone with none, or the busiest
 * zone holding more than twice the targets of the least busy. Each zone's address takes an equal
 * share of clients, so the thin zone's targets carry the extra load, and one zone's trouble is not
 * absorbed by the others.
 */
public final class NlbCrossZoneOffUneven extends NlbPairRule {
    public static final String ID = "aws-nlb-cross-zone-off-uneven";

    public NlbCrossZoneOffUneven() {
        super(ID);
    }

    @Override
    void check(NlbViews.Pair p, RuleContext ctx, List<Finding> out) {
        int zones = p.lb().zones().size();
        if (zones < 2 || !p.tg().healthRead() || p.crossZone().orElse(true)) {
            return;
        }
        Map<String, Integer> healthy = p.healthyByZone();
        int max = Collections.max(healthy.values());
        int min = Collections.min(healthy.values());
        if (max == 0 || (min > 0 && max <= 2 * min)) {
            return; // none healthy anywhere is aws-nlb-zone-without-healthy-target's;
            // even enough otherwise
        }
        String busiest = null;
        String thinnest = null;
        for (Map.Entry<String, Integer> e : healthy.entrySet()) {
            if (busiest == null && e.getValue() == max) {
                busiest = e.getKey();
            }
            if (thinnest == null && e.getValue() == min) {
                thinnest = e.getKey();
            }
        }
        String effect =
                min == 0
                        ? "clients of "
                                + thinnest
                                + " ("
                                + NlbViews.share(zones)
                                + ") have no healthy target to reach"
                        : "each target in "
                                + thinnest
                                + " takes "
                                + fmt((double) max / min)
                                + "x the load of one in "
                                + busiest
                                + " (each zone's address gets "
                                + NlbViews.share(zones).replace("1 of " + zones + " zones, ", "")
                                + ")";
        RuleContext.FindingBuilder f =
                ctx.finding(
                                NlbViews.location(p.lb()),
                                NlbViews.name(p.lb())
                                        + ": cross-zone load balancing is off ("
                                        + p.tg().crossZoneOrigin(p.lb())
                                        + ") and healthy targets of "
                                        + p.tg().name()
                                        + " are uneven across zones ("
                                        + NlbViews.perZone(healthy)
                                        + "): "
                                        + effect)
                        .key("target group " + p.tg().name() + " uneven across zones");
        var unknown = p.healthyWithUnknownZone();
        if (!unknown.isEmpty()) {
            f.note(NlbViews.unknownZoneNote(unknown));
        }
        p.related().forEach(f::related);
        out.add(f.build());
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%.1f", d);
    }
}
