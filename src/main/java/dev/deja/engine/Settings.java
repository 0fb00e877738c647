package dev.deja.engine;

import java.util.Map;
import java.util.TreeMap;

/**
 * Scan-wide knobs that rules read, e.g. {@code assume-client-rps}. Immutable; typed getters with
 * defaults so a rule states its own default next to its use.
 */
public final class Settings {
    public static final Settings EMPTY = new Settings(Map.of());

    private final Map<String, String> values;

    public Settings(Map<String, String> values) {
        this.values = Map.copyOf(new TreeMap<>(values));
    }

    public String get(String key, String dflt) {
        return values.getOrDefault(key, dflt);
    }

    public int getInt(String key, int dflt) {
        String v = values.get(key);
        return v == null ? dflt : Integer.parseInt(v.trim());
    }

    public boolean getBoolean(String key, boolean dflt) {
        String v = values.get(key);
        return v == null ? dflt : Boolean.parseBoolean(v.trim());
    }

    public Settings with(String key, String value) {
        Map<String, String> m = new TreeMap<>(values);
        m.put(key, value);
        return new Settings(m);
    }

    public Map<String, String> asMap() {
        return values;
    }
}
