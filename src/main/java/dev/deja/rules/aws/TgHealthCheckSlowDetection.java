package dev.deja.rules.aws;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.model.aws.AwsInventory;
import dev.deja.model.aws.AwsK8sLink;
import dev.deja.model.aws.LoadBalancerView;
import dev.deja.model.aws.NlbViews;
import dev.deja.model.aws.TargetGroupView;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Health checks that take long to take a dead target out: interval x unhealthy threshold above the
 * limit (parameter {@code maxDetectionSeconds}, default 60 s; medium from three times the limit),
 * or a timeout not shorter than the interval.
 */
public final class TgHealthCheckSlowDetection extends AwsRule {
    public static final String ID = "aws-tg-health-check-slow-detection";
    static final String LIMIT = "maxDetectionSeconds";

    public TgHealthCheckSlowDetection() {
        super(ID);
    }

    @Override
    public List<Finding> check(Snapshot snapshot, RuleContext ctx) {
        int limit = ctx.intParameter(LIMIT);
        AwsInventory inv = NlbViews.inventory(snapshot);
        List<Finding> out = new ArrayList<>();
        for (TargetGroupView tg : inv.targetGroups()) {
            TargetGroupView.HealthCheck hc = tg.healthCheck();
            if (hc == null || Boolean.FALSE.equals(hc.enabled()) || hc.intervalSeconds() == null) {
                continue;
            }
            List<LoadBalancerView> lbs = inv.loadBalancersOf(tg);
            String subject =
                    "target group "
                            + tg.name()
                            + (lbs.isEmpty()
                                    ? ""
                                    : " (serves "
                                            + String.join(
                                                    ", ", lbs.stream().map(NlbViews::name).toList())
                                            + ")");
            int interval = hc.intervalSeconds();
            if (hc.unhealthyThreshold() != null) {
                int detect = interval * hc.unhealthyThreshold();
                if (detect > limit) {
                    RuleContext.FindingBuilder f =
                            ctx.finding(
                                            NlbViews.location(tg),
                                            subject
                                                    + " checks every "
                                                    + interval
                                                    + " s and marks a target unhealthy after "
                                                    + hc.unhealthyThreshold()
                                                    + " failed checks: a dead target keeps receiving new"
                                                    + " connections for up to "
                                                    + interval
                                                    + " x "
                                                    + hc.unhealthyThreshold()
                                                    + " = "
                                                    + detect
                                                    + " s"
                                                    + minutes(detect)
                                                    + " (limit "
                                                    + limit
                                                    + " s)")
                                    .key("slow detection");
                    if (detect >= 3 * limit) {
                        f.severity(Severity.MEDIUM);
                    }
                    related(lbs, f);
                    out.add(f.build());
                }
            }
            if (hc.timeoutSeconds() != null && hc.timeoutSeconds() >= interval) {
                RuleContext.FindingBuilder f =
                        ctx.finding(
                                        NlbViews.location(tg),
                                        subject
                                                + " waits "
                                                + hc.timeoutSeconds()
                                                + " s for a health-check answer but checks every "
                                                + interval
                                                + " s: the timeout is not shorter than the interval, so a hanging target is seen"
                                                + " late and checks overlap")
                                .key("timeout not below interval");
                related(lbs, f);
                out.add(f.build());
            }
        }
        return out;
    }

    private static void related(List<LoadBalancerView> lbs, RuleContext.FindingBuilder f) {
        for (LoadBalancerView lb : lbs) {
            f.related(lb.label() + " (" + lb.arn() + ")");
            AwsK8sLink.related(lb).forEach(f::related);
        }
    }

    private static String minutes(int s) {
        if (s < 120) {
            return "";
        }
        return s % 60 == 0
                ? " (" + s / 60 + " min)"
                : String.format(Locale.ROOT, " (%.1f min)", s / 60.0);
    }
}
