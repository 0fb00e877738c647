package dev.deja.haproxy;

import java.util.List;

/**
 * What HAProxy's runtime API said at scan time ({@code --haproxy-runtime ADDR}): per address, the answers to
 * {@code show info} and {@code show stat}, kept as received and parsed by {@link RuntimeStats}. Immutable.
 */
public record HaproxyRuntime(List<Instance> instances) {
    public HaproxyRuntime {
        instances = List.copyOf(instances);
    }

    /** One runtime API address and its two answers (raw text, so a saved snapshot holds exactly what was read). */
    public record Instance(String address, String showInfo, String showStat) {
        public RuntimeStats.Info info() {
            return RuntimeStats.info(showInfo);
        }

        public List<RuntimeStats.Row> rows() {
            return RuntimeStats.stat(showStat);
        }
    }
}
