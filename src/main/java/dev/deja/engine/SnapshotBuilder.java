package dev.deja.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Collects parts, coverage and inline suppressions from the sources; thread-safe, as live sources
 * run concurrently.
 */
public final class SnapshotBuilder {
    private final Map<Class<?>, Object> parts = new LinkedHashMap<>();
    private final Map<Class<?>, PartBuilder<?>> builders = new LinkedHashMap<>();
    private final List<Coverage.Entry> coverage = new ArrayList<>();
    private final List<InlineSuppression> suppressions = new ArrayList<>();

    /** The accumulator of the given type, created on first use. */
    public synchronized <B extends PartBuilder<?>> B builder(Class<B> type, Supplier<B> factory) {
        return type.cast(builders.computeIfAbsent(type, t -> factory.get()));
    }

    public synchronized <T> SnapshotBuilder put(Class<T> type, T part) {
        parts.put(type, part);
        return this;
    }

    /** A part put so far (not those still in a part builder). */
    public synchronized <T> Optional<T> part(Class<T> type) {
        return Optional.ofNullable(type.cast(parts.get(type)));
    }

    synchronized void putObject(Object part) {
        parts.put(part.getClass(), part);
    }

    public synchronized SnapshotBuilder coverage(Coverage.Entry e) {
        coverage.add(e);
        return this;
    }

    public synchronized SnapshotBuilder read(String source, String scope, long count) {
        return coverage(new Coverage.Entry(source, scope, Coverage.Status.READ, null, count));
    }

    public synchronized SnapshotBuilder notRead(
            String source, String scope, Coverage.Status status, String why) {
        return coverage(new Coverage.Entry(source, scope, status, why, -1));
    }

    public synchronized SnapshotBuilder suppress(InlineSuppression s) {
        suppressions.add(s);
        return this;
    }

    public synchronized Snapshot build() {
        Map<Class<?>, Object> all = new LinkedHashMap<>(parts);
        for (PartBuilder<?> b : builders.values()) {
            all.put(b.partType(), b.build());
        }
        return new Snapshot(all, new Coverage(coverage), suppressions);
    }
}
