package dev.deja.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code deja}: the top-level command. */
@Command(
        name = "deja",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {
            "Checks your Kubernetes clusters, HAProxy configs and AWS load balancers for the risk patterns"
                    + " of real public outages, and links every finding to the incident it comes from."
        },
        footer = {
            "",
            "Examples:",
            "  deja scan haproxy.cfg",
            "  deja scan --cluster --context prod",
            "  helm template ingress ./chart | deja scan -",
            "  deja explain IL-0264"
        })
public final class DejaCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    /** {@code deja} alone: which commands there are (every one), then the usage; exit 2. */
    @Override
    public Integer call() {
        CommandLine cmd = spec.commandLine();
        cmd.getErr()
                .println(
                        "deja: a command is needed: "
                                + String.join(", ", cmd.getSubcommands().keySet())
                                        .replaceFirst(", ([\\w-]+)$", " or $1"));
        cmd.getErr().println();
        cmd.usage(cmd.getErr());
        return ExitCodes.USAGE;
    }
}
