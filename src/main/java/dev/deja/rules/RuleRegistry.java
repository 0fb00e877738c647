package dev.deja.rules;

import dev.deja.engine.Rule;
import dev.deja.rules.aws.AwsRules;
import dev.deja.rules.haproxy.HaproxyRules;
import dev.deja.rules.kube.KubeRules;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * Every rule implementation. Each source keeps its own list ({@link HaproxyRules}, {@link KubeRules},
 * {@link AwsRules}); rule classes are plain Java with no Fabric8 or AWS SDK types, so listing them loads neither.
 */
public final class RuleRegistry {
    private RuleRegistry() {
    }

    public static List<Rule> all() {
        List<Rule> all = new ArrayList<>();
        all.addAll(HaproxyRules.all());
        all.addAll(KubeRules.all());
        all.addAll(AwsRules.all());
        all.sort(Comparator.comparing(Rule::id));
        return Collections.unmodifiableList(all);
    }
}
