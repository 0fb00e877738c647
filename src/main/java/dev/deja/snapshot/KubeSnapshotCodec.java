package dev.deja.snapshot;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.deja.engine.InputException;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.KubeRaw;
import dev.deja.model.kube.KubeScope;
import dev.deja.model.kube.Meta;
import dev.deja.source.kube.ManifestLoader;
import dev.deja.source.kube.RawObjects;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
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
                        .replace("`dev.deja.model.kube.", "`");
        return t.length() <= 200 ? t : t.substring(0, 197) + "...";
    }

    /**
     * The kinds each list of the part holds (see ViewReader): a list that cannot be read leaves
     * these kinds unread, and the rules that need one are not run (dev.deja.engine.UnreadKinds
     * reads the coverage entry's scope). {@code others} holds the kinds without a view of their
     * own, which no rule reads.
     */
    public static final Map<String, List<String>> KINDS =
            Map.ofEntries(
                    Map.entry("workloads", List.of("Deployment", "StatefulSet", "DaemonSet")),
                    Map.entry("services", List.of("Service")),
                    Map.entry("hpas", List.of("HorizontalPodAutoscaler")),
                    Map.entry("pdbs", List.of("PodDisruptionBudget")),
                    Map.entry("ingresses", List.of("Ingress")),
                    Map.entry("ingressClasses", List.of("IngressClass")),
                    Map.entry("configMaps", List.of("ConfigMap")),
                    Map.entry("others", List.of()),
                    Map.entry("networkPolicies", List.of("NetworkPolicy")),
                    Map.entry("webhookConfigurations", List.of("ValidatingWebhookConfiguration")),
                    Map.entry("clusterRoles", List.of("ClusterRole")),
                    Map.entry("clusterRoleBindings", List.of("ClusterRoleBinding")),
                    Map.entry("customResourceDefinitions", List.of("CustomResourceDefinition")),
                    Map.entry("pods", List.of("Pod")));

    /**
     * The coverage scope of one list of a snapshot: "workloads (Deployment, StatefulSet, DaemonSet)
     * of snapshot s.json", "others (kinds without a view) of snapshot s.json".
     */
    static String scope(String list, String display) {
        List<String> kinds = KINDS.getOrDefault(list, List.of());
        return list
                + " ("
                + (kinds.isEmpty() ? "kinds without a view" : String.join(", ", kinds))
                + ") of snapshot "
                + display;
    }

    /**
     * What the rules rely on, checked once on read for one list: no null entry, every object with
     * its metadata, a kind, and a name unless it was read from a manifest file.
     */
    static void validate(List<?> list, String name, String display) {
        for (int i = 0; i < list.size(); i++) {
            Object o = list.get(i);
            String where =
                    "snapshot malformed: " + display + ": kubernetes." + name + "[" + i + "]: ";
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
            // a manifest may hold an object without metadata.name (a Kustomization), which deja
            // reads and writes into snapshots; an object read from a cluster always has one
            if (m.kind() == null
                    || m.kind().isBlank()
                    || m.file() == null && (m.name() == null || m.name().isBlank())) {
                throw new InputException(where + "meta without kind or name");
            }
        }
    }

    /** "[3].meta.name": where in a list Jackson met the value it could not use. */
    static String pathOf(JacksonException e) {
        StringBuilder b = new StringBuilder();
        for (JacksonException.Reference r : e.getPath()) {
            if (r.getPropertyName() != null) {
                b.append('.').append(r.getPropertyName());
            } else if (r.getIndex() >= 0) {
                b.append('[').append(r.getIndex()).append(']');
            }
        }
        return b.toString();
    }

    @Override
    public JsonNode write(Snapshot snapshot, JsonNodeFactory nodes) {
        return snapshot.part(KubeInventory.class)
                .map(
                        inv -> {
                            JsonNode node = MAPPER.valueToTree(inv);
                            snapshot.part(KubeRaw.class)
                                    .filter(r -> r.size() > 0)
                                    .ifPresent(r -> writeRaw(inv, r, (ObjectNode) node, nodes));
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
        read(part, display, out, Unusable.STOP);
    }

    /**
     * The objects as the API returned them ({@link KubeRaw}), for the kinds the saving scan's rules
     * of one's own read so: {@value #RAW} holds, for each list of the part, one entry per view (the
     * object, or null when not kept), and {@value #RAW_KINDS} the kinds held.
     */
    private static void writeRaw(
            KubeInventory inv, KubeRaw raw, ObjectNode node, JsonNodeFactory nodes) {
        ObjectNode lists = nodes.objectNode();
        for (RecordComponent rc : KubeInventory.class.getRecordComponents()) {
            List<?> list;
            try {
                list = (List<?>) rc.getAccessor().invoke(inv);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            ArrayNode a = null;
            for (int i = 0; i < list.size(); i++) {
                Map<String, Object> o = raw.of(metaOrNull(list.get(i)));
                if (o != null && a == null) {
                    a = nodes.arrayNode();
                    for (int j = 0; j < i; j++) {
                        a.addNull();
                    }
                }
                if (a != null) {
                    a.add(o == null ? nodes.nullNode() : MAPPER.valueToTree(o));
                }
            }
            if (a != null) {
                lists.set(rc.getName(), a);
            }
        }
        node.set(RAW, lists);
        ArrayNode kinds = nodes.arrayNode();
        raw.kinds().forEach(kinds::add);
        node.set(RAW_KINDS, kinds);
    }

    private static Meta metaOrNull(Object view) {
        try {
            return ManifestLoader.metaOf(view);
        } catch (IllegalStateException e) {
            return null;
        }
    }

    /** Field of the part with the objects as the API returned them (absent in older snapshots). */
    static final String RAW = "raw";

    /** Field of the part with the kinds {@value #RAW} holds. */
    static final String RAW_KINDS = "rawKinds";

    /** Reads {@value #RAW} back into {@link KubeRaw}, attached to the views just read. */
    private static void readRaw(
            JsonNode part, String display, Object[] lists, SnapshotBuilder out) {
        KubeRaw.Builder raw = out.builder(KubeRaw.Builder.class, KubeRaw.Builder::new);
        Set<String> kinds = new TreeSet<>();
        JsonNode k = part.get(RAW_KINDS);
        if (k != null && k.isArray()) {
            for (JsonNode n : k) {
                if (n.isString()) {
                    kinds.add(n.asString());
                }
            }
        }
        raw.snapshot(display, kinds);
        JsonNode r = part.get(RAW);
        if (r == null || !r.isObject()) {
            return;
        }
        RecordComponent[] components = KubeInventory.class.getRecordComponents();
        for (int c = 0; c < components.length; c++) {
            JsonNode a = r.get(components[c].getName());
            List<?> list = (List<?>) lists[c];
            if (a == null || !a.isArray() || list.isEmpty()) {
                continue;
            }
            String where =
                    "snapshot malformed: "
                            + display
                            + ": kubernetes.raw."
                            + components[c].getName();
            if (a.size() != list.size()) {
                throw new InputException(
                        where + ": " + a.size() + " entries for " + list.size() + " objects");
            }
            for (int i = 0; i < list.size(); i++) {
                JsonNode o = a.get(i);
                if (o == null || o.isNull()) {
                    continue;
                }
                Meta m = metaOrNull(list.get(i));
                if (m == null || !o.isObject()) {
                    throw new InputException(where + "[" + i + "]: not an object");
                }
                JsonNode kind = o.get("kind");
                if (kind != null && !kind.isNull() && !kind.asString().equals(m.kind())) {
                    throw new InputException(
                            where + "[" + i + "]: kind " + kind.asString() + ", not " + m.kind());
                }
                try {
                    raw.add(m, RawObjects.fromJson(o));
                } catch (KubeRaw.TooLarge e) {
                    raw.refuse(m, KubeRaw.tooLarge(e));
                }
            }
        }
    }

    /**
     * Each list of the part (one record component of {@link KubeInventory}) is read and checked on
     * its own: one that cannot be used is given whole to {@code unusable} (without --allow-partial
     * the scan stops; with it, the list is left out and its kinds are not judged), the others are
     * used. A list is never used in part: a rule that finds no PodDisruptionBudget for a workload
     * must see every PodDisruptionBudget or none.
     */
    @Override
    public void read(JsonNode part, String display, SnapshotBuilder out, Unusable unusable) {
        if (part == null || part.isNull()) {
            throw new InputException(
                    "snapshot malformed: " + display + ": kubernetes part is null");
        }
        if (!part.isObject()) {
            throw new InputException(
                    "snapshot malformed: " + display + ": kubernetes part is not an object");
        }
        RecordComponent[] components = KubeInventory.class.getRecordComponents();
        Object[] lists = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            RecordComponent rc = components[i];
            types[i] = rc.getType();
            lists[i] = List.of();
            JsonNode n = part.get(rc.getName());
            if (n == null || n.isNull()) {
                continue;
            }
            try {
                List<?> list;
                try {
                    list =
                            MAPPER.treeToValue(
                                    n, MAPPER.getTypeFactory().constructType(rc.getGenericType()));
                } catch (JacksonException e) {
                    throw new InputException(
                            "snapshot malformed: "
                                    + display
                                    + ": kubernetes."
                                    + rc.getName()
                                    + pathOf(e)
                                    + ": "
                                    + oneLine(e.getOriginalMessage()));
                } catch (RuntimeException e) {
                    throw new InputException(
                            "snapshot malformed: "
                                    + display
                                    + ": kubernetes."
                                    + rc.getName()
                                    + ": "
                                    + oneLine(String.valueOf(e.getMessage())));
                }
                validate(list == null ? List.of() : list, rc.getName(), display);
                lists[i] = list == null ? List.of() : list;
            } catch (InputException e) {
                unusable.list("kubernetes", scope(rc.getName(), display), e);
            }
        }
        KubeInventory inv;
        try {
            inv = KubeInventory.class.getDeclaredConstructor(types).newInstance(lists);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        readRaw(part, display, lists, out);
        out.builder(KubeInventory.Builder.class, KubeInventory.Builder::new).addAll(inv);
        JsonNode selector = part.get(SELECTOR);
        if (selector != null && selector.isString() && !selector.asString().isBlank()) {
            out.put(KubeScope.class, new KubeScope(selector.asString()));
        }
    }
}
