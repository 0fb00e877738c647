package dev.deja.model.kube;

import java.util.List;

/**
 * A container probe as declared; unset numbers are null and {@link #timeout()}, {@link #period()},
 * {@link #failures()} apply the Kubernetes defaults (1 s, 10 s, 3).
 *
 * @param handler httpGet | tcpSocket | grpc | exec (null when none is set)
 * @param port the port as written: a number or a container port name (null for exec)
 * @param line line of the probe key in a manifest, or null
 */
public record Probe(
        String handler,
        String path,
        String port,
        String scheme,
        List<String> command,
        Integer timeoutSeconds,
        Integer periodSeconds,
        Integer failureThreshold,
        Integer initialDelaySeconds,
        Integer line) {

    public Probe {
        command = command == null ? List.of() : List.copyOf(command);
    }

    public int timeout() {
        return timeoutSeconds == null ? 1 : timeoutSeconds;
    }

    public int period() {
        return periodSeconds == null ? 10 : periodSeconds;
    }

    public int failures() {
        return failureThreshold == null ? 3 : failureThreshold;
    }

    /**
     * The endpoint, for comparing probes: "httpGet :10254/healthz", "tcpSocket :80", "exec [cat,
     * /ready]".
     */
    public String endpoint() {
        if (handler == null) {
            return "none";
        }
        return switch (handler) {
            case "exec" -> "exec " + command;
            case "httpGet" -> "httpGet :" + port + (path == null ? "/" : path);
            default -> handler + " :" + port;
        };
    }
}
