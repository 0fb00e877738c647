package dev.deja.model.kube;

import dev.deja.engine.Location;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The ingress-nginx controller as the model sees it, for every rule and source that reads it: the
 * controller version from its image tag (never guessed), and its connection capacity,
 * max-worker-connections x worker-processes of the ConfigMap its {@code --configmap} names. The
 * IL-0053 rules read the version; the IL-0495 capacity rule and the {@code --live-metrics} source
 * read the capacity (which pods can be judged, and against what).
 */
public final class IngressNginx {
    private IngressNginx() {}

    /**
     * The version read from the image tag: numbers when the tag is a release version, else why it
     * is unknown.
     */
    public record Version(String tag, int major, int minor, int patch, String unknownWhy) {
        public boolean known() {
            return unknownWhy == null;
        }

        /**
         * Affected by CVE-2025-1974: below v1.11.5, or v1.12.0 (the CVE record: {@code <= 1.11.4},
         * {@code 1.12.0}).
         */
        public boolean vulnerable() {
            if (!known()) {
                return false;
            }
            if (major != 1) {
                return major < 1;
            }
            return minor < 11 || minor == 11 && patch <= 4 || minor == 12 && patch == 0;
        }

        public String text() {
            return known() ? "v" + major + "." + minor + "." + patch : "(version unknown)";
        }
    }

    private static final Pattern RELEASE =
            Pattern.compile("v?(\\d+)\\.(\\d+)\\.(\\d+)(-[0-9A-Za-z.-]+)?");

    /**
     * The tag of an image reference ("v1.11.3" of
     * "registry.k8s.io/ingress-nginx/controller:v1.11.3@sha256:...").
     */
    public static String tag(String image) {
        if (image == null) {
            return null;
        }
        String s = image;
        int at = s.indexOf('@');
        if (at >= 0) {
            s = s.substring(0, at);
        }
        int slash = s.lastIndexOf('/');
        int colon = s.lastIndexOf(':');
        return colon > slash ? s.substring(colon + 1) : null;
    }

