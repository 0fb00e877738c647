package dev.deja.model.kube;

import java.util.Map;
import java.util.Set;

/**
 * A ConfigMap with its data (settings of ingress controllers, HAProxy configurations kept in
 * ConfigMaps).
 *
 * @param data key -> value
 * @param keyLines key -> line of the key in a manifest (empty when read live); for a block scalar
 *     the value starts on the next line
 */
public record ConfigMap(Meta meta, Map<String, String> data, Map<String, Integer> keyLines) {
    /** ingress-nginx settings the rules read. */
    public static final String INGRESS_NGINX_SERIAL_RELOADS = "enable-serial-reloads";

    public static final String INGRESS_NGINX_WORKER_SHUTDOWN_TIMEOUT = "worker-shutdown-timeout";
    public static final String INGRESS_NGINX_MAX_WORKER_CONNECTIONS = "max-worker-connections";
    public static final String INGRESS_NGINX_WORKER_PROCESSES = "worker-processes";

    /**
     * Whether a live scan keeps a data value: one a rule reads (the ingress-nginx settings above, a
     * HAProxy configuration under a key ending in {@code .cfg}, a Traefik configuration file or
     * variable: {@link TraefikStatic#keptLive}), or any value of a ConfigMap named in the
     * configuration file ({@code namedRefs}, "namespace/name"). A cluster's other ConfigMap data
     * (dashboards, scripts, certificates) can be large and no rule reads it.
     */
    public static boolean keptLive(
            String namespace, String name, String key, Set<String> namedRefs) {
        return key.endsWith(".cfg")
                || key.equals(INGRESS_NGINX_SERIAL_RELOADS)
                || key.equals(INGRESS_NGINX_WORKER_SHUTDOWN_TIMEOUT)
                || key.equals(INGRESS_NGINX_MAX_WORKER_CONNECTIONS)
                || key.equals(INGRESS_NGINX_WORKER_PROCESSES)
                || TraefikStatic.keptLive(key)
                || namedRefs.contains(namespace + "/" + name);
    }

    public ConfigMap {
        data = data == null ? Map.of() : Sorted.copyOf(data);
        keyLines = keyLines == null ? Map.of() : Sorted.copyOf(keyLines);
    }

    public String namespace() {
        return meta.namespace();
    }

    public String name() {
        return meta.name();
    }

    /** Line of a key in the manifest, or the object's line, or null for a live object. */
    public Integer lineOf(String key) {
        Integer l = keyLines.get(key);
        return l != null ? l : meta.line();
    }
}
