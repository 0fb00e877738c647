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
 * @param env the environment entries a rule reads (those whose name starts with {@code TRAEFIK_},
 *     and {@code HOME} and {@code XDG_CONFIG_HOME}), in order; the others are not kept
 * @param envFrom the {@code envFrom} sources, in order
 * @param mounts the {@code volumeMounts}
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
        String cpuLimit,
        List<EnvVar> env,
        List<EnvFrom> envFrom,
        List<Mount> mounts) {

    /**
     * One {@code env} entry: a literal {@code value}, a {@code configMapKeyRef}, or another source
     * ({@code secretKeyRef}, {@code fieldRef}, {@code resourceFieldRef}) that deja does not read.
     *
     * @param other the kind of source a rule cannot read ("secretKeyRef"), or null
     */
    public record EnvVar(
            String name, String value, String configMap, String configMapKey, String other) {}

    /** One {@code envFrom} source: a ConfigMap or a Secret, with its optional prefix. */
    public record EnvFrom(String configMap, String secret, String prefix) {
        public String prefixOrEmpty() {
            return prefix == null ? "" : prefix;
        }
    }

    /** One {@code volumeMounts} entry ({@code subPath} null when unset). */
    public record Mount(String volume, String mountPath, String subPath) {}

    /** A container as before env, envFrom and mounts were read. */
    public Container(
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
        this(
                name, image, command, args, ports, readiness, liveness, startup, line, cpuLimit,
                null, null, null);
    }

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
        env = env == null ? List.of() : List.copyOf(env);
        envFrom = envFrom == null ? List.of() : List.copyOf(envFrom);
        mounts = mounts == null ? List.of() : List.copyOf(mounts);
    }

    /** Whether {@link #env} keeps an entry of that name. */
    public static boolean envKept(String name) {
        return name != null
                && (name.regionMatches(true, 0, "TRAEFIK_", 0, 8)
                        || name.equals("HOME")
                        || name.equals("XDG_CONFIG_HOME"));
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
        // over command then args, as argv() joins them, without joining them: a load-balancer
        // judgement asks every container of a cluster for three flags
        int n = command.size() + args.size();
        for (int i = 0; i < n; i++) {
            String s = arg(i);
            if (s.equals(name) && i + 1 < n) {
                return arg(i + 1);
            }
            if (s.length() > name.length()
                    && s.charAt(name.length()) == '='
                    && s.startsWith(name)) {
                return s.substring(name.length() + 1);
            }
        }
        return null;
    }

    /** The {@code i}th word of {@link #argv()}. */
    private String arg(int i) {
        return i < command.size() ? command.get(i) : args.get(i - command.size());
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
