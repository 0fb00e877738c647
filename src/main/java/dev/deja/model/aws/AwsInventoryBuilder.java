package dev.deja.model.aws;

import dev.deja.engine.PartBuilder;
import java.util.ArrayList;
import java.util.List;

/**
 * Accumulates load balancers and target groups from every region and snapshot file; thread-safe.
 */
public final class AwsInventoryBuilder implements PartBuilder<AwsInventory> {
    private final List<LoadBalancerView> loadBalancers = new ArrayList<>();
    private final List<TargetGroupView> targetGroups = new ArrayList<>();

    public synchronized void add(AwsInventory inv) {
        loadBalancers.addAll(inv.loadBalancers());
        targetGroups.addAll(inv.targetGroups());
    }

    @Override
    public Class<AwsInventory> partType() {
        return AwsInventory.class;
    }

    @Override
    public synchronized AwsInventory build() {
        return new AwsInventory(loadBalancers, targetGroups);
    }
}
