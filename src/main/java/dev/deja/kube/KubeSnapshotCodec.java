package dev.deja.kube;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.deja.engine.InputException;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.kube.model.KubeInventory;
import dev.deja.kube.model.KubeScope;
import dev.deja.kube.model.Meta;
import dev.deja.source.SnapshotCodec;
import java.lang.reflect.RecordComponent;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code "kubernetes"} part of a saved snapshot: the {@link KubeInventory} views as JSON
 * (record components by name; unset values omitted), so {@code deja scan snapshot.json} reruns the
 * rules offline on exactly what was read.
 */
public final class KubeSnapshotCodec implements SnapshotCodec {
    /** Field of the part that keeps the scan's label selector (absent without -l). */
    static final String SELECTOR = "selector";

    static final JsonMapper MAPPER =
            JsonMapper.builder()
                    .changeDefaultVisibility(
                            v -> v.withIsGetterVisibility(JsonAutoDetect.Visibility.NONE))
                    .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                    .changeDefaultPropertyInclusion(
                            i -> i.withValueInclusion(JsonInclude.Include.NON_NULL))
                    .build();

    /**
     * First line of a parser message, without where Jackson read it from, at most 200 characters.
     */
    static String oneLine(String m) {
        String t =
                String.valueOf(m)
                        .lines()
                        .findFirst()
                        .orElse("")
                        .replaceAll("\\p{Cntrl}", "?")
                        .replaceAll("`?java\\.lang\\.\\w+Exception`?", "a missing or invalid value")
                        .replace("`dev.deja.kube.model.", "`");
        return t.length() <= 200 ? t : t.substring(0, 197) + "...";
    }

    /**
     * What the rules rely on, checked once on read: no null entry in a list, every object with its
     * metadata, a kind and a name.
     */
    static void validate(KubeInventory inv, String display) {
        for (RecordComponent rc : KubeInventory.class.getRecordComponents()) {
            Object v;
            try {
                v = rc.getAccessor().invoke(inv);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            if (!(v instanceof List<?> list)) {
                continue;
            }
            for (int i = 0; i < list.size(); i++) {
                Object o = list.get(i);
                String where =
                        "snapshot malformed: "
                                + display
                                + ": kubernetes."
                                + rc.getName()
                                + "["
                                + i
                                + "]: ";
                if (o == null) {
                    throw new InputException(where + "null");
                }
                Meta m;
                try {
                    m = ManifestLoader.metaOf(o);
                } catch (IllegalStateException e) {
                    continue; // a view without metadata of its own
                }
                if (m == null) {
                    throw new InputException(where + "no meta");
                }
                if (m.kind() == null
                        || m.kind().isBlank()
                        || m.name() == null
                        || m.name().isBlank()) {
                    throw new InputException(where + "meta without kind or name");
                }
            }
        }
    }

    @Override
    public JsonNode write(Snapshot snapshot, JsonNodeFactory nodes) {
        return snapshot.part(KubeInventory.class)
                .map(
                        inv -> {
                            JsonNode node = MAPPER.valueToTree(inv);
                            // the -l/--selector the cluster was read with: an offline scan reports
                            // on the same objects
                            snapshot.part(KubeScope.class)
                                    .ifPresent(
                                            s -> ((ObjectNode) node).put(SELECTOR, s.selector()));
                            return node;
                        })
                .orElse(null);
    }

    @Override
    public void read(JsonNode part, String display, SnapshotBuilder out) {
        KubeInventory inv;
        try {
            inv = MAPPER.treeToValue(part, KubeInventory.class);
        } catch (JacksonException e) {
            throw new InputException(
                    "snapshot malformed: "
                            + display
                            + ": kubernetes part: "
                            + oneLine(e.getOriginalMessage()));
        } catch (RuntimeException e) {
            throw new InputException(
                    "snapshot malformed: "
                            + display
                            + ": kubernetes part: "
                            + oneLine(String.valueOf(e.getMessage())));
        }
        if (inv == null) {
            throw new InputException(
                    "snapshot malformed: " + display + ": kubernetes part is null");
        }
        validate(inv, display);
        out.builder(KubeInventory.Builder.class, KubeInventory.Builder::new).addAll(inv);
        JsonNode selector = part.get(SELECTOR);
        if (selector != null && selector.isString() && !selector.asString().isBlank()) {
            out.put(KubeScope.class, new KubeScope(selector.asString()));
        }
    }
}
