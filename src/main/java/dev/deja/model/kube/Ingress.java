package dev.deja.model.kube;

/**
 * An Ingress: its class (spec.ingressClassName, or the legacy kubernetes.io/ingress.class
 * annotation).
 */
public record Ingress(Meta meta, String ingressClassName) {

    public String className() {
        return ingressClassName != null
                ? ingressClassName
                : meta.annotation("kubernetes.io/ingress.class");
    }
}
