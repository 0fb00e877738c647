package dev.deja.model.kube;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

/**
 * Immutable maps of a view in key order. {@code Map.copyOf} iterates in an order that changes from
 * one JVM run to the next, and maps appear in finding messages (labels, selectors), whose text is
 * part of a finding's fingerprint: the same object must give the same text every time, whichever
 * source read it. Kept as two sorted arrays (found by binary search), about as small as {@code
 * Map.copyOf}'s and a fifth of a {@code TreeMap}'s size: a cluster has many labels.
 */
final class Sorted {
    private Sorted() {}

    static <V> Map<String, V> copyOf(Map<String, V> m) {
        if (m.isEmpty()) {
            return Map.of();
        }
        String[] keys = m.keySet().toArray(String[]::new);
        Arrays.sort(keys);
        Object[] values = new Object[keys.length];
        for (int i = 0; i < keys.length; i++) {
            values[i] = Objects.requireNonNull(m.get(keys[i]), keys[i]);
        }
        return new ArrayMap<>(keys, values);
    }

    private static final class ArrayMap<V> extends AbstractMap<String, V> {
        private final String[] keys;
        private final Object[] values;

        ArrayMap(String[] keys, Object[] values) {
            this.keys = keys;
            this.values = values;
        }

        @Override
        public int size() {
            return keys.length;
        }

        @Override
        public boolean containsKey(Object key) {
            return key instanceof String s && Arrays.binarySearch(keys, s) >= 0;
        }

        @Override
        @SuppressWarnings("unchecked")
        public V get(Object key) {
            if (!(key instanceof String s)) {
                return null;
            }
            int i = Arrays.binarySearch(keys, s);
            return i < 0 ? null : (V) values[i];
        }

        @Override
        public Set<Entry<String, V>> entrySet() {
            return new AbstractSet<>() {
                @Override
                public int size() {
                    return keys.length;
                }

                @Override
                public Iterator<Entry<String, V>> iterator() {
                    return new Iterator<>() {
                        int i;

                        @Override
                        public boolean hasNext() {
                            return i < keys.length;
                        }

                        @Override
                        @SuppressWarnings("unchecked")
                        public Entry<String, V> next() {
                            if (i >= keys.length) {
                                throw new NoSuchElementException();
                            }
                            Entry<String, V> e = new SimpleImmutableEntry<>(keys[i], (V) values[i]);
                            i++;
                            return e;
                        }
                    };
                }
            };
        }
    }
}
