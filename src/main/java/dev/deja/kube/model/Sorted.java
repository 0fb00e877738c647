package dev.deja.kube.model;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Immutable maps of a view in key order. {@code Map.copyOf} iterates in an order that changes from one JVM run to the
 * next, and maps appear in finding messages (labels, selectors), whose text is part of a finding's fingerprint: the
 * same object must give the same text every time, whichever source read it.
 */
final class Sorted {
    private Sorted() {
    }

    static <V> Map<String, V> copyOf(Map<String, V> m) {
        return m.isEmpty() ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(m));
    }
}
