package dev.deja.engine;

import java.util.Objects;

/**
 * A suppression written next to the object itself: {@code # deja:ignore <rule> <reason>} in a
 * haproxy.cfg, or the {@code deja.dev/ignore} annotation on a Kubernetes object. It applies to
 * findings of {@code ruleId} whose location matches {@code target}: same file and line, or same
 * kind/namespace/name (and the same file, for an object read from a manifest: another definition of
 * it elsewhere is judged on its own).
 */
public record InlineSuppression(String ruleId, Location target, String reason, String origin) {

    public boolean matches(Finding f) {
        if (!f.ruleId().equals(ruleId)) {
            return false;
        }
        Location l = f.location();
        if (target.kind() != null) { // an object; read from a file: that definition of it only
            return target.kind().equals(l.kind())
                    && Objects.equals(target.namespace(), l.namespace())
                    && Objects.equals(target.name(), l.name())
                    && (target.file() == null || target.file().equals(l.file()));
        }
        if (target.file() != null && target.line() != null) {
            return target.file().equals(l.file())
                    && target.line().equals(l.line())
                    && Objects.equals(target.key(), l.key());
        }
        return false;
    }
}
