package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.deja.engine.SourceFile;
import dev.deja.model.kube.KubeInventory;
import dev.deja.snapshot.KubeSnapshotCodec;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * KubeSnapshotCodec.KINDS says which kinds each list of a snapshot holds (a list that cannot be
 * read leaves them unread): it must name every list of KubeInventory, and each kind must be one
 * that the manifest reader puts in that list.
 */
class KubeSnapshotKindsTest {
    @Test
    void everyListIsNamedWithTheKindsItHolds() throws Exception {
        Map<String, Class<?>> elementOf = new TreeMap<>();
        for (RecordComponent rc : KubeInventory.class.getRecordComponents()) {
            if (rc.getGenericType() instanceof ParameterizedType t) {
                elementOf.put(rc.getName(), (Class<?>) t.getActualTypeArguments()[0]);
            }
        }
        assertEquals(elementOf.keySet(), new TreeMap<>(KubeSnapshotCodec.KINDS).keySet());
        for (Map.Entry<String, List<String>> e : KubeSnapshotCodec.KINDS.entrySet()) {
            List<String> classes = new ArrayList<>();
            for (String kind : e.getValue()) {
                String doc = "apiVersion: v1\nkind: " + kind + "\nmetadata:\n  name: x\n";
                List<Object> views = ManifestLoader.parse(new SourceFile("x.yaml", doc));
                classes.add(kind + " -> " + views.get(0).getClass().getSimpleName());
            }
            List<String> expected = new ArrayList<>();
            for (String kind : e.getValue()) {
                expected.add(kind + " -> " + elementOf.get(e.getKey()).getSimpleName());
            }
            assertEquals(expected, classes, e.getKey());
        }
    }
}
