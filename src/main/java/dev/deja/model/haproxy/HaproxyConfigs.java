package dev.deja.model.haproxy;

import java.util.List;

/** The snapshot part of the HAProxy source: every configuration read, one per HAProxy instance. */
public record HaproxyConfigs(List<HaproxyConfig> configs) {
    public HaproxyConfigs {
        configs = List.copyOf(configs);
    }
}
