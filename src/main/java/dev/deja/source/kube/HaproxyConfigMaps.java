package dev.deja.source.kube;

import dev.deja.engine.Coverage;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.engine.SourceFile;
import dev.deja.model.kube.ConfigMap;
import dev.deja.model.kube.KubeInventory;
import dev.deja.source.FileKind;
import dev.deja.source.ScanRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * HAProxy configurations kept in ConfigMaps (read from a cluster or from manifests): every key
 * ending in {@code .cfg}, and every key of the ConfigMaps named in the configuration file ({@code
 * haproxy.configMaps}) whose value is a HAProxy configuration. Each becomes a file named {@code
 * ConfigMap <namespace>/<name>#<key>}, so a finding reads "ConfigMap
 * ingress/haproxy#haproxy.cfg:12": the ConfigMap, the key and the line in the value. Named
 * ConfigMaps that are missing or hold no configuration are recorded in the coverage, not skipped
 * silently. A ConfigMap defined in several manifests gives one configuration per definition, named
 * with its manifest ({@code [k8s/a.yaml] ConfigMap ingress/haproxy#haproxy.cfg}).
 */
public final class HaproxyConfigMaps {
    private HaproxyConfigMaps() {}

    /**
     * Used by {@link dev.deja.collect.Collector} by name, only when the snapshot has a Kubernetes
     * inventory.
     */
    public static List<SourceFile> extract(
            Snapshot snapshot, ScanRequest req, SnapshotBuilder out) {
        KubeInventory inv = snapshot.part(KubeInventory.class).orElse(KubeInventory.EMPTY);
        Set<String> named = new LinkedHashSet<>(req.haproxyConfigMaps);
        List<SourceFile> files = new ArrayList<>();
        List<ConfigMap> cms = new ArrayList<>(inv.configMaps());
        cms.sort(
                Comparator.comparing(
                                ConfigMap::namespace,
                                Comparator.nullsFirst(Comparator.naturalOrder()))
                        // a manifest's ConfigMap may have no metadata.name
                        .thenComparing(
                                ConfigMap::name, Comparator.nullsFirst(Comparator.naturalOrder())));
        // a ConfigMap defined in several manifests: each definition is its own configuration, named
        // with its file
        Map<String, Integer> definitions = new HashMap<>();
        cms.forEach(cm -> definitions.merge(cm.namespace() + "/" + cm.name(), 1, Integer::sum));
        Set<String> wanted = Set.copyOf(named);
        for (ConfigMap cm : cms) {
            String ref = cm.namespace() + "/" + cm.name();
            boolean isNamed = wanted.contains(ref);
            named.remove(ref);
            String prefix =
                    definitions.get(ref) > 1 && cm.meta().file() != null
                            ? "[" + cm.meta().file() + "] "
                            : "";
            int found = 0;
            for (Map.Entry<String, String> e : new TreeMap<>(cm.data()).entrySet()) {
                String key = e.getKey();
                String display = prefix + "ConfigMap " + ref + "#" + key;
                boolean cfg = key.endsWith(".cfg");
                boolean haproxy =
                        (cfg || isNamed)
                                && FileKind.recognize(key, e.getValue()) == FileKind.HAPROXY;
                if (haproxy) {
                    files.add(new SourceFile(display, e.getValue()));
                    found++;
                } else if (cfg) { // a .cfg key whose lines open no HAProxy section: another
                    // program's config
                    out.notRead(
                            "haproxy",
                            display,
                            Coverage.Status.SKIPPED,
                            "not a HAProxy configuration (no section keyword before its first line)");
                }
            }
            if (isNamed && found == 0) {
                out.notRead(
                        "haproxy",
                        "ConfigMap " + ref,
                        Coverage.Status.FAILED,
                        "named in haproxy.configMaps but holds no HAProxy configuration");
            }
        }
        for (String missing : named) {
            out.notRead(
                    "haproxy",
                    "ConfigMap " + missing,
                    Coverage.Status.FAILED,
                    "named in haproxy.configMaps but not found in the cluster");
        }
        return files;
    }
}
