package dev.deja.engine;

import java.util.Locale;

/** The three kinds of infrastructure deja reads. */
public enum SourceKind {
    HAPROXY,
    KUBERNETES,
    AWS;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static SourceKind parse(String s) {
        for (SourceKind v : values()) {
            if (v.id().equalsIgnoreCase(s == null ? "" : s.trim())) {
                return v;
            }
        }
        throw new IllegalArgumentException(
                "unknown source '" + s + "' (expected haproxy, kubernetes or aws)");
    }
}
