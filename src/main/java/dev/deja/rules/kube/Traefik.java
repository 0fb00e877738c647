package dev.deja.rules.kube;

import dev.deja.model.kube.Container;
import dev.deja.model.kube.IngressNginx;
import dev.deja.model.kube.LoadBalancers;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the IL-0106 rules read of a Traefik workload: its Traefik containers, the version in their
 * image tag, and the Kubernetes CRD provider's flags. Traefik reads static configuration from the
 * command line, a file or environment variables; only the command line is in the pod template, so a
 * provider configured in a file is not seen (the rules then stay silent, never guess).
 */
final class Traefik {
    private Traefik() {}

    /** The API groups of Traefik's CRDs: {@code traefik.io} since v2.10, the former one before. */
    static final List<String> GROUPS = List.of("traefik.io", "traefik.containo.us");

    /** The CRD provider's flag, and the flags that narrow what it reads. */
    static final String PROVIDER = "--providers.kubernetescrd";

    static final List<String> SCOPES =
            List.of(
                    PROVIDER + ".labelselector",
                    PROVIDER + ".namespaces",
                    PROVIDER + ".ingressclass");

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
     * The flag as written (lower case, without value) when the container's arguments enable the CRD
     * provider ({@code --providers.kubernetescrd}, {@code =true}, or any of its options); null when
     * they do not (not enabled, explicitly {@code =false}, or configured elsewhere). Traefik's
     * flags are case-insensitive ({@code --providers.kubernetesCRD} is the same).
     */
    static String crdProvider(Container c) {
        String found = null;
        for (String a : c.argv()) {
            String s = a.strip().toLowerCase(Locale.ROOT);
            if (s.equals(PROVIDER) || s.equals(PROVIDER + "=true")) {
                found = PROVIDER;
            } else if (s.equals(PROVIDER + "=false")) {
                return null;
            } else if (s.startsWith(PROVIDER + ".") && found == null) {
                int eq = s.indexOf('=');
                found = eq < 0 ? s : s.substring(0, eq);
            }
        }
        return found;
    }

    /** The scoping flags the container sets with a non-empty value ("--providers...namespaces"). */
    static List<String> scopes(Container c) {
        List<String> out = new ArrayList<>();
        List<String> argv = c.argv();
        for (int i = 0; i < argv.size(); i++) {
            String s = argv.get(i).strip();
            String lower = s.toLowerCase(Locale.ROOT);
            for (String scope : SCOPES) {
                String value = null;
                if (lower.startsWith(scope + "=")) {
                    value = s.substring(scope.length() + 1);
                } else if (lower.equals(scope) && i + 1 < argv.size()) {
                    value = argv.get(i + 1);
                }
                if (value != null && !value.strip().replace("\"", "").isEmpty()) {
                    out.add(scope + "=" + value.strip());
                }
            }
        }
        return out;
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