    /**
     * The controller version of an image, never guessed: a tag that is not a release version is
     * unknown.
     */
    public static Version version(String image) {
        String tag = tag(image);
        if (tag == null) {
            return new Version(
                    null,
                    0,
                    0,
                    0,
                    image != null && image.contains("@")
                            ? "the image is pinned by digest without a tag"
                            : "the image has no tag (it runs whatever 'latest' was pulled)");
        }
        Matcher m = RELEASE.matcher(tag);
        if (!m.matches()) {
            return new Version(tag, 0, 0, 0, "tag '" + tag + "' is not a release version");
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        int patch = Integer.parseInt(m.group(3));
        Version v = new Version(tag, major, minor, patch, null);
        if (m.group(4) != null && m.group(4).toLowerCase(Locale.ROOT).contains("dev")) {
            // a development build: made from any commit, before or after a fix
            return new Version(
                    tag, major, minor, patch, "tag '" + tag + "' is a development build");
        }
        if (m.group(4) != null
                && !v.vulnerable()) { // a pre-release of a fixed version may predate the fix
            return new Version(tag, major, minor, patch, "tag '" + tag + "' is a pre-release");
        }
        return v;
    }

    /**
     * Whether the image is the ingress-nginx controller (registry.k8s.io/ingress-nginx/controller
     * and older names).
     */
    public static boolean isIngressNginx(String image) {
        String r = LoadBalancers.repo(image);
        return r.endsWith("ingress-nginx/controller")
                || r.endsWith("ingress-nginx/controller-chroot")
                || r.substring(r.lastIndexOf('/') + 1).equals("nginx-ingress-controller");
    }

    /**
     * The controller version of a container: the image tag's when the image is a release image of
     * ingress-nginx; unknown when the controller is recognised only by its program (the tag of
     * another image does not name an ingress-nginx release).
     */
    public static Version version(Container c) {
        if (!isIngressNginx(c.image())) {
            String tag = tag(c.image());
            return new Version(
                    tag,
                    0,
                    0,
                    0,
                    "image "
                            + c.image()
                            + " is not an ingress-nginx release image (the controller is recognised"
                            + " by its program "
                            + (c.argv().isEmpty() ? "/nginx-ingress-controller" : c.argv().get(0))
                            + "), so its tag does not give the controller version");
        }
        return version(c.image());
    }

    /**
     * ingress-nginx's default max-worker-connections
     * (docs/user-guide/nginx-configuration/configmap.md).
     */
    public static final int DEFAULT_WORKER_CONNECTIONS = 16384;

    /**
     * An ingress-nginx controller's capacity in connections, how it was found (for the message) and
     * where the controller is declared.
     */
    public record Capacity(double connections, String text, Location location) {}

    /**
     * The node an ingress-nginx pod runs on and its CPU count ({@code status.capacity.cpu}), read
     * by --live-metrics when the controller's worker count is the node's CPU count ({@link
     * #workersFromNode}).
     */
    public record Node(String name, int cpus) {}

    /**
     * An ingress-nginx controller's capacity: max-worker-connections (default 16384) x
     * worker-processes of the ConfigMap its --configmap names, when the scan holds that ConfigMap
     * and worker-processes is a number, or unset with a CPU limit on a controller that counts it
     * ({@link #cpuLimitWorkers}); null otherwise. Also used by --live-metrics to skip, with a note,
     * pods whose figures could not be judged.
     */
    public static Capacity capacity(Workload w, KubeInventory inv) {
        return capacity(w, inv, null);
    }

    /**
     * The same, and when the worker count is the CPU count of the node the pod runs on ({@link
     * #workersFromNode}: "auto", or unset without a CPU limit) and {@code node} is known, that
     * node's CPUs.
     */
    public static Capacity capacity(Workload w, KubeInventory inv, Node node) {
        for (Container c : w.containers()) {
            for (ConfigMap cm : configMaps(w, inv, c)) {
                String wp = cm.data().get(ConfigMap.INGRESS_NGINX_WORKER_PROCESSES);
                String mwc = cm.data().get(ConfigMap.INGRESS_NGINX_MAX_WORKER_CONNECTIONS);
                Integer workers = wp == null ? cpuLimitWorkers(c) : positive(wp);
                Integer perWorker =
                        mwc == null ? Integer.valueOf(DEFAULT_WORKER_CONNECTIONS) : positive(mwc);
                String workersText;
                if (workers != null) {
                    workersText =
                            wp != null
                                    ? " worker processes"
                                    : " worker processes (worker-processes unset: the controller counts the CPUs of its cgroup,"
                                            + " here the CPU limit "
                                            + c.cpuLimit()
                                            + " rounded up, as "
                                            + version(c).text()
                                            + " does on cgroup v1 and v2)";
                } else if (node != null && nodeCounts(wp, c)) {
                    workers = node.cpus();
                    workersText =
                            " worker processes ("
                                    + (wp == null
                                            ? "worker-processes unset and no CPU limit: the controller starts one"
                                            : "worker-processes auto: nginx starts one")
                                    + " per CPU the pod may run on, here the "
                                    + node.cpus()
                                    + " CPUs of node "
                                    + node.name()
                                    + ", status.capacity.cpu)";
                } else {
                    workersText = "";
                }
                if (workers == null || perWorker == null) {
                    continue; // "auto" or unset workers we cannot count, or 0 connections
                    // (max-worker-open-files)
                }
                String text =
                        perWorker
                                + " (max-worker-connections"
                                + (mwc == null ? ", the default" : "")
                                + ") x "
                                + workers
                                + workersText
                                + " = "
                                + (long) perWorker * workers
                                + " connections ("
                                + cm.meta().display()
                                + " named by --configmap of "
                                + w.meta().display()
                                + "; worker_connections counts upstream connections too)";
                return new Capacity((double) perWorker * workers, text, w.meta().location());
            }
        }
        return null;
    }

    /**
     * Whether the controller's capacity is unknown only because its worker count is the CPU count
     * of the node each pod runs on: its ConfigMap is in the scan with a positive
     * max-worker-connections, and worker-processes is "auto" (nginx's ngx_ncpu, sysconf
     * _SC_NPROCESSORS_ONLN, which musl, the controller image's Alpine libc, answers with the CPUs
     * of the process's affinity mask) or unset without a CPU limit (config.go NewDefault: the
     * controller's NumCPU, internal/runtime/cpu_linux.go: Go's runtime.NumCPU() when no CFS quota
     * is set, again the affinity mask). Under the kubelet's default CPU manager policy (none) that
     * mask is every CPU of the node. --live-metrics then reads the pods' nodes.
     */
    public static boolean workersFromNode(Workload w, KubeInventory inv) {
        if (capacity(w, inv) != null) {
            return false;
        }
        for (Container c : w.containers()) {
            for (ConfigMap cm : configMaps(w, inv, c)) {
                String wp = cm.data().get(ConfigMap.INGRESS_NGINX_WORKER_PROCESSES);
                String mwc = cm.data().get(ConfigMap.INGRESS_NGINX_MAX_WORKER_CONNECTIONS);
                if (nodeCounts(wp, c) && (mwc == null || positive(mwc) != null)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** "auto", or unset with no CPU limit: workers = the CPUs the pod may run on. */
    private static boolean nodeCounts(String wp, Container c) {
        return wp == null ? c.cpuLimit() == null : "auto".equals(wp.strip());
    }

    /** The ConfigMaps the container's --configmap names that the scan holds. */
    private static List<ConfigMap> configMaps(Workload w, KubeInventory inv, Container c) {
        String ref = c.flag("--configmap");
        if (ref == null) {
            return List.of();
        }
        String cmNs = w.namespace();
        String cmName = ref;
        int slash = ref.indexOf('/');
        if (slash >= 0) {
            cmNs =
                    ref.substring(0, slash).startsWith("$(")
                            ? w.namespace()
                            : ref.substring(0, slash);
            cmName = ref.substring(slash + 1);
        }
        return inv.configMapsFor(w.meta(), cmNs, cmName);
    }

    /**
     * The worker processes of a controller whose ConfigMap leaves worker-processes unset: its
     * default is the controller's NumCPU (config.go NewDefault), the container's CPU quota over its
     * period rounded up when a limit is set (internal/runtime/cpu_linux.go), else the node's CPUs,
     * which deja does not know. Before v1.10.4 and v1.11.2 NumCPU read cgroup v1 only and counted
     * the node's CPUs on cgroup v2 (kubernetes/ingress-nginx#9665, fixed by #11775 and #11778), and
     * deja cannot tell a node's cgroup version: such versions, and an unknown version, are not
     * counted. Null when not known.
     */
    public static Integer cpuLimitWorkers(Container c) {
        Integer cpus = c.cpuLimitRoundedUp();
        if (cpus == null) {
            return null;
        }
        Version v = version(c);
        if (!v.known()) {
            return null;
        }
        boolean cgroupV2Aware =
                v.major() > 1
                        || v.major() == 1
                                && (v.minor() > 11
                                        || v.minor() == 11 && v.patch() >= 2
                                        || v.minor() == 10 && v.patch() >= 4);
        return cgroupV2Aware ? cpus : null;
    }

    private static Integer positive(String v) {
        if (v == null || !v.strip().matches("\\d{1,9}")) {
            return null;
        }
        int n = Integer.parseInt(v.strip());
        return n > 0 ? n : null;
    }
}
