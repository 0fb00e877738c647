package dev.deja.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Where a finding is. Files: {@code file} and {@code line} (and {@code key} for a file kept inside
 * a ConfigMap). Objects: {@code kind}, {@code namespace}, {@code name} (Kubernetes objects, HAProxy
 * sections such as {@code frontend fe_ping}); AWS resources: {@code arn}, {@code name}, {@code
 * region}. Unused fields are null.
 */
public record Location(
        String file,
        Integer line,
        String kind,
        String namespace,
        String name,
        String key,
        String arn,
        String region)
        implements Comparable<Location> {

    public static Location file(String file, int line) {
        return new Location(file, line, null, null, null, null, null, null);
    }

    /** A named part of a file, e.g. {@code frontend fe_ping} at haproxy.cfg:12. */
    public static Location section(String file, int line, String kind, String name) {
        return new Location(file, line, kind, null, name, null, null, null);
    }

    public static Location kube(String kind, String namespace, String name) {
        return new Location(null, null, kind, namespace, name, null, null, null);
    }

    public static Location aws(String arn, String name, String region) {
        return new Location(null, null, null, null, name, null, arn, region);
    }

    public Location withFile(String file, Integer line) {
        return new Location(file, line, kind, namespace, name, key, arn, region);
    }

    public Location withKey(String key) {
        return new Location(file, line, kind, namespace, name, key, arn, region);
    }

    /**
     * Human-readable: "Deployment ingress-nginx/controller (deploy.yaml:12)", "frontend fe
     * (haproxy.cfg:3)".
     */
    public String display() {
        StringBuilder sb = new StringBuilder();
        if (kind != null) {
            sb.append(kind).append(' ');
        }
        if (namespace != null) {
            sb.append(namespace).append('/');
        }
        if (name != null) {
            sb.append(name);
        } else if (arn != null) {
            sb.append(arn);
        } else if (namespace != null) {
            sb.append("(no name)"); // a manifest object without metadata.name
        }
        String where = fileRef();
        if (where != null) {
            if (sb.length() > 0) {
                sb.append(" (").append(where).append(')');
            } else {
                sb.append(where);
            }
        }
        if (region != null) {
            sb.append(" [").append(region).append(']');
        }
        return sb.toString().strip();
    }

    /** "file:line" or "file" or null; with a ConfigMap key: "file#key:line". */
    public String fileRef() {
        if (file == null) {
            return null;
        }
        String f = key == null ? file : file + "#" + key;
        return line == null ? f : f + ":" + line;
    }

    /** Every identifier a suppression pattern may match, most specific first. */
    public List<String> identifiers() {
        List<String> ids = new ArrayList<>();
        if (arn != null) {
            ids.add(arn);
        }
        if (kind != null && name != null) {
            ids.add(namespace == null ? kind + "/" + name : kind + "/" + namespace + "/" + name);
        }
        if (namespace != null && name != null) {
            ids.add(namespace + "/" + name);
        }
        if (name != null) {
            ids.add(name);
        }
        String ref = fileRef();
        if (ref != null) {
            ids.add(ref);
            ids.add(file);
        }
        return ids;
    }

    private static final Comparator<String> NULLS_LAST =
            Comparator.nullsLast(Comparator.naturalOrder());
    private static final Comparator<Integer> INT_NULLS_LAST =
            Comparator.nullsLast(Comparator.naturalOrder());
    private static final Comparator<Location> ORDER =
            Comparator.comparing((Location l) -> l.file(), NULLS_LAST)
                    .thenComparing(Location::key, NULLS_LAST)
                    .thenComparing(Location::line, INT_NULLS_LAST)
                    .thenComparing(Location::region, NULLS_LAST)
                    .thenComparing(Location::arn, NULLS_LAST)
                    .thenComparing(Location::kind, NULLS_LAST)
                    .thenComparing(Location::namespace, NULLS_LAST)
                    .thenComparing(Location::name, NULLS_LAST);

    @Override
    public int compareTo(Location o) {
        return ORDER.compare(this, Objects.requireNonNull(o));
    }
}
