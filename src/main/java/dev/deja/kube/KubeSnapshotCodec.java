package dev.deja.kube;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import dev.deja.engine.InputException;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.kube.model.KubeInventory;
import dev.deja.kube.model.KubeScope;
import dev.deja.source.SnapshotCodec;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The {@code "kubernetes"} part of a saved snapshot: the {@link KubeInventory} views as JSON (record components by
 * name; unset values omitted), so {@code deja scan snapshot.json} reruns the rules offline on exactly what was read.
 */
public final class KubeSnapshotCodec implements SnapshotCodec {
    /** Field of the part that keeps the scan's label selector (absent without -l). */
    static final String SELECTOR = "selector";
    static final JsonMapper MAPPER = JsonMapper.builder()
            .changeDefaultVisibility(v -> v.withIsGetterVisibility(JsonAutoDetect.Visibility.NONE))
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .changeDefaultPropertyInclusion(i -> i.withValueInclusion(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL))
            .build();

    @Override
    public JsonNode write(Snapshot snapshot, JsonNodeFactory nodes) {
        return snapshot.part(KubeInventory.class).map(inv -> {
            JsonNode node = MAPPER.valueToTree(inv);
            // the -l/--selector the cluster was read with: an offline scan reports on the same objects
            snapshot.part(KubeScope.class).ifPresent(s -> ((tools.jackson.databind.node.ObjectNode) node)
                    .put(SELECTOR, s.selector()));
            return node;
        }).orElse(null);
    }

    @Override
    public void read(JsonNode part, String display, SnapshotBuilder out) {
        KubeInventory inv;
        try {
            inv = MAPPER.treeToValue(part, KubeInventory.class);
        } catch (JacksonException e) {
            throw new InputException(display + ": the kubernetes part is malformed: " + e.getOriginalMessage());
        }
        out.builder(KubeInventory.Builder.class, KubeInventory.Builder::new).addAll(inv);
        JsonNode selector = part.get(SELECTOR);
        if (selector != null && selector.isString() && !selector.asString().isBlank()) {
            out.put(KubeScope.class, new KubeScope(selector.asString()));
        }
    }
}
