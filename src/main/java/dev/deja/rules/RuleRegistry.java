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
import dev.deja.rules.kube.HaproxyIngressHotPods;
import dev.deja.rules.kube.IngressNginxAdmissionExposed;
import dev.deja.rules.kube.IngressNginxAdmissionRce;
import dev.deja.rules.kube.IngressNginxSerialReloads;
import dev.deja.rules.kube.LbConnectionsNearCapacity;
import dev.deja.rules.kube.LbLivenessSameAsReadiness;
import dev.deja.rules.kube.LbNoDisruptionHeadroom;
import dev.deja.rules.kube.LbNotSpread;
import dev.deja.rules.kube.LbProbeFailsFast;
import dev.deja.rules.kube.LbProbeOnAdminEndpoint;
import dev.deja.rules.kube.NlbServiceSingleZoneRisk;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The built-in Java rules, by id: each {@code rules/<id>.yaml} (the rule's metadata) is matched
 * here with its class's constructor reference, so the compiler, refactoring tools and dependency
 * checks see every edge. Only the rules a scan selects are constructed, and a constructor reference
 * loads its class when it is called: commands that only read the catalog ({@code deja rules},
 * {@code explain}) load no rule class at all.
 *
 * <p>Adding a rule: its YAML in {@code rules/}, its class, and one line here. A YAML without a line
 * here (or a line without a YAML) is a build mistake: {@link IllegalStateException}, and {@code
 * CatalogMetaTest} fails before a release.
 */
public final class RuleRegistry {
    private RuleRegistry() {}

    /** Rule id -> constructor, sorted by id. */
    static final Map<String, Supplier<Rule>> JAVA_RULES =
            new TreeMap<>(
                    Map.ofEntries(
                            Map.entry("aws-nlb-cross-zone-off-uneven", NlbCrossZoneOffUneven::new),
                            Map.entry("aws-nlb-zonal-shift-disabled", NlbZonalShiftDisabled::new),
                            Map.entry(
                                    "aws-nlb-zone-health-unreported", NlbZoneHealthUnreported::new),
                            Map.entry(
                                    "aws-nlb-zone-without-healthy-target",
                                    NlbZoneWithoutHealthyTarget::new),
                            Map.entry(
                                    "aws-tg-health-check-slow-detection",
                                    TgHealthCheckSlowDetection::new),
                            Map.entry("haproxy-maxconn-headroom", MaxconnHeadroom::new),
                            Map.entry(
                                    "haproxy-missing-http-request-timeout",
                                    MissingHttpRequestTimeout::new),
                            Map.entry(
                                    "haproxy-no-saturation-visibility",
                                    NoSaturationVisibility::new),
                            Map.entry(
                                    "haproxy-rate-limit-not-everywhere",
                                    RateLimitNotEverywhere::new),
                            Map.entry("haproxy-roundrobin-same-start", RoundRobinSameStart::new),
                            Map.entry("haproxy-sessions-near-limit", SessionsNearLimit::new),
                            Map.entry("haproxy-tarpit-holds-slots", TarpitHoldsSlots::new),
                            Map.entry("k8s-haproxy-ingress-hot-pods", HaproxyIngressHotPods::new),
                            Map.entry(
                                    "k8s-ingress-nginx-admission-exposed",
                                    IngressNginxAdmissionExposed::new),
                            Map.entry(
                                    "k8s-ingress-nginx-admission-rce",
                                    IngressNginxAdmissionRce::new),
                            Map.entry(
                                    "k8s-ingress-nginx-serial-reloads",
                                    IngressNginxSerialReloads::new),
                            Map.entry(
                                    "k8s-lb-liveness-same-as-readiness",
                                    LbLivenessSameAsReadiness::new),
                            Map.entry("k8s-lb-no-disruption-headroom", LbNoDisruptionHeadroom::new),
                            Map.entry("k8s-lb-not-spread", LbNotSpread::new),
                            Map.entry("k8s-lb-probe-fails-fast", LbProbeFailsFast::new),
                            Map.entry(
                                    "k8s-lb-probe-on-admin-endpoint", LbProbeOnAdminEndpoint::new),
                            Map.entry(
                                    "k8s-nlb-service-single-zone-risk",
                                    NlbServiceSingleZoneRisk::new),
                            Map.entry(
                                    "lb-connections-near-capacity",
                                    LbConnectionsNearCapacity::new)));

    /** The ids of every registered Java rule, sorted. */
    public static Set<String> ids() {
        return JAVA_RULES.keySet();
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
        Supplier<Rule> make = JAVA_RULES.get(m.id());
        if (make == null) {
            throw new IllegalStateException(
                    yaml
                            + ": no Java rule is registered for it: add Map.entry(\""
                            + m.id()
                            + "\", YourRule::new) to "
                            + sourceFile(RuleRegistry.class));
        }
        Rule r = make.get();
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
