package dev.deja.rules.cel;

import dev.deja.model.kube.ClusterRole;
import dev.deja.model.kube.ClusterRoleBinding;
import dev.deja.model.kube.ConfigMap;
import dev.deja.model.kube.CustomResourceDefinition;
import dev.deja.model.kube.Hpa;
import dev.deja.model.kube.Ingress;
import dev.deja.model.kube.IngressClass;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.Meta;
import dev.deja.model.kube.NetworkPolicy;
import dev.deja.model.kube.Pdb;
import dev.deja.model.kube.Pod;
import dev.deja.model.kube.Service;
import dev.deja.model.kube.WebhookConfiguration;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.List;

/** Every object of a Kubernetes inventory, in inventory order, and the metadata of one. */
final class KubeObjects {
    private KubeObjects() {}

    static List<Object> all(KubeInventory inv) {
        List<Object> out = new ArrayList<>(inv.size());
        out.addAll(inv.workloads());
        out.addAll(inv.services());
        out.addAll(inv.hpas());
        out.addAll(inv.pdbs());
        out.addAll(inv.ingresses());
        out.addAll(inv.ingressClasses());
        out.addAll(inv.configMaps());
        out.addAll(inv.others());
        out.addAll(inv.networkPolicies());
        out.addAll(inv.webhookConfigurations());
        out.addAll(inv.clusterRoles());
        out.addAll(inv.clusterRoleBindings());
        out.addAll(inv.customResourceDefinitions());
        out.addAll(inv.pods());
        return out;
    }

    static Meta meta(Object o) {
        if (o instanceof Meta m) {
            return m;
        }
        if (o instanceof Workload w) {
            return w.meta();
        }
        if (o instanceof Service s) {
            return s.meta();
        }
        if (o instanceof Hpa h) {
            return h.meta();
        }
        if (o instanceof Pdb p) {
            return p.meta();
        }
        if (o instanceof Ingress i) {
            return i.meta();
        }
        if (o instanceof IngressClass c) {
            return c.meta();
        }
        if (o instanceof ConfigMap c) {
            return c.meta();
        }
        if (o instanceof NetworkPolicy n) {
            return n.meta();
        }
        if (o instanceof WebhookConfiguration w) {
            return w.meta();
        }
        if (o instanceof ClusterRole r) {
            return r.meta();
        }
        if (o instanceof ClusterRoleBinding b) {
            return b.meta();
        }
        if (o instanceof CustomResourceDefinition d) {
            return d.meta();
        }
        if (o instanceof Pod p) {
            return p.meta();
        }
        throw new IllegalArgumentException("not a Kubernetes object: " + o);
    }
}
