package dev.deja.model.kube;

import java.util.List;

/**
 * A ValidatingWebhookConfiguration: its webhooks and where the API server sends their
 * AdmissionReviews.
 */
public record WebhookConfiguration(Meta meta, List<Webhook> webhooks) {

    public WebhookConfiguration {
        webhooks = webhooks == null ? List.of() : List.copyOf(webhooks);
    }

    /**
     * One webhook: the in-cluster Service it calls ({@code clientConfig.service}; port 443 when
     * unset) or a URL.
     *
     * @param line line of the webhook in a manifest, or null
     */
    public record Webhook(
            String name,
            String serviceNamespace,
            String serviceName,
            Integer servicePort,
            String url,
            String failurePolicy,
            Integer line) {
        public int port() {
            return servicePort == null ? 443 : servicePort;
        }
    }
}
