package dev.deja.cli;

import dev.deja.engine.InputException;
import dev.deja.model.haproxy.Times;
import dev.deja.progress.Phases;
import dev.deja.prove.ProveReport;
import dev.deja.prove.Prover;
import dev.deja.report.JsonText;
import dev.deja.source.InputFiles;
import dev.deja.source.OpenDeadline;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code deja prove}: replay IL-0264 against the user's own HAProxy config on the real haproxy,
 * before and after the fix.
 */
@Command(
        name = "prove",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        sortOptions = false,
        description = {
            "Replay the IL-0264 outage against your own HAProxy config on the real haproxy, in a loopback"
                    + " sandbox: a before run on your config and an after run with the rule's fix applied, same workload,"
                    + " and a verdict per finding (reproduced, not-reproduced, inconclusive, could-not-run), with the margin:"
                    + " the client rate at which legitimate traffic starts failing.",
            "Proves haproxy-tarpit-holds-slots (a flood), haproxy-missing-http-request-timeout (slow clients) and"
                    + " haproxy-maxconn-headroom (when the flood fills the slots).",
            "Safe: haproxy runs a configuration deja writes from what it read of yours (nothing it could not read is"
                    + " run), with no environment, under bubblewrap where available; loopback only, your servers are"
                    + " replaced by a local stub, every run is bounded, and haproxy dies with deja however deja ends."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            " 0:nothing reproduced",
            " 1:a finding was reproduced",
            " 2:usage or input error; no haproxy (install it or give --haproxy); haproxy -c rejected the sandbox;"
                    + " a keyword that is a variable",
            " 3:a proof could not run or was inconclusive (the report says why)",
            " 4:internal error"
        })
public final class ProveCommand implements Callable<Integer> {
    private final Cli.Io io;

