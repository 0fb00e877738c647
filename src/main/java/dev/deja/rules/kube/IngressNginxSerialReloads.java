package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.ConfigMap;
import dev.deja.model.kube.Container;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * IL-0081 (Cresta): the ingress-nginx controller's ConfigMap sets {@code enable-serial-reloads:
 * "true"}. NGINX reloads then run one after another and dynamic endpoint updates wait behind them,
 * so traffic keeps going to pods that no longer exist. Worse with a long {@code
 * worker-shutdown-timeout} (default 240s): high severity from parameter {@code longShutdownSeconds}
 * (default 60s).
 *
 * <p>The controller's ConfigMap is the one its {@code --configmap} argument names; ConfigMaps named
 * {@code ingress-nginx-controller} (or {@code <release>-ingress-nginx-controller}) count by
 * convention, so a manifest that holds only the ConfigMap is still checked.
 */
public final class IngressNginxSerialReloads extends KubeRule {
    static final String KEY = ConfigMap.INGRESS_NGINX_SERIAL_RELOADS;
    static final String SHUTDOWN = ConfigMap.INGRESS_NGINX_WORKER_SHUTDOWN_TIMEOUT;
    static final int DEFAULT_SHUTDOWN_SECONDS = 240;
    static final String LONG_SHUTDOWN = "longShutdownSeconds";

    @Override
    public String id() {
        return "k8s-ingress-nginx-serial-reloads";
    }

    @Override
    public Set<String> kubeKinds() {
        return Set.of("Deployment", "StatefulSet", "DaemonSet", "ConfigMap");
    }

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        // ConfigMap -> the controllers that name it
        Map<ConfigMap, List<Workload>> users = new LinkedHashMap<>();
        for (Workload w : inv.workloads()) {
            for (Container c : w.containers()) {
                String ref = c.flag("--configmap");
                if (ref == null) {
                    continue;
                }
                String ns = w.namespace();
                String name = ref;
                int slash = ref.indexOf('/');
                if (slash >= 0) {
                    String n = ref.substring(0, slash);
                    ns = n.startsWith("$(") ? w.namespace() : n;
                    name = ref.substring(slash + 1);
                }
                String fns = ns;
                String fname = name;
                inv.configMapsFor(w.meta(), fns, fname)
                        .forEach(cm -> users.computeIfAbsent(cm, k -> new ArrayList<>()).add(w));
            }
        }
        for (ConfigMap cm : inv.configMaps()) {
            if (cm.name() != null && cm.name().endsWith("ingress-nginx-controller")) {
                users.computeIfAbsent(cm, k -> new ArrayList<>());
            }
        }
        List<Finding> out = new ArrayList<>();
        for (Map.Entry<ConfigMap, List<Workload>> e : users.entrySet()) {
            ConfigMap cm = e.getKey();
            String v = cm.data().get(KEY);
            if (v == null || !v.strip().toLowerCase(Locale.ROOT).equals("true")) {
                continue;
            }
            String wst = cm.data().get(SHUTDOWN);
            Integer seconds =
                    wst == null ? Integer.valueOf(DEFAULT_SHUTDOWN_SECONDS) : seconds(wst);
            String shutdown =
                    wst == null
                            ? SHUTDOWN + " is unset (default " + DEFAULT_SHUTDOWN_SECONDS + "s)"
                            : SHUTDOWN + " is " + wst.strip();
            boolean longWait = seconds == null || seconds >= ctx.intParameter(LONG_SHUTDOWN);
            String used =
                    e.getValue().isEmpty()
                            ? "(the ingress-nginx controller's ConfigMap by its conventional name)"
                            : "(named by --configmap of "
                                    + String.join(
                                            ", ",
                                            e.getValue().stream()
                                                    .map(w -> w.meta().display())
                                                    .toList())
                                    + ")";
            String msg =
                    cm.meta().display()
                            + " "
                            + used
                            + " sets "
                            + KEY
                            + ": \""
                            + v.strip()
                            + "\": NGINX reloads run"
                            + " one after another and dynamic endpoint updates wait behind them, so requests keep going to pods"
                            + " that no longer exist, as at Cresta; "
                            + shutdown
                            + (longWait
                                    ? ", so old workers can keep each reload busy for up to "
                                            + (seconds == null ? "an unknown time" : seconds + "s")
                                    : ", which keeps each reload short");
            var f =
                    ctx.finding(cm.meta().at(cm.lineOf(KEY)), msg)
                            .key(KEY)
                            .severity(longWait ? Severity.HIGH : Severity.MEDIUM);
            e.getValue().forEach(w -> f.related(w.meta().location().display()));
            out.add(f.build());
        }
        return out;
    }

    /** "240s", "10m", "1h30m", "90" (seconds) -> seconds; null when unreadable. */
    static Integer seconds(String s) {
        String t = s.strip().toLowerCase(Locale.ROOT);
        if (t.matches("\\d+")) {
            return Integer.parseInt(t);
        }
        Matcher m = Pattern.compile("(\\d+)(h|ms|m|s)").matcher(t);
        int total = 0;
        int end = 0;
        while (m.find()) {
            if (m.start() != end) {
                return null;
            }
            end = m.end();
            int n = Integer.parseInt(m.group(1));
            total +=
                    switch (m.group(2)) {
                        case "h" -> n * 3600;
                        case "m" -> n * 60;
                        case "ms" -> n / 1000;
                        default -> n;
                    };
        }
        return end == t.length() && end > 0 ? total : null;
    }
}
