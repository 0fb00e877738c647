package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.ConfigMap;
import dev.deja.model.kube.Container;
import dev.deja.model.kube.IngressNginx;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.LoadBalancers;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * IL-0011 (Skyscanner): HAProxy Ingress (jcmoraisjr/haproxy-ingress) run as a DaemonSet or several
 * replicas, told to keep its endpoints in a fixed order ({@code --sort-backends}, or {@code
 * --sort-endpoints-by=ip|name}; by default it shuffles them on each reload), with round-robin
 * balancing ({@code balance-algorithm} roundrobin or static-rr in its ConfigMap, or unset on a
 * version before v0.16, whose default was roundrobin; v0.16 made random(2) the default). Every
 * instance then lists the same pods first, and each reload starts round robin there again.
 *
 * <p>The HAProxy Kubernetes Ingress Controller (haproxytech/kubernetes-ingress) is not judged: its
 * documentation names no endpoint-ordering option, so the order its servers take cannot be read
 * from a manifest.
 */
public final class HaproxyIngressHotPods extends KubeRule {
    static final int FIRST_RANDOM_DEFAULT_MINOR = 16;

    @Override
    public String id() {
        return "k8s-haproxy-ingress-hot-pods";
    }

    @Override
    public Set<String> kubeKinds() {
        return Set.of(
                "Deployment", "StatefulSet", "DaemonSet", "ConfigMap", "HorizontalPodAutoscaler");
    }

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (Workload w : inv.workloads()) {
            Integer replicas = pods(inv, w);
            if (replicas != null && replicas < 2) {
                continue;
            }
            for (Container c : w.containers()) {
                String repo = LoadBalancers.repo(c.image());
                if (!repo.substring(repo.lastIndexOf('/') + 1).equals("haproxy-ingress")) {
                    continue;
                }
                String order = fixedOrder(c);
                if (order == null) {
                    continue;
                }
                String balance = balance(inv, w, c);
                if (balance == null) {
                    continue;
                }
                String reload = c.flag("--reload-strategy");
                String instances =
                        replicas == null
                                ? "a DaemonSet (one HAProxy per node)"
                                : replicas + " replicas";
                out.add(
                        ctx.finding(
                                        w.meta().at(c.line()),
                                        w.meta().display()
                                                + " runs HAProxy Ingress as "
                                                + instances
                                                + " with "
                                                + order
                                                + " and "
                                                + balance
                                                + ": every instance lists the same pods first, and each reload"
                                                + " ("
                                                + (reload == null
                                                        ? "reload strategy reusesocket, the default"
                                                        : "--reload-strategy=" + reload)
                                                + ": a new HAProxy process) starts round robin at the first pod again, so the first pods take a burst"
                                                + " from every instance at once, as Skyscanner's hot pods did")
                                .key("container " + c.name() + " round robin from the same pods")
                                .fix("container", c.name())
                                .build());
            }
        }
        return out;
    }

    /**
     * The argument that fixes the endpoint order, or null when the controller shuffles them (its
     * default).
     */
    static String fixedOrder(Container c) {
        for (String a : c.argv()) {
            String s = a.strip();
            if (s.equals("--sort-backends") || s.equalsIgnoreCase("--sort-backends=true")) {
                return "--sort-backends (endpoints always in the same order instead of shuffled on each reload)";
            }
        }
        String by = c.flag("--sort-endpoints-by");
        if (by != null && (by.equals("ip") || by.equals("name"))) {
            return "--sort-endpoints-by="
                    + by
                    + " (endpoints sorted by pod "
                    + (by.equals("ip") ? "IP" : "name")
                    + ")";
        }
        return null;
    }

    private static final Pattern VERSION = Pattern.compile("v?0\\.(\\d+)(?:\\.\\d+)?(?:-.*)?");

    /**
     * "balance-algorithm roundrobin (ConfigMap ...)" when round robin, null when not or when
     * unknown.
     */
    static String balance(KubeInventory inv, Workload w, Container c) {
        String ref = c.flag("--configmap");
        ConfigMap cm = null;
        if (ref != null) {
            int slash = ref.indexOf('/');
            String ns = slash < 0 || ref.startsWith("$(") ? w.namespace() : ref.substring(0, slash);
            String name = slash < 0 ? ref : ref.substring(slash + 1);
            cm = inv.configMapsFor(w.meta(), ns, name).stream().findFirst().orElse(null);
        }
        String algo = cm == null ? null : cm.data().get("balance-algorithm");
        if (algo != null) {
            String a = algo.strip().toLowerCase(Locale.ROOT);
            return a.equals("roundrobin") || a.equals("static-rr")
                    ? "balance-algorithm " + a + " (" + cm.meta().display() + ")"
                    : null;
        }
        String tag = IngressNginx.tag(c.image());
        Matcher m = tag == null ? null : VERSION.matcher(tag);
        if (m == null || !m.matches()) {
            return null; // the default depends on the version, which the image does not say
        }
        int minor = Integer.parseInt(m.group(1));
        return minor < FIRST_RANDOM_DEFAULT_MINOR
                ? "no balance-algorithm (v0."
                        + minor
                        + "'s default is roundrobin; random(2) became the default in v0.16)"
                : null;
    }
}
