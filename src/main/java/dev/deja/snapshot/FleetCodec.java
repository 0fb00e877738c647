package dev.deja.snapshot;

import dev.deja.engine.InputException;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.kube.FleetWorkloads;
import dev.deja.model.kube.Meta;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The {@code "fleet"} part of a saved snapshot: what a fleet scan kept of each cluster for the
 * rules that compare clusters ({@link FleetWorkloads}: {@code {"clusters": [{"name", "notRead",
 * "workloads": [META...], "namespaces": [META...], "namespacesNotRead"}]}}, each META as in the
 * kubernetes part). A fleet scan with {@code --snapshot-out 'snapshots/{target}.json'} writes it to
 * {@code snapshots/fleet.json}; {@code deja scan snapshots/fleet.json} judges the clusters again.
 */
public final class FleetCodec implements SnapshotCodec {
    @Override
    public JsonNode write(Snapshot snapshot, JsonNodeFactory nodes) {
        return snapshot.part(FleetWorkloads.class)
                .map(f -> (JsonNode) KubeSnapshotCodec.MAPPER.valueToTree(f))
                .orElse(null);
    }

    @Override
    public void read(JsonNode part, String display, SnapshotBuilder out) {
        String where = "snapshot malformed: " + display + ": fleet";
        if (part == null || !part.isObject() || !part.path("clusters").isArray()) {
            throw new InputException(where + ": needs clusters (a list)");
        }
        FleetWorkloads fleet;
        try {
            fleet = KubeSnapshotCodec.MAPPER.treeToValue(part, FleetWorkloads.class);
        } catch (JacksonException e) {
            throw new InputException(
                    where
                            + KubeSnapshotCodec.pathOf(e)
                            + ": "
                            + KubeSnapshotCodec.oneLine(e.getOriginalMessage()));
        } catch (RuntimeException e) { // a null list or entry the records refuse
            throw new InputException(
                    where + ": " + KubeSnapshotCodec.oneLine(String.valueOf(e.getMessage())));
        }
        for (int i = 0; i < fleet.clusters().size(); i++) {
            FleetWorkloads.Cluster c = fleet.clusters().get(i);
            String at = where + ".clusters[" + i + "]";
            if (c == null || c.name() == null || c.name().isBlank()) {
                throw new InputException(at + ": needs name (a string)");
            }
            for (Meta m : c.workloads()) {
                if (m == null
                        || !FleetWorkloads.WORKLOAD_KINDS.contains(m.kind())
                        || m.name() == null
                        || m.name().isBlank()) {
                    throw new InputException(
                            at
                                    + ".workloads: each needs a kind (Deployment, StatefulSet or"
                                    + " DaemonSet) and a name");
                }
            }
            for (Meta m : c.namespaces()) {
                if (m == null || m.name() == null || m.name().isBlank()) {
                    throw new InputException(at + ".namespaces: each needs a name");
                }
            }
        }
        out.put(FleetWorkloads.class, fleet);
    }
}
