package dev.deja.model.kube;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One container of a pod template: what the rules read (image, command and args, named ports,
 * probes).
 *
 * @param ports container port name -> number (unnamed ports under their number)
 * @param cpuLimit {@code resources.limits.cpu} as written ("1500m", "2"), or null when none is set
 */
public record Container(
        String name,
        String image,
        List<String> command,
        List<String> args,
        Map<String, Integer> ports,
        Probe readiness,
        Probe liveness,
        Probe startup,
        Integer line,
        String cpuLimit) {

    /** A container without a CPU limit. */
    public Container(
            String name,
            String image,
            List<String> command,
            List<String> args,
            Map<String, Integer> ports,
            Probe readiness,
            Probe liveness,
            Probe startup,
            Integer line) {
        this(name, image, command, args, ports, readiness, liveness, startup, line, null);
    }

    private static final Pattern CPU_QUANTITY = Pattern.compile("(\\d{1,9})(?:\\.(\\d{1,3}))?(m?)");

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
        List<String> all = new ArrayList<>(command);
        all.addAll(args);
        return all;
    }

    /**
     * The value of a flag in the args: {@code --flag=value} or {@code --flag value}; null when
     * absent.
     */
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

    /**
     * The CPU limit in whole CPUs rounded up ("1500m" is 2, "2" is 2, "250m" is 1), as a cgroup
     * quota over its period rounds it in ingress-nginx's NumCPU; null when no limit is set or it is
     * not a plain CPU quantity.
     */
    public Integer cpuLimitRoundedUp() {
        if (cpuLimit == null) {
            return null;
        }
        String v = cpuLimit.strip();
        Matcher m = CPU_QUANTITY.matcher(v);
        if (!m.matches() || (m.group(2) != null && !m.group(3).isEmpty())) {
            return null;
        }
        long millis;
        if (!m.group(3).isEmpty()) {
            millis = Long.parseLong(m.group(1));
        } else {
            String frac = m.group(2) == null ? "" : m.group(2);
            millis =
                    Long.parseLong(m.group(1)) * 1000
                            + (frac.isEmpty() ? 0 : Long.parseLong((frac + "00").substring(0, 3)));
        }
        if (millis <= 0) {
            return null;
        }
        long cpus = (millis + 999) / 1000;
        return cpus > Integer.MAX_VALUE ? null : (int) cpus;
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
