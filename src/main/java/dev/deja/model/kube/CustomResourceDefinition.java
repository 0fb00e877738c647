package dev.deja.model.kube;

import java.util.List;

/**
 * A CustomResourceDefinition, reduced to what the rules read: the API group and kind it defines,
 * and for each version whether the API server validates the objects' {@code spec} against a schema.
 * The schema itself is not kept (CRDs are large; the rules only need the verdict).
 *
 * @param group {@code spec.group} ("traefik.io")
 * @param kind {@code spec.names.kind} ("IngressRoute")
 * @param versions each version the CRD defines ({@code spec.versions}, or the single {@code
 *     spec.version} of {@code apiextensions.k8s.io/v1beta1})
 */
public record CustomResourceDefinition(
        Meta meta, String group, String kind, List<Version> versions) {

    public CustomResourceDefinition {
        versions = versions == null ? List.of() : List.copyOf(versions);
    }

    /** How the API server checks an object's {@code spec} on create and update. */
    public enum SpecSchema {
        /** No {@code openAPIV3Schema} for the version: any object is stored as written. */
        NONE,
        /**
         * A schema that leaves {@code spec} open: {@code spec} has no {@code properties} and its
         * unknown fields are kept ({@code x-kubernetes-preserve-unknown-fields: true}, or a {@code
         * v1beta1} CRD that preserves unknown fields, its default).
         */
        OPEN,
        /**
         * {@code spec} has typed {@code properties}, or unknown fields are pruned: a value of the
         * wrong type is rejected or dropped by the API server.
         */
        CHECKED
    }

    /**
     * One version of the CRD.
     *
     * @param line where the version (or the CRD, for a single {@code spec.version}) is written
     */
    public record Version(String name, boolean served, SpecSchema spec, Integer line) {}
}
