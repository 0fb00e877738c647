package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.CustomResourceDefinition;
import dev.deja.model.kube.KubeInventory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * IL-0106: a Traefik CustomResourceDefinition (group {@code traefik.io} or {@code
 * traefik.containo.us}) with a served version whose {@code spec} the API server does not check: no
 * {@code openAPIV3Schema}, or one that leaves {@code spec} open. A route with a value of the wrong
 * type is then stored as written, and Traefik's CRD provider, which cannot decode it, stops loading
 * every object of that kind (traefik/traefik#6370, #6614, #8098); Traefik v2.5 added the schema to
 * its CRDs so that the API server rejects such an object on create or update.
 */
public final class TraefikCrdNoSchema extends KubeRule {
    @Override
    public String id() {
        return "k8s-traefik-crd-no-schema";
    }

    @Override
    public Set<String> kubeKinds() {
        return Set.of("CustomResourceDefinition");
    }

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (CustomResourceDefinition d : inv.customResourceDefinitions()) {
            if (!Traefik.GROUPS.contains(d.group())) {
                continue;
            }
            List<String> none = new ArrayList<>();
            List<String> open = new ArrayList<>();
            Integer line = null;
            for (CustomResourceDefinition.Version v : d.versions()) {
                if (!v.served()) {
                    continue;
                }
                if (v.spec() == CustomResourceDefinition.SpecSchema.NONE) {
                    none.add(v.name());
                } else if (v.spec() == CustomResourceDefinition.SpecSchema.OPEN) {
                    open.add(v.name());
                } else {
                    continue;
                }
                if (line == null) {
                    line = v.line();
                }
            }
            if (none.isEmpty() && open.isEmpty()) {
                continue;
            }
            String kind = d.kind() == null ? "objects" : d.kind() + " objects";
            List<String> why = new ArrayList<>();
            if (!none.isEmpty()) {
                why.add(
                        "version"
                                + (none.size() == 1 ? " " : "s ")
                                + String.join(", ", none)
                                + " of "
                                + d.group()
                                + " ha"
                                + (none.size() == 1 ? "s" : "ve")
                                + " no openAPIV3Schema");
            }
            if (!open.isEmpty()) {
                why.add(
                        "version"
                                + (open.size() == 1 ? " " : "s ")
                                + String.join(", ", open)
                                + " ha"
                                + (open.size() == 1 ? "s" : "ve")
                                + " a schema that leaves spec open (no spec.properties, unknown"
                                + " fields kept)");
            }
            String msg =
                    d.meta().display()
                            + ": "
                            + String.join("; ", why)
                            + ", so the API server stores "
                            + kind
                            + " with any spec: one with a value of the wrong type makes Traefik's"
                            + " CRD provider fail to list them all, and every Traefik pod that"
                            + " (re)starts then serves none of their routes (404)";
            out.add(
                    ctx.finding(d.meta().at(line), msg)
                            .key("schema " + d.meta().name())
                            .remediation(
                                    "Apply the CRDs of your Traefik release (v2.5 or later:"
                                            + " apiextensions.k8s.io/v1 with their OpenAPI schema),"
                                            + " e.g. from the traefik-crds Helm chart; objects are"
                                            + " then validated on create and update (those already"
                                            + " stored only when next written).")
                            .build());
        }
        return out;
    }
}
