package dev.deja.engine;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything the sources read, as immutable typed parts (one per source: the HAProxy configs, the Kubernetes
 * inventory, the AWS inventory), plus coverage and the inline suppressions found next to the objects. Rules only
 * ever see this.
 */
public final class Snapshot {
    private final Map<Class<?>, Object> parts;
    private final Coverage coverage;
    private final List<InlineSuppression> inlineSuppressions;

    Snapshot(Map<Class<?>, Object> parts, Coverage coverage, List<InlineSuppression> inlineSuppressions) {
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

    /** Whether a part of the class with this name is present, without loading that class. */
    public boolean hasPart(String className) {
        for (Class<?> c : parts.keySet()) {
            if (c.getName().equals(className)) {
                return true;
            }
        }
        return false;
    }

    public Coverage coverage() {
        return coverage;
    }

    public List<InlineSuppression> inlineSuppressions() {
        return inlineSuppressions;
    }
}
