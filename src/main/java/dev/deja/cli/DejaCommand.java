package dev.deja.cli;

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
public final class DejaCommand implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                spec.commandLine(), "a command is needed: scan, rules, cases, explain or prove");
    }
}