    ProveCommand(Cli.Io io) {
        this.io = io;
    }

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "HAPROXY_CFG", description = "The haproxy.cfg to prove against")
    Path config;

    @Option(
            names = "--verbose",
            description =
                    "Tell each phase on stderr, a line each, also when stderr is not a terminal"
                            + " (on a terminal the status line shows them anyway).")
    boolean verbose;

    @Option(
            names = "--frontend",
            paramLabel = "NAME",
            description =
                    "Frontend or listen under test (default: the first that tarpits, else the first HTTP one)")
    String frontend;

    @Option(
            names = "--rule",
            paramLabel = "ID",
            description = "Prove only this rule (default: every provable rule that applies)")
    String rule;

    @Option(
            names = "--duration",
            paramLabel = "TIME",
            defaultValue = "8s",
            description = "Length of each run, at most 60s (default: ${DEFAULT-VALUE})")
    String duration;

    @Option(
            names = "--client-rps",
            paramLabel = "N",
            defaultValue = "300",
            description =
                    "Request rate of the abusive client (default: ${DEFAULT-VALUE}, as in IL-0264)")
    double clientRps;

    @Option(
            names = "--legit-rps",
            paramLabel = "N",
            defaultValue = "20",
            description =
                    "Request rate of the legitimate clients together (default: ${DEFAULT-VALUE})")
    double legitRps;

    @Option(
            names = "--legit-timeout",
            paramLabel = "TIME",
            defaultValue = "2s",
            description =
                    "How long a legitimate client waits for an answer (default: ${DEFAULT-VALUE})")
    String legitTimeout;

    @Option(
            names = "--service-time",
            paramLabel = "TIME",
            defaultValue = "0ms",
            description = "How long the stub backend takes to answer (default: ${DEFAULT-VALUE})")
    String serviceTime;

    @Option(
            names = "--find-limit",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "The margin (on by default; --no-find-limit turns it off): in at most 4 more runs, the client"
                            + " rate at which legitimate traffic starts failing before the fix, and whether the fix"
                            + " holds up to 5000 req/s")
    boolean findLimit;

    @Option(
            names = "--haproxy",
            paramLabel = "PATH",
            description = "The haproxy binary (default: haproxy on PATH)")
    String haproxy;

    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            defaultValue = "text",
            description = "Output format: text, json, html (default: ${DEFAULT-VALUE})")
    String format;

    @Option(
            names = {"-o", "--output-file"},
            paramLabel = "FILE",
            description = "Write the report to FILE instead of stdout")
    Path outputFile;

    @Override
    public Integer call() throws IOException {
        String fmt = format.toLowerCase(Locale.ROOT);
        if (!fmt.equals("text") && !fmt.equals("json") && !fmt.equals("html")) {
            throw new InputException(
                    "--format: unknown format '" + format + "' (expected text, json or html)");
        }
        Prover.Options opts =
                options(
                        frontend,
                        rule,
                        duration,
                        clientRps,
                        legitRps,
                        legitTimeout,
                        serviceTime,
                        findLimit,
                        haproxy);
        boolean legitGiven =
                spec != null && spec.commandLine().getParseResult().hasMatchedOption("--legit-rps");
        opts =
                new Prover.Options(
                        opts.frontend(),
                        opts.rule(),
                        opts.durationMs(),
                        opts.clientRps(),
                        opts.legitRps(),
                        opts.legitTimeoutMs(),
                        opts.serviceTimeMs(),
                        opts.findLimit(),
                        opts.haproxy(),
                        legitGiven);
        String text = read(config);
        ProveReport report;
        try (PrintWriter progress = progress(io, verbose)) {
            report = Prover.prove(config.toString(), text, opts, io.env(), progress);
        }
        String out =
                switch (fmt) {
                    case "json" -> {
                        StringWriter w = new StringWriter();
                        JsonText.writePretty(report.json(), w);
                        yield w.toString();
                    }
                    case "html" -> report.html();
                    default -> report.text();
                };
        if (outputFile != null && !outputFile.toString().equals("-")) {
            try {
                OpenDeadline.writeString(outputFile, out, OpenDeadline.millis(io.env()));
            } catch (IOException e) {
                throw new InputException(
                        "-o " + outputFile + ": cannot write the report: " + e.getMessage());
            }
        } else {
            io.out().write(out);
            io.out().flush();
        }
        return report.exitCode();
    }

    /**
     * Where the phases of a proof are told ("deja: prove: before: haproxy on 127.0.0.1:41234"): on
     * a terminal the status line, the phase in place with its seconds (a proof takes tens of them),
     * erased when the writer is closed; piped or in a CI log nowhere, as a log wants no line per
     * phase (the report says what ran). Shared with {@code deja scan --prove}.
     */
    static PrintWriter progress(Cli.Io io) {
        return progress(io, false);
    }

    /**
     * The same; with {@code verbose} the phases go to stderr a line each when not on a terminal.
     */
    static PrintWriter progress(Cli.Io io, boolean verbose) {
        if (io.status() == null) {
            if (!verbose) {
                return new PrintWriter(Writer.nullWriter());
            }
            PrintWriter err = io.err();
            return new PrintWriter(
                    new Writer() { // closing the phases must not close stderr
                        @Override
                        public void write(char[] b, int off, int len) {
                            err.write(b, off, len);
                        }

                        @Override
                        public void flush() {
                            err.flush();
                        }

                        @Override
                        public void close() {
                            err.flush();
                        }
                    },
                    true);
        }
        return new PrintWriter(new Phases(io.status()), true);
    }

    /** Checked options (exit 2 on a bad value); shared with {@code deja scan --prove}. */
    static Prover.Options options(
            String frontend,
            String rule,
            String duration,
            double clientRps,
            double legitRps,
            String legitTimeout,
            String serviceTime,
            boolean findLimit,
            String haproxy) {
        long d = time(duration, "--duration");
        if (d < 500 || d > 60_000) {
            throw new InputException("--duration " + duration + ": between 500ms and 60s");
        }
        if (!(clientRps >= 1 && clientRps <= 20_000)) {
            throw new InputException("--client-rps: between 1 and 20000 requests per second");
        }
        if (!(legitRps >= 1 && legitRps <= 1000)) {
            throw new InputException("--legit-rps: between 1 and 1000 requests per second");
        }
        long lt = time(legitTimeout, "--legit-timeout");
        if (lt < 10 || lt > 60_000) {
            throw new InputException("--legit-timeout " + legitTimeout + ": between 10ms and 60s");
        }
        long st = time(serviceTime, "--service-time");
        if (st > 10_000) {
            throw new InputException("--service-time " + serviceTime + ": at most 10s");
        }
        if (rule != null && !Prover.RULES.contains(rule)) {
            throw new InputException(
                    "--rule " + rule + ": deja proves " + String.join(", ", Prover.RULES));
        }
        return new Prover.Options(
                frontend, rule, d, clientRps, legitRps, lt, st, findLimit, haproxy);
    }

    private static long time(String v, String option) {
        long ms = Times.millis(v == null ? null : v.strip());
        if (ms < 0) {
            throw new InputException(option + " " + v + ": not a time (e.g. 8s, 500ms)");
        }
        return ms;
    }

    /**
     * The config as text, bounded like every file deja reads (a pipe or /dev/zero ends with exit
     * 2).
     */
    static String read(Path p) {
        return InputFiles.read(p, p.toString()).text();
    }
}
