package dev.deja.rules.kube;

import dev.deja.model.kube.Container;
import dev.deja.model.kube.IngressNginx;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.LoadBalancers;
import dev.deja.model.kube.TraefikStatic;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the IL-0106 rules read of a Traefik workload: its Traefik containers, the version in their
 * image tag, and the Kubernetes CRD provider's settings from the one source of static configuration
 * Traefik uses (a file mounted from a ConfigMap, else the command line, else the environment:
 * {@link TraefikStatic}, in the model). When that source is not in the scan the rules say so as a
 * not-checked note, and never guess.
 */
final class Traefik {
    private Traefik() {}

    /** The API groups of Traefik's CRDs: {@code traefik.io} since v2.10, the former one before. */
    static final List<String> GROUPS = List.of("traefik.io", "traefik.containo.us");

    /** The containers of a load balancer that run Traefik's own image. */
    static List<Container> containers(LoadBalancers.Lb lb) {
        List<Container> out = new ArrayList<>();
        if (!"Traefik".equals(lb.product())) {
            return out;
        }
        for (Container c : lb.proxies()) {
            String repo = LoadBalancers.repo(c.image());
            if (repo.equals("traefik") || repo.endsWith("/traefik")) {
                out.add(c);
            }
        }
        return out;
    }

    /**
     * The static configuration of a Traefik container: from its file, flags or environment, as
     * Traefik picks one ({@link TraefikStatic}).
     */
    static TraefikStatic config(Workload w, Container c, KubeInventory inv) {
        return TraefikStatic.of(w, c, inv);
    }

    /** A version read from an image tag: "v2.4.8", "2.4", "v2.3.7-alpine"; never guessed. */
    record Version(int major, int minor, Integer patch, String tag) {
        String text() {
            return "v" + major + "." + minor + (patch == null ? "" : "." + patch);
        }
    }

    private static final Pattern TAG =
            Pattern.compile("v?(\\d{1,4})\\.(\\d{1,4})(?:\\.(\\d{1,4}))?(?:-[0-9a-z.-]+)?");

    /** The version in the image's tag, or null (no tag, a digest only, {@code latest}, ...). */
    static Version version(String image) {
        String tag = IngressNginx.tag(image);
        if (tag == null) {
            return null;
        }
        Matcher m = TAG.matcher(tag.toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            return null;
        }
        return new Version(
                Integer.parseInt(m.group(1)),
                Integer.parseInt(m.group(2)),
                m.group(3) == null ? null : Integer.valueOf(m.group(3)),
                tag);
    }
}
