package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.Container;
import dev.deja.model.kube.CustomResourceDefinition;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.LoadBalancers;
import dev.deja.model.kube.TraefikStatic;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * IL-0106: a Traefik v2.0 to v2.4 controller with the Kubernetes CRD provider on, when the scan
 * does not hold Traefik's IngressRoute CRD. Those releases published their CRDs without an OpenAPI
 * validation schema (v2.5 is the first whose CRDs carry one: Traefik's migration guide, "v2.4 to
 * v2.5"), so a route with a value of the wrong type is stored, and the provider, which cannot
 * decode it, loads none of the objects of its kind (traefik/traefik#6370, #7977, #8098). When the
 * CRD is in the scan, k8s-traefik-crd-no-schema judges it instead: one root cause, one finding.
 */
public final class TraefikBeforeCrdSchemas extends KubeRule {
    @Override
    public String id() {
        return "k8s-traefik-before-crd-schemas";
    }

    @Override
    public Set<String> kubeKinds() {
        return union(DETECTOR_KINDS, "CustomResourceDefinition", "ConfigMap");
    }

    /** Whether the scan holds a Traefik IngressRoute CRD (the other rule then judges it). */
    static boolean ingressRouteCrdSeen(KubeInventory inv) {
        for (CustomResourceDefinition d : inv.customResourceDefinitions()) {
            if (Traefik.GROUPS.contains(d.group()) && "IngressRoute".equals(d.kind())) {
                return true;
            }
        }
        return false;
    }

    /** Traefik v2.0 to v2.4: the releases whose published CRDs had no validation schema. */
    /** The release a fix runs: v2.11.0, of the last v2 line (CRDs with schemas came in v2.5). */
    static final String FIXED_TAG = "v2.11.0";

    static boolean beforeSchemas(Traefik.Version v) {
        return v != null && v.major() == 2 && v.minor() <= 4;
    }

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        if (ingressRouteCrdSeen(inv)) {
            return out;
        }
        for (LoadBalancers.Lb lb : loadBalancers(snapshot)) {
            Workload w = lb.workload();
            for (Container c : Traefik.containers(lb)) {
                Traefik.Version v = Traefik.version(c.image());
                if (!beforeSchemas(v)) {
                    continue;
                }
                TraefikStatic cfg = Traefik.config(w, c, inv);
                if (cfg.notJudged() != null) {
                    ctx.notChecked(w.meta().display() + " container " + c.name(), cfg.notJudged());
                    continue;
                }
                String provider = cfg.provider();
                if (provider == null) {
                    continue;
                }
                String msg =
                        w.meta().display()
                                + ": container "
                                + c.name()
                                + " runs "
                                + c.image()
                                + " (Traefik "
                                + v.text()
                                + ") with the Kubernetes CRD provider on ("
                                + provider
                                + ", from "
                                + cfg.source()
                                + "); Traefik up to v2.4 published its CRDs without a validation"
                                + " schema, so one IngressRoute or Middleware with a value of the"
                                + " wrong type (a port \"8080s\", a list where an object belongs) is"
                                + " accepted by the API server, the provider then fails to list every"
                                + " object of that kind, and "
                                + replicasDo(pods(inv, w), "keep")
                                + " stale routes until they restart with none: 404 for every route."
                                + " The CRDs are not in this scan, so their schema is not known";
                out.add(
                        ctx.finding(w.meta().at(c.line()), msg)
                                .key("traefik " + v.major() + "." + v.minor())
                                .remediation(
                                        "Upgrade Traefik to v2.5 or later and apply the CRDs of that"
                                                + " release (apiextensions.k8s.io/v1, with their"
                                                + " OpenAPI schema), so that the API server rejects a"
                                                + " malformed route on create or update.")
                                .fix("container", c.name())
                                .fix("image", LoadBalancers.withTag(c.image(), FIXED_TAG))
                                .build());
            }
        }
        return out;
    }
}
