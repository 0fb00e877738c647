package dev.deja.rules;

import dev.deja.engine.Catalog;
import dev.deja.engine.Rule;
import dev.deja.engine.RuleMetadata;
import dev.deja.engine.SourceKind;
import dev.deja.rules.aws.NlbCrossZoneOffUneven;
import dev.deja.rules.aws.NlbZonalShiftDisabled;
import dev.deja.rules.aws.NlbZoneHealthUnreported;
import dev.deja.rules.aws.NlbZoneWithoutHealthyTarget;
import dev.deja.rules.aws.TgHealthCheckSlowDetection;
import dev.deja.rules.haproxy.MaxconnHeadroom;
import dev.deja.rules.haproxy.MissingHttpRequestTimeout;
import dev.deja.rules.haproxy.NoSaturationVisibility;
import dev.deja.rules.haproxy.RateLimitNotEverywhere;
import dev.deja.rules.haproxy.RoundRobinSameStart;
import dev.deja.rules.haproxy.SessionsNearLimit;
import dev.deja.rules.haproxy.TarpitHoldsSlots;
import dev.deja.rules.kube.CriticalInOneCluster;
import dev.deja.rules.kube.EtcdDiskLatency;
import dev.deja.rules.kube.EtcdEvenOrSingleMember;
import dev.deja.rules.kube.HaproxyIngressHotPods;
import dev.deja.rules.kube.IngressNginxAdmissionExposed;
import dev.deja.rules.kube.IngressNginxAdmissionRce;
import dev.deja.rules.kube.IngressNginxSerialReloads;
import dev.deja.rules.kube.InternalLbLocalTrafficPolicy;
import dev.deja.rules.kube.InternalLbNoDrainHeadroom;
import dev.deja.rules.kube.LbConnectionsNearCapacity;
import dev.deja.rules.kube.LbLivenessSameAsReadiness;
import dev.deja.rules.kube.LbNoDisruptionHeadroom;
import dev.deja.rules.kube.LbNotSpread;
import dev.deja.rules.kube.LbProbeFailsFast;
import dev.deja.rules.kube.LbProbeOnAdminEndpoint;
import dev.deja.rules.kube.NlbServiceSingleZoneRisk;
import dev.deja.rules.kube.TraefikBeforeCrdSchemas;
import dev.deja.rules.kube.TraefikCrdNoSchema;
import dev.deja.rules.kube.TraefikCrdSharedScope;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * The built-in Java rules, by id: each {@code rules/<id>.yaml} (the rule's metadata) is matched
 * here with its class's constructor, so the compiler, refactoring tools and dependency checks see
 * every edge. Only the rules a scan selects are constructed and loaded: commands that only read the
 * catalog ({@code deja rules}, {@code explain}) load no rule class at all.
 *
 * <p>Adding a rule: its YAML in {@code rules/}, its class, and one line here. A YAML without a line
 * here (or a line without a YAML) is a build mistake: {@link IllegalStateException}, and {@code
 * CatalogMetaTest} fails before a release.
 */
public final class RuleRegistry {
    private RuleRegistry() {}

    /**
     * A new instance of the Java rule with this id, null when none is registered. A switch and not
     * a map of constructor references: a branch loads its class only when it runs, and a scan spins
     * up no lambda class per rule.
     */
    static Rule create(String id) {
        return switch (id) {
            case "aws-nlb-cross-zone-off-uneven" -> new NlbCrossZoneOffUneven();
            case "aws-nlb-zonal-shift-disabled" -> new NlbZonalShiftDisabled();
            case "aws-nlb-zone-health-unreported" -> new NlbZoneHealthUnreported();
            case "aws-nlb-zone-without-healthy-target" -> new NlbZoneWithoutHealthyTarget();
            case "aws-tg-health-check-slow-detection" -> new TgHealthCheckSlowDetection();
            case "haproxy-maxconn-headroom" -> new MaxconnHeadroom();
            case "haproxy-missing-http-request-timeout" -> new MissingHttpRequestTimeout();
            case "haproxy-no-saturation-visibility" -> new NoSaturationVisibility();
            case "haproxy-rate-limit-not-everywhere" -> new RateLimitNotEverywhere();
            case "haproxy-roundrobin-same-start" -> new RoundRobinSameStart();
            case "haproxy-sessions-near-limit" -> new SessionsNearLimit();
            case "haproxy-tarpit-holds-slots" -> new TarpitHoldsSlots();
            case "k8s-critical-in-one-cluster" -> new CriticalInOneCluster();
            case "k8s-etcd-disk-latency" -> new EtcdDiskLatency();
            case "k8s-etcd-even-or-single-member" -> new EtcdEvenOrSingleMember();
            case "k8s-haproxy-ingress-hot-pods" -> new HaproxyIngressHotPods();
            case "k8s-ingress-nginx-admission-exposed" -> new IngressNginxAdmissionExposed();
            case "k8s-ingress-nginx-admission-rce" -> new IngressNginxAdmissionRce();
            case "k8s-ingress-nginx-serial-reloads" -> new IngressNginxSerialReloads();
            case "k8s-internal-lb-local-traffic-policy" -> new InternalLbLocalTrafficPolicy();
            case "k8s-internal-lb-no-drain-headroom" -> new InternalLbNoDrainHeadroom();
            case "k8s-lb-liveness-same-as-readiness" -> new LbLivenessSameAsReadiness();
            case "k8s-lb-no-disruption-headroom" -> new LbNoDisruptionHeadroom();
            case "k8s-lb-not-spread" -> new LbNotSpread();
            case "k8s-lb-probe-fails-fast" -> new LbProbeFailsFast();
            case "k8s-lb-probe-on-admin-endpoint" -> new LbProbeOnAdminEndpoint();
            case "k8s-nlb-service-single-zone-risk" -> new NlbServiceSingleZoneRisk();
            case "k8s-traefik-before-crd-schemas" -> new TraefikBeforeCrdSchemas();
            case "k8s-traefik-crd-no-schema" -> new TraefikCrdNoSchema();
            case "k8s-traefik-crd-shared-scope" -> new TraefikCrdSharedScope();
            case "lb-connections-near-capacity" -> new LbConnectionsNearCapacity();
            default -> null;
        };
    }

    /** Every rule of the packaged catalog, sorted by id. */
    public static List<Rule> all() {
        return load(Catalog.packaged().rules());
    }

    /** The rules of one source. */
    public static List<Rule> of(SourceKind source) {
        return load(Catalog.packaged().rules().stream().filter(m -> m.source() == source).toList());
    }

    /** The implementations of these catalog entries, sorted by id. */
    public static List<Rule> load(Collection<RuleMetadata> rules) {
        List<Rule> out = new ArrayList<>();
        for (RuleMetadata m : rules) {
            out.add(instantiate(m));
        }
        out.sort(Comparator.comparing(Rule::id));
        return List.copyOf(out);
    }

    /** The implementation of one rule, whose id and source must be its YAML's. */
    public static Rule instantiate(RuleMetadata m) {
        String yaml = "rules/" + m.id() + ".yaml";
        Rule r = create(m.id());
        if (r == null) {
            throw new IllegalStateException(
                    yaml
                            + ": no Java rule is registered for it: add 'case \""
                            + m.id()
                            + "\" -> new YourRule();' to "
                            + sourceFile(RuleRegistry.class));
        }
        String cls = r.getClass().getName();
        if (!m.id().equals(r.id())) {
            throw new IllegalStateException(
                    yaml
                            + ": its class "
                            + cls
                            + " says its id is '"
                            + r.id()
                            + "', not '"
                            + m.id()
                            + "'");
        }
        if (m.source() != r.source()) {
            throw new IllegalStateException(
                    yaml
                            + ": source "
                            + m.source().id()
                            + ", but its class "
                            + cls
                            + " reads "
                            + r.source().id());
        }
        return r;
    }

    /** Where the source of a class lives in this repository. */
    public static String sourceFile(Class<?> c) {
        return "src/main/java/" + c.getName().replace('.', '/') + ".java";
    }
}
