package dev.deja.model.kube;

/**
 * An IngressClass: the controller that implements it ("k8s.io/ingress-nginx",
 * "haproxy.org/ingress-controller/haproxy").
 */
public record IngressClass(Meta meta, String controller) {}
