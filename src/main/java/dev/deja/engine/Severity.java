package dev.deja.engine;

import java.util.Locale;

/** Finding severity, ordered from least to most severe. */
public enum Severity {
    INFO,
    LOW,
    MEDIUM,
    HIGH,
    CRITICAL;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean atLeast(Severity other) {
        return compareTo(other) >= 0;
    }

    /**
     * Parses "info|low|medium|high|critical" (any case); throws IllegalArgumentException with the
     * accepted values.
     */
    public static Severity parse(String s) {
        if (s != null) {
            for (Severity v : values()) {
                if (v.id().equalsIgnoreCase(s.trim())) {
                    return v;
                }
            }
        }
        throw new IllegalArgumentException(
                "unknown severity '" + s + "' (expected info, low, medium, high or critical)");
    }
}
