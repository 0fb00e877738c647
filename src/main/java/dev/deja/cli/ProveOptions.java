package dev.deja.cli;

import dev.deja.prove.Prover;
import dev.deja.prove.ScanProofs;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;

/** {@code deja scan --prove}: replay findings on the real haproxy and attach the evidence. */
final class ProveOptions {
    boolean prove;

    String proveDuration;

    String proveHaproxy;

    /** The options above, for picocli (see {@link Opt}). */
    void declare(CommandSpec s) {
        s.addOption(
                Opt.named("--prove")
                        .description(
                                "Replay the findings 'deja prove' covers on the real haproxy (loopback sandbox, before and after the fix) and attach the evidence to them (JSON evidence, SARIF properties, HTML, text)")
                        .flag(this, "prove"));
        s.addOption(
                Opt.named("--prove-duration")
                        .label("TIME")
                        .defaultValue("8s")
                        .description(
                                "With --prove: length of each run, at most 60s (default: ${DEFAULT-VALUE})")
                        .value(String.class, this, "proveDuration"));
        s.addOption(
                Opt.named("--prove-haproxy")
                        .label("PATH")
                        .description("With --prove: the haproxy binary (default: haproxy on PATH)")
                        .value(String.class, this, "proveHaproxy"));
    }

    /**
     * The prover's options, or null without --prove; a bad duration or no haproxy is exit 2 before
     * the scan.
     */
    Prover.Options options(int assumeClientRps, Map<String, String> env) {
        if (!prove) {
            return null;
        }
        Prover.Options o =
                ProveCommand.options(
                        null,
                        null,
                        proveDuration,
                        assumeClientRps,
                        20,
                        "2s",
                        "0ms",
                        false,
                        proveHaproxy);
        ScanProofs.checkHaproxy(proveHaproxy, env);
        return o;
    }
}
