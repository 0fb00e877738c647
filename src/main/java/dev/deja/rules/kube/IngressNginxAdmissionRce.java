package dev.deja.rules.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.engine.Snapshot;
import dev.deja.model.kube.IngressNginx;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.Service;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * IL-0053 (IngressNightmare, CVE-2025-1974): an ingress-nginx controller below v1.11.5 (or v1.12.0)
 * runs its validating admission webhook, which renders any AdmissionReview it is sent into an NGINX
 * configuration and tests it: anyone who reaches the webhook port can run code in the controller. A
 * fixed version is not reported; a version that cannot be read from the image tag is an info
 * finding asking to pin a tag, never a guess.
 */
public final class IngressNginxAdmissionRce extends KubeRule {

    @Override
    public String id() {
        return "k8s-ingress-nginx-admission-rce";
    }

    @Override
    public Set<String> kubeKinds() {
        return IngressNginxAdmission.KINDS;
    }

    @Override
    List<Finding> check(KubeInventory inv, Snapshot snapshot, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        for (IngressNginxAdmission.Controller c : IngressNginxAdmission.withWebhook(inv)) {
            IngressNginx.Version v = c.version();
            if (v.known() && !v.vulnerable()) {
                continue;
            }
            List<IngressNginxAdmission.Hook> hooks = IngressNginxAdmission.hooks(inv, c.workload());
            String head = head(c, v, hooks);
            var at = c.workload().meta().at(c.container().line());
            if (!v.known()) {
                out.add(unknownVersion(c, v, head, at, ctx));
                continue;
            }
            out.add(vulnerable(inv, c, v, hooks, head, at, ctx));
        }
        return out;
    }

    /**
     * "... runs the ingress-nginx controller v1.11.3 (image ...) with its admission webhook on
     * (--validating-webhook=...; ValidatingWebhookConfiguration ... sends Ingress objects to
     * Service ...)".
     */
    private static String head(
            IngressNginxAdmission.Controller c,
            IngressNginx.Version v,
            List<IngressNginxAdmission.Hook> hooks) {
        String called =
                hooks.isEmpty()
                        ? ""
                        : "; ValidatingWebhookConfiguration "
                                + hooks.get(0).config().meta().name()
                                + " sends Ingress objects to Service "
                                + hooks.get(0).service().meta().namespace()
                                + "/"
                                + hooks.get(0).service().meta().name();
        return c.display()
                + " runs the ingress-nginx controller "
                + v.text()
                + " (image "
                + c.container().image()
                + ") with its admission webhook on ("
                + IngressNginxAdmission.FLAG
                + "="
                + c.webhookAddress()
                + called
                + ")";
    }

    /** The info finding on a controller whose version the image tag does not give. */
    private static Finding unknownVersion(
            IngressNginxAdmission.Controller c,
            IngressNginx.Version v,
            String head,
            Location at,
            RuleContext ctx) {
        return ctx.finding(
                        at,
                        head
                                + ": "
                                + v.unknownWhy()
                                + "; pin a release tag or check the"
                                + " running version, since every version up to v1.11.4 and v1.12.0 is open to IngressNightmare"
                                + " (CVE-2025-1974)")
                .severity(Severity.INFO)
                .key("container " + c.container().name() + " admission webhook, version unknown")
                .fix("container", c.container().name())
                .fix("image", IngressNginxAdmission.fixedImage(c.container().image(), v))
                .build();
    }

    /** The critical finding on a controller of a vulnerable version. */
    private static Finding vulnerable(
            KubeInventory inv,
            IngressNginxAdmission.Controller c,
            IngressNginx.Version v,
            List<IngressNginxAdmission.Hook> hooks,
            String head,
            Location at,
            RuleContext ctx) {
        List<Service> admission = IngressNginxAdmission.admissionServices(inv, c.workload(), hooks);
        String outside =
                admission.stream()
                        .filter(Service::exposedOutside)
                        .map(IngressNginxAdmission::exposure)
                        .findFirst()
                        .map(
                                s ->
                                        "; "
                                                + s
                                                + ", so the webhook is reachable from outside the cluster too")
                        .orElse("");
        return ctx.finding(
                        at,
                        head
                                + ": "
                                + v.text()
                                + " is below the fixed releases (v1.11.5 on the 1.11 line,"
                                + " v1.12.1 on the 1.12 line), so anyone who can reach port "
                                + c.port()
                                + " of its pods can send it a"
                                + " crafted AdmissionReview, inject NGINX configuration and run code in the controller (CVE-2025-1974,"
                                + " CVSS 9.8)"
                                + outside
                                + "; "
                                + IngressNginxAdmission.secretsAccess(inv, c.workload()))
                .severity(Severity.CRITICAL)
                .key(
                        "container "
                                + c.container().name()
                                + " admission webhook vulnerable to CVE-2025-1974")
                .fix("container", c.container().name())
                .fix("image", IngressNginxAdmission.fixedImage(c.container().image(), v))
                .build();
    }
}
