package dev.deja.model.kube;

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

    /**
     * "Deployment ingress-nginx/ingress-nginx-controller"; "Deployment edge/(no name)" for a
     * manifest object without metadata.name (the API server would refuse it; its findings still
     * name it).
     */
    public String display() {
        return kind + " " + (namespace == null ? "" : namespace + "/") + shownName(name);
    }

    /**
     * The object as a fix step names it: "Kind namespace/name", or "Kind name" for a cluster
     * object.
     */
    public String ref() {
        return kind + " " + (namespace == null ? "" : namespace + "/") + name;
    }

    /** The name as shown to people: {@value #NO_NAME} when the object has none. */
    public static String shownName(String name) {
        return name == null ? NO_NAME : name;
    }

    public static final String NO_NAME = "(no name)";

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
