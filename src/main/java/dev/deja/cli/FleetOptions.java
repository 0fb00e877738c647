package dev.deja.cli;

import dev.deja.engine.InputException;
import dev.deja.model.kube.KubeScope;
import dev.deja.rules.kube.CriticalInOneCluster;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code deja scan} over several clusters or accounts: how many at once, and how long one may take.
 */
final class FleetOptions {
    private static final Pattern TIME = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

    int parallel;

    String targetTimeout;

    String criticalSelector;

    String fleetIdentity;

    /** The options above, for picocli (see {@link Opt}). */
    void declare(CommandSpec s) {
        s.addOption(
                Opt.named("--parallel")
                        .label("N")
                        .defaultValue("4")
                        .description(
                                "Clusters and accounts read at the same time (default: ${DEFAULT-VALUE})")
                        .value(int.class, this, "parallel"));
        s.addOption(
                Opt.named("--target-timeout")
                        .label("TIME")
                        .defaultValue("10m")
                        .description(
                                "Longest time one cluster or account may take to be read (e.g. 90s, 10m); past it, it is one failed coverage entry and the others go on (default: ${DEFAULT-VALUE})")
                        .value(String.class, this, "targetTimeout"));
        s.addOption(
                Opt.named("--critical-selector")
                        .label("SELECTOR")
                        .description(
                                "Workloads whose labels match this label selector are critical (e.g. tier=1), besides those labelled or annotated deja.dev/critical=true (on them or their Namespace): in a scan of several clusters, one that runs in only one of them is a finding (k8s-critical-in-one-cluster)")
                        .value(String.class, this, "criticalSelector"));
        s.addOption(
                Opt.named("--fleet-identity")
                        .label("IDENTITY")
                        .defaultValue(CriticalInOneCluster.DEFAULT_IDENTITY)
                        .description(
                                "What makes workloads of two clusters the same one: namespace/kind/name, namespace/name, or label:KEY (the value of that label, e.g. label:app.kubernetes.io/name) (default: ${DEFAULT-VALUE})")
                        .value(String.class, this, "fleetIdentity"));
    }

    /** --target-timeout in milliseconds, once {@link #check} passed. */
    long targetTimeoutMillis;

    void check() {
        if (parallel < 1) {
            throw new InputException("--parallel: must be at least 1, not " + parallel);
        }
        targetTimeoutMillis = timeMillis(targetTimeout, "--target-timeout");
        if (criticalSelector != null
                && (criticalSelector.isBlank() || !KubeScope.valid(criticalSelector.strip()))) {
            throw new InputException(
                    "--critical-selector "
                            + criticalSelector
                            + ": not a label selector (e.g. tier=1, or 'tier in (1,2)')");
        }
        if (!CriticalInOneCluster.validIdentity(fleetIdentity.strip())) {
            throw new InputException(
                    "--fleet-identity "
                            + fleetIdentity
                            + ": expected namespace/kind/name, namespace/name or label:KEY");
        }
    }

    /** What the rules that compare clusters read. */
    void settings(Map<String, String> knobs) {
        if (criticalSelector != null) {
            knobs.put(CriticalInOneCluster.SELECTOR_KEY, criticalSelector.strip());
        }
        knobs.put(CriticalInOneCluster.IDENTITY_KEY, fleetIdentity.strip());
    }

    /**
     * Milliseconds of "90s", "10m", "1h", "500ms"; anything else is a usage error naming the
     * option.
     */
    static long timeMillis(String v, String option) {
        Matcher m = TIME.matcher(v == null ? "" : v.strip());
        if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
            throw new InputException(option + " " + v + ": expected a time such as 90s, 10m or 1h");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> n;
            case "s" -> n * 1000;
            case "m" -> n * 60_000;
            default -> n * 3_600_000;
        };
    }
}
