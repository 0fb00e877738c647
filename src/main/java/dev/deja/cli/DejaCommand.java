package dev.deja.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** {@code deja}: the top-level command. */
public final class DejaCommand implements Callable<Integer> {
    private static final String[] DESCRIPTION = {
        "Checks your Kubernetes clusters, HAProxy configs and AWS load balancers for the risk patterns"
                + " of real public outages, and links every finding to the incident it comes from."
    };

    CommandSpec spec;

    /** The command for picocli (see {@link Opt}): its subcommands are added by {@link Cli}. */
    CommandSpec spec() {
        CommandSpec s = Opt.command(this, "deja", DESCRIPTION);
        s.usageMessage()
                .footer(
                        "",
                        "Examples:",
                        "  deja scan haproxy.cfg",
                        "  deja scan --cluster --context prod",
                        "  helm template ingress ./chart | deja scan -",
                        "  deja explain IL-0264");
        Opt.standardHelpOptions(s);
        spec = s;
        return s;
    }

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
