package dev.deja.engine;

import java.util.List;
import java.util.Set;

/**
 * A rule module: one incident's risk pattern. Pure: it reads the immutable snapshot and returns
 * findings, no I/O. Its metadata (title, severity, cases, remediation) lives in {@code
 * rules/<id>.yaml}.
 */
public interface Rule {

    /** The permanent rule id; {@code rules/<id>.yaml} must exist. */
    String id();

    /** The source kind this rule reads. */
    SourceKind source();

    /**
     * Kubernetes kinds this rule needs ("Deployment", "Service", ...): the live collector lists
     * only the kinds the selected rules need, and the in-cluster ClusterRole grants exactly these.
     */
    default Set<String> kubeKinds() {
        return Set.of();
    }

    List<Finding> check(Snapshot snapshot, RuleContext ctx);

    /**
     * The class name of the snapshot part this rule reads, when it is not its source's usual one (a
     * rule on HAProxy's runtime figures runs when the runtime API was read, not when a
     * configuration was); null for the usual one.
     */
    default String part() {
        return null;
    }

    /**
     * Every snapshot part this rule can judge (it runs when any of them was read): {@link #part()}
     * by default; a rule on live figures from several sources (HAProxy's runtime API, Prometheus)
     * names them all.
     */
    default List<String> parts() {
        return part() == null ? List.of() : List.of(part());
    }
}
