package dev.deja.rules.aws;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.model.aws.AwsK8sLink;
import dev.deja.model.aws.LoadBalancerView;
import dev.deja.model.aws.NlbViews;
import java.util.ArrayList;
import java.util.List;

/**
 * A multi-zone NLB with {@code zonal_shift.config.enabled} false (the AWS default): when one zone
 * is impaired, its traffic cannot be shifted away quickly with ARC zonal shift or zonal autoshift.
 */
public final class NlbZonalShiftDisabled extends AwsRule {
    public static final String ID = "aws-nlb-zonal-shift-disabled";

    public NlbZonalShiftDisabled() {
        super(ID);
    }

    @Override
    public List<Finding> check(Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (LoadBalancerView lb : NlbViews.networkLoadBalancers(snapshot)) {
            int zones = lb.zones().size();
            if (zones < 2 || !lb.attributesRead() || lb.zonalShiftEnabled()) {
                continue;
            }
            String traffic =
                    lb.crossZoneEnabled()
                            ? "its targets keep receiving traffic from every zone"
                            : "clients of its address ("
                                    + NlbViews.share(zones)
                                    + ", cross-zone off) keep failing";
            RuleContext.FindingBuilder f =
                    ctx.finding(
                                    NlbViews.location(lb),
                                    NlbViews.name(lb)
                                            + " serves "
                                            + zones
                                            + " zones ("
                                            + String.join(", ", lb.zones())
                                            + ") with "
                                            + LoadBalancerView.ZONAL_SHIFT
                                            + "="
                                            + lb.attribute(LoadBalancerView.ZONAL_SHIFT)
                                            + (lb.isDefault(LoadBalancerView.ZONAL_SHIFT)
                                                    ? " (AWS default)"
                                                    : "")
                                            + ": when one zone is impaired (IL-0364: one zone for 6 h 27 min)"
                                            + " it cannot be shifted away, and "
                                            + traffic
                                            + " until AWS repairs it")
                            .key("zonal shift off");
            AwsK8sLink.related(lb).forEach(f::related);
            out.add(f.build());
        }
        return out;
    }
}
