package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.kube.model.Container;
import dev.deja.kube.model.KubeInventory;
import dev.deja.kube.model.Probe;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * IL-0495: an Envoy-based load balancer whose probes hit Envoy's admin listener, which can block while configuration
 * is applied (the "problem documented externally" behind HubSpot's outage). The admin port comes from an inline
 * bootstrap ({@code --config-yaml}) or an {@code --admin-port}-style argument when visible; otherwise the well-known
 * admin ports 9901 (Envoy), 19000 (Envoy Gateway, Consul) and 19003. The fix is a dedicated health listener.
 */
public final class LbProbeOnAdminEndpoint extends KubeRule {
    static final Set<Integer> WELL_KNOWN = Set.of(9901, 19000, 19003);
    static final Set<String> ADMIN_PATHS = Set.of("/ready", "/server_info", "/stats", "/healthcheck/ok", "/clusters",
            "/listeners", "/config_dump");
    private static final Pattern INLINE_ADMIN = Pattern.compile("admin[\"']?\\s*:[\\s\\S]*?port_value[\"']?\\s*:\\s*(\\d+)");

    @Override
    public String id() {
        return "k8s-lb-probe-on-admin-endpoint";
    }

    @Override
    List<Finding> check(KubeInventory inv, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (LoadBalancers.Lb lb : LoadBalancers.of(inv)) {
            if (!lb.envoy()) {
                continue;
            }
            for (Container c : lb.workload().containers()) {
                Integer declared = adminPort(c);
                Set<Integer> admin = declared != null ? Set.of(declared) : WELL_KNOWN;
                for (Probe p : new Probe[] {c.readiness(), c.liveness()}) {
                    if (p == null || !"httpGet".equals(p.handler())) {
                        continue;
                    }
                    Integer port = c.resolvePort(p.port());
                    if (port == null || !admin.contains(port)) {
                        continue;
                    }
                    String key = p == c.readiness() ? "readinessProbe" : "livenessProbe";
                    String src = declared != null ? "the admin port set in its arguments"
                            : "a well-known Envoy admin port (" + new TreeSet<>(WELL_KNOWN) + ")";
                    String path = p.path() == null ? "/" : p.path();
                    String msg = lb.workload().meta().display() + " container " + c.name() + ": " + key + " calls "
                            + path + " on port " + port + ", " + src
                            + (ADMIN_PATHS.contains(path) ? ", and " + path + " is an admin endpoint" : "")
                            + ". The admin listener can stop answering while Envoy applies a configuration update, so"
                            + " the probe fails on " + replicasText(lb.workload().effectiveReplicas())
                            + " at once " + lb.because();
                    out.add(ctx.finding(lb.workload().meta().at(p.line()), msg).build());
                }
            }
        }
        return out;
    }

    /** The admin port when the container's arguments show it, else null. */
    static Integer adminPort(Container c) {
        for (String flag : List.of("--admin-port", "--admin-address-port", "--envoy-admin-port")) {
            String v = c.flag(flag);
            if (v != null) {
                try {
                    return Integer.parseInt(v.trim());
                } catch (NumberFormatException ignored) {
                    // not a number: fall through
                }
            }
        }
        String inline = c.flag("--config-yaml");
        if (inline != null) {
            Matcher m = INLINE_ADMIN.matcher(inline);
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
        }
        return null;
    }
}
