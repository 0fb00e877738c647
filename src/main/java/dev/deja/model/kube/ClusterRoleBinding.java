package dev.deja.model.kube;

import java.util.List;
import java.util.Objects;

/** A ClusterRoleBinding: the ClusterRole it grants and to whom. */
public record ClusterRoleBinding(
        Meta meta, String roleKind, String roleName, List<Subject> subjects) {

    public ClusterRoleBinding {
        subjects = subjects == null ? List.of() : List.copyOf(subjects);
    }

    /** A subject: kind ServiceAccount (with its namespace), User or Group. */
    public record Subject(String kind, String name, String namespace) {}

    /** Whether the binding grants its role to that ServiceAccount. */
    public boolean binds(String saNamespace, String saName) {
        return subjects.stream()
                .anyMatch(
                        s ->
                                "ServiceAccount".equals(s.kind())
                                        && saName.equals(s.name())
                                        && Objects.equals(saNamespace, s.namespace()));
    }
}
