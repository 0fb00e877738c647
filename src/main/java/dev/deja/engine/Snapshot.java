package dev.deja.engine;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Everything the sources read, as immutable typed parts (one per source: the HAProxy configs, the
 * Kubernetes inventory, the AWS inventory), plus coverage and the inline suppressions found next to
 * the objects. Rules only ever see this.
 */
public final class Snapshot {
    private final Map<Class<?>, Object> parts;
    private final Coverage coverage;
    private final List<InlineSuppression> inlineSuppressions;

    /**
     * Views derived from the parts (e.g. which workloads are load balancers), computed once per
     * snapshot.
     */
    private final Map<Object, Object> derived = new ConcurrentHashMap<>();

    Snapshot(
            Map<Class<?>, Object> parts,
            Coverage coverage,
            List<InlineSuppression> inlineSuppressions) {
        this.parts = Map.copyOf(parts);
        this.coverage = coverage;
        this.inlineSuppressions = List.copyOf(inlineSuppressions);
    }

    public static Snapshot of(Object... parts) {
        SnapshotBuilder b = new SnapshotBuilder();
        for (Object p : parts) {
            b.putObject(p);
        }
        return b.build();
    }

    public <T> Optional<T> part(Class<T> type) {
        return Optional.ofNullable(type.cast(parts.get(type)));
    }

    /** Whether a part of this type was read. */
    public boolean has(Class<?> type) {
        return parts.containsKey(type);
    }

    /**
     * A view derived from this snapshot by a pure function, computed at most once per snapshot and
     * shared by the rules that ask for it (they may run in parallel). The key identifies the view
     * (use the function's owner class); the function must only read the snapshot. Nothing is kept
     * between snapshots.
     */
    public <T> T derived(Class<T> key, Function<Snapshot, T> compute) {
        Object v = derived.get(key);
        if (v == null) { // computed outside the map, so a view may itself ask for another; two
            // racing rules may both compute it
            v = compute.apply(this);
            Object first = derived.putIfAbsent(key, v);
            if (first != null) {
                v = first;
            }
        }
        return key.cast(v);
    }

    public Coverage coverage() {
        return coverage;
    }

    public List<InlineSuppression> inlineSuppressions() {
        return inlineSuppressions;
    }
}
