package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.Container;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.LoadBalancers;
import dev.deja.model.kube.TraefikStatic;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * IL-0106: a Traefik controller whose Kubernetes CRD provider reads every Traefik object of the
 * cluster: no {@code --providers.kubernetescrd.labelselector}, {@code .namespaces} or {@code
 * .ingressclass} (Traefik's documented ways to narrow the provider). Every replica then reads the
 * same objects, so one object that the provider cannot load stops the routes of every team on every
 * replica at once; a controller per tenant, or a canary controller that reads new routes first,
 * keeps that to a part. The provider's settings come from Traefik's one source of static
 * configuration ({@link TraefikStatic}: a file mounted from a ConfigMap, the command line or the
 * environment); when that source is not in the scan, a not-checked note says so.
 */
public final class TraefikCrdSharedScope extends KubeRule {
    @Override
    public String id() {
        return "k8s-traefik-crd-shared-scope";
    }

    @Override
    public Set<String> kubeKinds() {
        return union(DETECTOR_KINDS, "HorizontalPodAutoscaler", "ConfigMap");
    }

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (LoadBalancers.Lb lb : loadBalancers(snapshot)) {
            Workload w = lb.workload();
            for (Container c : Traefik.containers(lb)) {
                TraefikStatic cfg = Traefik.config(w, c, inv);
                if (cfg.notJudged() != null) {
                    ctx.notChecked(w.meta().display() + " container " + c.name(), cfg.notJudged());
                    continue;
                }
                String provider = cfg.provider();
                if (provider == null || !cfg.scopes().isEmpty()) {
                    continue;
                }
                Integer n = pods(inv, w);
                if (n != null && n == 0) {
                    continue; // scaled to zero: it serves nothing
                }
                String msg =
                        w.meta().display()
                                + ": container "
                                + c.name()
                                + " enables the Kubernetes CRD provider ("
                                + provider
                                + ", from "
                                + cfg.source()
                                + ") without labelselector, namespaces or ingressclass, so "
                                + replicasDo(n, "read")
                                + " every IngressRoute, Middleware and other Traefik object of"
                                + " every namespace: one object the provider cannot load takes the"
                                + " routes of every team down on "
                                + (n != null && n == 1 ? "it" : "all of them at once")
                                + ", with no canary or separate controller to keep the rest serving "
                                + lb.because();
                out.add(
                        ctx.finding(w.meta().at(c.line()), msg)
                                .key("crd scope " + c.name())
                                .remediation(remediation(cfg.source()))
                                .fix("container", c.name())
                                .fix(
                                        "byFlag",
                                        cfg.source() == null
                                                        || !cfg.source().startsWith("file ")
                                                                && !"the environment"
                                                                        .equals(cfg.source())
                                                ? true
                                                : null)
                                .fix("byEnv", "the environment".equals(cfg.source()) ? true : null)
                                .build());
            }
        }
        return out;
    }

    /**
     * Where the scope goes is where this container's static configuration comes from: Traefik reads
     * one source (its file, else its arguments, else TRAEFIK_* variables), so a flag added to a
     * file-configured Traefik is ignored, and one added to an env-configured Traefik replaces all
     * its variables.
     */
    static String remediation(String source) {
        String what;
        if (source != null && source.startsWith("file ")) {
            what =
                    "`providers.kubernetesCRD.labelSelector` (or `namespaces` / `ingressClass`) for its"
                            + " tenants in "
                            + source
                            + " (with a file, Traefik ignores its flags)";
        } else if ("the environment".equals(source)) {
            what =
                    "`TRAEFIK_PROVIDERS_KUBERNETESCRD_LABELSELECTOR` variable (or `..._NAMESPACES` /"
                            + " `..._INGRESSCLASS`) for its tenants (a flag would make Traefik ignore"
                            + " all its variables)";
        } else {
            what =
                    "`--providers.kubernetescrd.labelselector` (or `.namespaces` / `.ingressclass`)"
                            + " for its tenants";
        }
        return "Split the routes between controllers: give each a "
                + what
                + ", and let a small canary controller read new or risky routes first.";
    }
}
