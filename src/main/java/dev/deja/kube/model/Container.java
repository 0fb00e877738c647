package dev.deja.kube.model;

import java.util.List;
import java.util.Map;

/**
 * One container of a pod template: what the rules read (image, command and args, named ports, probes).
 *
 * @param ports container port name -> number (unnamed ports under their number)
 */
public record Container(String name, String image, List<String> command, List<String> args, Map<String, Integer> ports,
                        Probe readiness, Probe liveness, Probe startup, Integer line) {

    public Container {
        command = command == null ? List.of() : List.copyOf(command);
        args = args == null ? List.of() : List.copyOf(args);
        ports = ports == null ? Map.of() : Sorted.copyOf(ports);
    }

    /** Command and args together, as the container runs them. */
    public List<String> argv() {
        if (command.isEmpty()) {
            return args;
        }
        if (args.isEmpty()) {
            return command;
        }
        List<String> all = new java.util.ArrayList<>(command);
        all.addAll(args);
        return all;
    }

    /** The value of a flag in the args: {@code --flag=value} or {@code --flag value}; null when absent. */
    public String flag(String name) {
        List<String> a = argv();
        for (int i = 0; i < a.size(); i++) {
            String s = a.get(i);
            if (s.equals(name) && i + 1 < a.size()) {
                return a.get(i + 1);
            }
            if (s.startsWith(name + "=")) {
                return s.substring(name.length() + 1);
            }
        }
        return null;
    }

    /** A probe port resolved to a number (named ports looked up), or null. */
    public Integer resolvePort(String port) {
        if (port == null) {
            return null;
        }
        try {
            return Integer.parseInt(port);
        } catch (NumberFormatException e) {
            return ports.get(port);
        }
    }
}
