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

    /**
     * Of {@link #kubeKinds}, the kinds whose objects this rule reads as the API returns them (a
     * rule of one's own that reads {@code object.spec}): the sources keep those objects whole.
     */
    default Set<String> kubeRawKinds() {
        return Set.of();
    }

    List<Finding> check(Snapshot snapshot, RuleContext ctx);

    /**
     * This rule's rough share of the work on a large input, 1 for most. The engine starts the rules
     * of higher cost first, so that a long rule does not start last and run alone while the other
     * threads idle; the findings and their order never depend on it.
     */
    default int cost() {
        return 1;
    }

    /**
     * The snapshot parts this rule can judge: it runs when any of them was read (a rule on
     * HAProxy's runtime figures runs when the runtime API or Prometheus was read, not when a
     * configuration was). Empty: it runs on every snapshot.
     */
    default List<Class<?>> parts() {
        return List.of();
    }
}
