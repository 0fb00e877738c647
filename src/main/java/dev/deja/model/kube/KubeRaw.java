package dev.deja.model.kube;

import dev.deja.engine.PartBuilder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Kubernetes objects as the API returns them (or as the manifest writes them), beside their views
 * in the {@link KubeInventory}: what a rule of one's own sees as {@code object.spec}, {@code
 * object.status}, ..., the way ValidatingAdmissionPolicy sees {@code object}. Kept only for the
 * kinds the loaded rules read that way ({@code ScanRequest.kubeRawKinds}, decided before the
 * sources read), so a scan without such rules keeps none. Values are JSON's: maps with string keys,
 * lists, strings, longs, doubles, booleans; a null is an absent key. {@code metadata.managedFields}
 * and the {@value ViewReader#LAST_APPLIED} annotation (a copy of the object) are left out.
 *
 * <p>Bounded as the readers bound YAML: at most {@value #MAX_DEPTH} levels and {@value #MAX_VALUES}
 * values (keys, items, scalars) per object; a larger object is not kept, and the reason is {@link
 * #missing}.
 */
public final class KubeRaw {
    public static final int MAX_DEPTH = 64;
    public static final int MAX_VALUES = 100_000;

    public static final KubeRaw EMPTY = new Builder().build();

    private final Map<Meta, Map<String, Object>> objects;
    private final Map<Meta, String> refused;
    private final List<Without> snapshots;

    /** A snapshot read, and the kinds whose objects it holds as the API returned them. */
    public record Without(String display, Set<String> kinds) {}

    private KubeRaw(Builder b) {
        this.objects = Collections.unmodifiableMap(new IdentityHashMap<>(b.objects));
        this.refused = Collections.unmodifiableMap(new IdentityHashMap<>(b.refused));
        this.snapshots = List.copyOf(b.snapshots);
    }

    /** The object of these metadata as the API returns it, or null when not kept. */
    public Map<String, Object> of(Meta m) {
        return objects.get(m);
    }

    /** Number of objects kept. */
    public int size() {
        return objects.size();
    }

    /**
     * Why the object of these metadata is not kept, for a rule that needs it: too large, or read
     * from a snapshot saved without it.
     */
    public String missing(Meta m) {
        String r = refused.get(m);
        if (r != null) {
            return r;
        }
        for (Without w : snapshots) {
            if (!w.kinds().contains(m.kind())) {
                return "snapshot "
                        + w.display()
                        + " holds no "
                        + m.kind()
                        + " as the API returned it ("
                        + (w.kinds().isEmpty()
                                ? "it holds none"
                                : "only " + String.join(", ", new TreeSet<>(w.kinds())))
                        + "): a snapshot keeps the objects of the kinds the rules of one's own"
                        + " of its scan read so; save it again with those rules (--rules-dir)";
            }
        }
        return "not kept as the API returned it";
    }

    /** The kinds of the objects kept. */
    public Set<String> kinds() {
        Set<String> out = new TreeSet<>();
        objects.keySet().forEach(m -> out.add(m.kind()));
        return out;
    }

    /**
     * Counts what one object holds while it is read, and refuses it past {@link #MAX_DEPTH} levels
     * or {@link #MAX_VALUES} values.
     */
    public static final class Budget {
        private int values;

        /** One more value at that depth (0: the object itself). */
        public void take(int depth) {
            if (depth > MAX_DEPTH) {
                throw new TooLarge("nested deeper than " + MAX_DEPTH + " levels");
            }
            if (++values > MAX_VALUES) {
                throw new TooLarge("more than " + MAX_VALUES + " values");
            }
        }
    }

    /** An object past the bounds: not kept. */
    public static final class TooLarge extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public TooLarge(String message) {
            super(message, null, false, false);
        }
    }

    /** The one-line reason kept for an object refused by its {@link Budget}. */
    public static String tooLarge(TooLarge e) {
        return "too large to keep as the API returns it ("
                + e.getMessage()
                + "; deja keeps at most "
                + MAX_VALUES
                + " values, "
                + MAX_DEPTH
                + " levels deep)";
    }

    /** Accumulates objects from several files, lists or snapshots; thread-safe. */
    public static final class Builder implements PartBuilder<KubeRaw> {
        private final Map<Meta, Map<String, Object>> objects = new IdentityHashMap<>();
        private final Map<Meta, String> refused = new IdentityHashMap<>();
        private final List<Without> snapshots = new ArrayList<>();

        /** The object of the view whose metadata are {@code m}. */
        public synchronized Builder add(Meta m, Map<String, Object> raw) {
            objects.put(m, raw);
            return this;
        }

        /** An object not kept, and why. */
        public synchronized Builder refuse(Meta m, String reason) {
            refused.put(m, reason);
            return this;
        }

        /** Everything another builder holds (a list read whole). */
        public Builder addAll(Builder other) {
            Map<Meta, Map<String, Object>> o;
            Map<Meta, String> r;
            synchronized (other) {
                o = new IdentityHashMap<>(other.objects);
                r = new IdentityHashMap<>(other.refused);
            }
            synchronized (this) {
                objects.putAll(o);
                refused.putAll(r);
            }
            return this;
        }

        /** A snapshot read that holds the objects of these kinds (maybe none). */
        public synchronized Builder snapshot(String display, Set<String> kinds) {
            snapshots.add(new Without(display, Set.copyOf(kinds)));
            return this;
        }

        @Override
        public Class<KubeRaw> partType() {
            return KubeRaw.class;
        }

        @Override
        public synchronized KubeRaw build() {
            return new KubeRaw(this);
        }
    }
}
