package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.IngressNginx;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.Service;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * IL-0053: nothing restricts who reaches the ingress-nginx admission webhook port: no NetworkPolicy
 * selecting the controller pods limits the sources of that port (evaluated as Kubernetes does; an
 * allow-all rule is no restriction). The severity follows the version: high on a vulnerable one
 * (critical when the admission Service is reachable from outside the cluster), medium when the
 * version is unknown, low on a fixed one (the next webhook bug would be as reachable).
 */
public final class IngressNginxAdmissionExposed extends KubeRule {

    @Override
    public String id() {
        return "k8s-ingress-nginx-admission-exposed";
    }

    @Override
    public Set<String> kubeKinds() {
        return union(
                IngressNginxAdmission.KINDS, "NetworkPolicy", "ClusterRole", "ClusterRoleBinding");
    }

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (IngressNginxAdmission.Controller c : IngressNginxAdmission.withWebhook(inv)) {
            IngressNginxAdmission.Reach reach = IngressNginxAdmission.reach(inv, c);
            if (!reach.open()) {
                continue;
            }
            IngressNginx.Version v = c.version();
            List<IngressNginxAdmission.Hook> hooks = IngressNginxAdmission.hooks(inv, c.workload());
            List<Service> admission =
                    IngressNginxAdmission.admissionServices(inv, c.workload(), hooks);
            Service outside =
                    admission.stream().filter(Service::exposedOutside).findFirst().orElse(null);
            Severity sev;
            String state;
            if (v.known() && v.vulnerable()) {
                sev = outside != null ? Severity.CRITICAL : Severity.HIGH;
                state =
                        v.text()
                                + " is vulnerable to IngressNightmare (CVE-2025-1974; fixed in v1.11.5 and v1.12.1)";
            } else if (!v.known()) {
                sev = outside != null ? Severity.HIGH : Severity.MEDIUM;
                state = "its version is unknown (" + v.unknownWhy() + ")";
            } else {
                sev = outside != null ? Severity.MEDIUM : Severity.LOW;
                state =
                        v.text()
                                + " has the CVE-2025-1974 fix, but the next flaw in the webhook would be as reachable";
            }
            String where =
                    outside == null
                            ? "from every pod of the cluster"
                            : "from every pod of the cluster, and from outside it: "
                                    + IngressNginxAdmission.exposure(outside);
            String svc = admission.isEmpty() ? "" : " behind " + admission.get(0).meta().display();
            var fb =
                    ctx.finding(
                                    c.workload().meta().at(c.container().line()),
                                    "the admission webhook of "
                                            + c.display()
                                            + " ("
                                            + IngressNginxAdmission.FLAG
                                            + "="
                                            + c.webhookAddress()
                                            + ", port "
                                            + c.port()
                                            + svc
                                            + ") is reachable "
                                            + where
                                            + ": "
                                            + reach.why()
                                            + "; only the API server needs it; "
                                            + state
                                            + "; "
                                            + IngressNginxAdmission.secretsAccess(
                                                    inv, c.workload()))
                            .severity(sev)
                            // what decides the severity is part of the identity: a version turning
                            // vulnerable is new
                            .key(
                                    "container "
                                            + c.container().name()
                                            + " admission webhook reachable from "
                                            + (outside == null
                                                    ? "the cluster"
                                                    : "outside the cluster")
                                            + ", version "
                                            + (!v.known()
                                                    ? "unknown"
                                                    : v.vulnerable() ? "vulnerable" : "fixed"));
            fix(fb, c, reach);
            out.add(fb.build());
        }
        return out;
    }

    /**
     * The fix's inputs and, where a policy opens the port, the advice that narrows that policy's
     * rule (policies add up: a second, stricter one cannot take the open rule back).
     */
    private static void fix(
            RuleContext.FindingBuilder fb,
            IngressNginxAdmission.Controller c,
            IngressNginxAdmission.Reach reach) {
        if (reach.opener() == null) {
            Map<String, Object> meta = new LinkedHashMap<>();
            meta.put("name", c.workload().meta().name() + "-webhook");
            if (c.workload().meta().namespace() != null) {
                meta.put("namespace", c.workload().meta().namespace());
            }
            fb.fix("policyMetadata", meta)
                    .fix(
                            "policyRef",
                            "NetworkPolicy "
                                    + (meta.containsKey("namespace")
                                            ? meta.get("namespace") + "/"
                                            : "")
                                    + meta.get("name"))
                    .fix("podLabels", c.workload().podLabels())
                    .fix("port", (long) c.port())
                    .fix("trafficPorts", trafficPorts(c));
            return;
        }
        fb.fix("policy", reach.opener().meta().ref()).fix("rule", (long) reach.rule());
        String np = reach.opener().meta().namespace() + "/" + reach.opener().meta().name();
        fb.remediation(
                "In NetworkPolicy "
                        + np
                        + ", admit port "
                        + c.port()
                        + " only from the API server: give"
                        + " the rule that opens it to every source a from with the API server's addresses (ipBlock), or"
                        + " list only the traffic ports in it (NetworkPolicies add up, so a second, stricter policy cannot"
                        + " take that rule back); keep the admission Service of type ClusterIP, and upgrade to a fixed"
                        + " version.");
    }

    /**
     * The container's other ports, which a policy that selects the pods must keep admitting from
     * every source (a selected pod is denied what no rule admits); null when it declares none.
     */
    private static List<Map<String, Object>> trafficPorts(IngressNginxAdmission.Controller c) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Integer p : new java.util.TreeSet<>(c.container().ports().values())) {
            if (p != null && p != c.port()) {
                out.add(Map.of("port", (long) p));
            }
        }
        return out.isEmpty() ? null : out;
    }
}
