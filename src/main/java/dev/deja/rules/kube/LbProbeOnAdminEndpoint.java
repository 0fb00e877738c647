package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.Container;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.LoadBalancers;
import dev.deja.model.kube.Probe;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * IL-0495: an Envoy-based load balancer whose probes are answered by Envoy's admin interface, which
 * can block while configuration is applied (the "problem documented externally" behind HubSpot's
 * outage), whether the probe calls the admin port itself or another port that routes to it. What
 * each product serves (sources in the rule's YAML):
 *
 * <ul>
 *   <li>plain Envoy: the admin port from an inline bootstrap ({@code --config-yaml}) when visible,
 *       else the conventional 9901 (Envoy's examples) and 19000 (Consul's Envoy);
 *   <li>Contour's Envoy: {@code /ready} on any port: Contour's bootstrap serves it on the health
 *       listener (8002 by default) by routing it to the admin interface; 9001 is Contour's own
 *       admin listener;
 *   <li>Envoy Gateway's Envoy: 19000 is the admin port; 19003 {@code /ready} is a listener of its
 *       own with Envoy's health_check filter (silence);
 *   <li>Istio gateways: 15000 is the admin port; 15021 {@code /healthz/ready} is served by the
 *       Istio agent (silence);
 *   <li>Emissary/Ambassador: its probes ({@code :8877/ambassador/v0/check_ready}) are answered by
 *       Emissary's own process, not Envoy's admin (silence unless an inline bootstrap shows the
 *       admin port).
 * </ul>
 *
 * The fix is a dedicated health listener.
 */
public final class LbProbeOnAdminEndpoint extends KubeRule {
    /** Conventional admin ports of a plain Envoy when its bootstrap is not visible. */
    static final Set<Integer> PLAIN_ENVOY_ADMIN = Set.of(9901, 19000);

    static final int CONTOUR_ADMIN = 9001;
    static final int CONTOUR_HEALTH = 8002;
    static final int ENVOY_GATEWAY_ADMIN = 19000;
    static final int ISTIO_ADMIN = 15000;
    static final Set<String> ADMIN_PATHS =
            Set.of(
                    "/ready",
                    "/server_info",
                    "/stats",
                    "/healthcheck/ok",
                    "/clusters",
                    "/listeners",
                    "/config_dump");
    private static final Pattern INLINE_ADMIN =
            Pattern.compile("admin[\"']?\\s*:[\\s\\S]*?port_value[\"']?\\s*:\\s*(\\d+)");

    @Override
    public String id() {
        return "k8s-lb-probe-on-admin-endpoint";
    }

    @Override
    public Set<String> kubeKinds() {
        return DETECTOR_AND_HPA_KINDS;
    }

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (LoadBalancers.Lb lb : loadBalancers(snapshot)) {
            if (!lb.envoy()) {
                continue;
            }
            for (Container c : lb.proxies()) {
                for (Probe p : new Probe[] {c.readiness(), c.liveness()}) {
                    if (p == null || !"httpGet".equals(p.handler())) {
                        continue;
                    }
                    Integer port = c.resolvePort(p.port());
                    String path = p.path() == null || p.path().isEmpty() ? "/" : p.path();
                    String why = why(lb.flavor(), c, port, path);
                    if (why == null) {
                        continue;
                    }
                    @SuppressWarnings(
                            "ReferenceEquality") // which of the container's two probes p is
                    String key = p == c.readiness() ? "readinessProbe" : "livenessProbe";
                    String msg =
                            lb.workload().meta().display()
                                    + " container "
                                    + c.name()
                                    + ": "
                                    + key
                                    + " calls "
                                    + path
                                    + " on port "
                                    + (port == null ? p.port() : port)
                                    + ", "
                                    + why
                                    + ". The admin interface can stop answering while Envoy applies a configuration update, so"
                                    + " the probe fails on "
                                    + replicasText(pods(inv, lb.workload()))
                                    + " at once "
                                    + lb.because();
                    out.add(
                            ctx.finding(lb.workload().meta().at(p.line()), msg)
                                    .key("container " + c.name() + " " + key)
                                    .fix("container", c.name())
                                    .fix("probe", key)
                                    .build());
                }
            }
        }
        return out;
    }

    /**
     * Why this probe reaches Envoy's admin interface for this product, or null when it does not.
     */
    static String why(LoadBalancers.Flavor flavor, Container c, Integer port, String path) {
        Integer declared = adminPort(c);
        if (declared != null) {
            return port != null && port.equals(declared)
                    ? "the admin port set in its arguments"
                            + (ADMIN_PATHS.contains(path)
                                    ? ", and " + path + " is an admin endpoint"
                                    : "")
                    : null;
        }
        return switch (flavor) {
            case CONTOUR ->
                    path.equals("/ready") && (port == null || port != CONTOUR_ADMIN)
                            ? "which Contour's bootstrap serves on its health listener ("
                                    + CONTOUR_HEALTH
                                    + " by default) by"
                                    + " routing /ready to Envoy's admin interface"
                            : port != null && port == CONTOUR_ADMIN
                                    ? "Contour's Envoy admin listener (" + CONTOUR_ADMIN + ")"
                                    : null;
            case ENVOY_GATEWAY ->
                    port != null && port == ENVOY_GATEWAY_ADMIN
                            ? "Envoy Gateway's Envoy admin port ("
                                    + ENVOY_GATEWAY_ADMIN
                                    + "; its own health listener is 19003)"
                            : null;
            case ISTIO ->
                    port != null && port == ISTIO_ADMIN
                            ? "the Envoy admin port of an Istio proxy ("
                                    + ISTIO_ADMIN
                                    + "; the agent's health port is 15021)"
                            : null;
            case ENVOY ->
                    port != null && PLAIN_ENVOY_ADMIN.contains(port)
                            ? "a conventional Envoy admin port ("
                                    + new TreeSet<>(PLAIN_ENVOY_ADMIN)
                                    + ")"
                                    + (ADMIN_PATHS.contains(path)
                                            ? ", and " + path + " is an admin endpoint"
                                            : "")
                            : null;
            default -> null;
        };
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
