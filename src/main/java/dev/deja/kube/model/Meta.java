package dev.deja.kube.model;

import dev.deja.engine.Location;
import java.util.Map;
import java.util.Objects;

/**
 * What every object view keeps: kind, namespace, name, labels, annotations, and where it was read
 * (file and line of a manifest; both null for a live object).
 */
public record Meta(
        String apiVersion,
        String kind,
        String namespace,
        String name,
        Map<String, String> labels,
        Map<String, String> annotations,
        String file,
        Integer line) {

    public Meta {
        labels = labels == null ? Map.of() : Sorted.copyOf(labels);
        annotations = annotations == null ? Map.of() : Sorted.copyOf(annotations);
    }

    /** The object's location (file:line when read from a manifest). */
    public Location location() {
        return at(line);
    }

    /** The object's location, pointing at another line of its manifest when known. */
    public Location at(Integer otherLine) {
        Location l = Location.kube(kind, namespace, name);
        return file == null ? l : l.withFile(file, otherLine != null ? otherLine : line);
    }

    /** "Deployment ingress-nginx/ingress-nginx-controller". */
    public String display() {
        return kind + " " + (namespace == null ? "" : namespace + "/") + name;
    }

    public String label(String key) {
        return labels.get(key);
    }

    public String annotation(String key) {
        return annotations.get(key);
    }

    /**
     * Same namespace, where an unset namespace (a manifest without one) matches only another unset
     * one.
     */
    public boolean sameNamespace(Meta other) {
        return Objects.equals(namespace, other.namespace);
    }
}
