package dev.deja.model.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Maps in views print in key order whatever order they were read in (finding messages and
 * fingerprints show them).
 */
class SortedTest {
    @Test
    void labelsAndSelectorsPrintInKeyOrder() {
        Map<String, String> labels = new LinkedHashMap<>();
        for (String k :
                List.of("team", "app.kubernetes.io/name", "pod-template-hash", "app", "zone")) {
            labels.put(k, k + "-v");
        }
        String sorted =
                "{app=app-v, app.kubernetes.io/name=app.kubernetes.io/name-v, pod-template-hash=pod-template-hash-v,"
                        + " team=team-v, zone=zone-v}";
        Meta m = new Meta("v1", "Service", "ns", "n", labels, labels, null, null);
        assertEquals(sorted, m.labels().toString());
        assertEquals(sorted, m.annotations().toString());
        assertEquals(sorted, new Selector(labels, List.of()).matchLabels().toString());
        assertThrows(UnsupportedOperationException.class, () -> m.labels().put("x", "y"));
        labels.put("late", "1"); // a copy, not a view of the caller's map
        assertEquals(5, m.labels().size());
        assertEquals(
                Map.of(),
                new Meta("v1", "Service", "ns", "n", Map.of(), null, null, null).labels());
    }
}
