package dev.deja.rules.aws;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.model.aws.NlbViews;
import java.util.ArrayList;
import java.util.List;

/** Base of the AWS rules that judge each NLB with each of its target groups on its own. */
abstract class NlbPairRule extends AwsRule {

    NlbPairRule(String id) {
        super(id);
    }

    @Override
    public final List<Finding> check(Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        NlbViews.forEachPair(snapshot, p -> check(p, ctx, out));
        return out;
    }

    /** Adds to {@code out} what the rule finds for one load balancer and target group. */
    abstract void check(NlbViews.Pair p, RuleContext ctx, List<Finding> out);
}
