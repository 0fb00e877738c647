package dev.deja.cli;

import dev.deja.engine.CatalogException;
import dev.deja.engine.DidYouMean;
import dev.deja.engine.InputException;
import dev.deja.progress.StatusLine;
import dev.deja.report.TextReporter;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.InvalidPathException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * Builds the command line with injectable streams, so every command runs in-process in tests
 * exactly as from the shell. User errors become one line on stderr and exit 2; internal errors exit
 * 4 (with a stack trace only under {@code --verbose}).
 */
public final class Cli {
    private Cli() {}

    /**
     * Streams and environment a command runs with.
     *
     * @param tty stdin and stdout are a terminal (colour, the terminal's width)
     * @param status stderr's status line when stderr is a terminal (progress of long work,
     *     rewritten in place), else null: {@code err} writes through it
     */
    public record Io(
            PrintWriter out,
            PrintWriter err,
            InputStream in,
            Map<String, String> env,
            boolean tty,
            StatusLine status) {
        /** Without a status line (stderr is not a terminal). */
        public Io(
                PrintWriter out,
                PrintWriter err,
                InputStream in,
                Map<String, String> env,
                boolean tty) {
            this(out, err, in, env, tty, null);
        }

        public static Io system() {
            // the platform's encoding, as System.out and System.err themselves use on Java 17
            PrintWriter err = new PrintWriter(System.err, true, Charset.defaultCharset());
            StatusLine status = StatusLine.stderrIsTerminal() ? new StatusLine(err) : null;
            return new Io(
                    new PrintWriter(System.out, false, Charset.defaultCharset()),
                    status == null ? err : new PrintWriter(status, true),
                    System.in,
                    System.getenv(),
                    System.console() != null,
                    status);
        }
    }

    /** Subcommands by name; registered lazily (see {@link #commandLine(Io, String...)}). */
    static final Map<String, Class<?>> SUBCOMMANDS = new LinkedHashMap<>();

    static {
        SUBCOMMANDS.put("scan", ScanCommand.class);
        SUBCOMMANDS.put("rules", RulesCommand.class);
        SUBCOMMANDS.put("cases", CasesCommand.class);
        SUBCOMMANDS.put("explain", ExplainCommand.class);
        SUBCOMMANDS.put("prove", ProveCommand.class);
        SUBCOMMANDS.put("report", ReportCommand.class);
        SUBCOMMANDS.put("completion", CompletionCommand.class);
    }

    public static int run(Io io, String... args) {
        io = printableErr(io);
        int code;
        try {
            code = commandLine(io, args).execute(args);
        } catch (OutOfMemoryError e) {
            code = outOfMemory(io.err());
        }
        io.out().flush();
        io.err().flush();
        return code;
    }

    /**
     * The same streams with stderr passing no control character or escape sequence (a file name, a
     * HAProxy {@code .notice} or a server's message holding ESC [2J or OSC sequences is shown with
     * '?' in their place): diagnostics are read on a terminal. Newlines and tabs pass.
     */
    static Io printableErr(Io io) {
        PrintWriter err = new PrintWriter(new TextReporter.Printable(io.err(), false), true);
        return new Io(io.out(), err, io.in(), io.env(), io.tty(), io.status());
    }

    /**
     * One line instead of the JVM's trace: how big the heap was and how to give it more; exit 4.
     */
    static int outOfMemory(PrintWriter err) {
        long max = Runtime.getRuntime().maxMemory();
        err.println(
                "deja: out of memory (Java heap of "
                        + (max == Long.MAX_VALUE ? "unlimited" : (max >> 20) + " MiB")
                        + "): give it more, e.g. DEJA_JAVA_OPTS=-Xmx4g ./deja scan ... (or java -Xmx4g -jar deja.jar scan ...)");
        err.flush();
        return ExitCodes.INTERNAL;
    }

    private static boolean outOfMemory(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof OutOfMemoryError) {
                return true;
            }
        }
        return false;
    }

    /**
     * The command line for these arguments. Start-up is part of the product, and picocli's
     * reflection over a command's options is most of it: when the first argument names a subcommand
     * only that one is built; usage, --help and errors get them all.
     */
    public static CommandLine commandLine(Io io, String... args) {
        Factory factory = new Factory(io);
        CommandLine cmd = new CommandLine(new DejaCommand().spec(), factory);
        Class<?> only = args.length > 0 ? SUBCOMMANDS.get(args[0]) : null;
        boolean versionOnly =
                args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"));
        for (Map.Entry<String, Class<?>> e : SUBCOMMANDS.entrySet()) {
            if (!versionOnly && (only == null || only == e.getValue())) {
                try {
                    cmd.addSubcommand(e.getKey(), subcommand(e.getValue(), io, factory));
                } catch (Exception ex) {
                    throw new IllegalStateException("cannot create command " + e.getKey(), ex);
                }
            }
        }
        cmd.setOut(io.out());
        cmd.setErr(io.err());
        cmd.setCaseInsensitiveEnumValuesAllowed(true);
        // scan and report merge are built and parsed without picocli's interpolation (Opt.command);
        // their help, like every other, renders with it
        cmd.setHelpFactory((spec, scheme) -> new CommandLine.Help(Opt.interpolating(spec), scheme));
        exitCodeHelp(cmd);
        cmd.setParameterExceptionHandler((ex, badArgs) -> parameterError(cmd, ex, badArgs));
        cmd.setExecutionExceptionHandler(Cli::executionError);
        return cmd;
    }

    /**
     * A subcommand's command line: {@code deja scan} and {@code deja report merge} from their
     * declared model ({@link Opt}), the others from their annotations.
     */
    private static CommandLine subcommand(Class<?> cls, Io io, Factory factory) throws Exception {
        if (cls == ScanCommand.class) {
            return new CommandLine(new ScanCommand(io).spec(), factory);
        }
        CommandLine c = new CommandLine(factory.create(cls), factory);
        if (cls == ReportCommand.class) {
            c.addSubcommand("merge", new CommandLine(new ReportMergeCommand(io).spec(), factory));
        }
        return c;
    }

    /**
     * The exit codes in the help: deja --help and deja scan --help the scan's, rules, cases and
     * explain their own (they never scan); and the scan's options in their groups.
     */
    private static void exitCodeHelp(CommandLine cmd) {
        apply(
                cmd,
                "%nExit codes (deja scan; the other commands exit 0, 2 or 4):%n",
                codes(ExitCodes.LIST));
        for (Map.Entry<String, CommandLine> sub : cmd.getSubcommands().entrySet()) {
            String[] list =
                    switch (sub.getKey()) {
                        case "scan" -> ExitCodes.LIST;
                        case "report" -> ExitCodes.LIST_REPORT;
                        case "rules", "cases", "explain" -> ExitCodes.LIST_CATALOG;
                        case "completion" -> ExitCodes.LIST_COMPLETION;
                        default -> null; // a command that declares its own (prove)
                    };
            if (list != null) {
                apply(sub.getValue(), "%nExit codes:%n", codes(list));
            }
            if (sub.getKey().equals("scan")) {
                ScanHelp.groupOptions(sub.getValue());
            }
            CommandLine merge = sub.getValue().getSubcommands().get("merge");
            if (merge != null) {
                apply(merge, "%nExit codes:%n", codes(ExitCodes.LIST_MERGE));
            }
        }
    }

    /** A usage error: one line saying what is wrong (and what was meant), then where help is; 2. */
    private static int parameterError(
            CommandLine cmd, CommandLine.ParameterException ex, String[] badArgs) {
        CommandLine c = ex.getCommandLine();
        if (c == cmd
                && ex instanceof CommandLine.UnmatchedArgumentException
                && badArgs.length > 0
                && !badArgs[0].startsWith("-")
                && !SUBCOMMANDS.containsKey(badArgs[0])) {
            c.getErr()
                    .println(
                            "deja: unknown command '"
                                    + badArgs[0]
                                    + "' (expected "
                                    + String.join(", ", SUBCOMMANDS.keySet())
                                            .replaceFirst(", (\\w+)$", " or $1")
                                    + ")"
                                    + didYouMean(
                                            DidYouMean.closest(badArgs[0], SUBCOMMANDS.keySet())));
        } else if (ex.getArgSpec() != null
                && ex.getArgSpec().isOption()
                && ex.getMessage() != null
                && ex.getMessage().contains("should be in KEY=VALUE format but was ")) {
            // picocli says "Value for option option '--env' (KEY=VALUE) should be in KEY=VALUE
            // format but was PORT"
            String name = ((CommandLine.Model.OptionSpec) ex.getArgSpec()).longestName();
            String bad = ex.getMessage().substring(ex.getMessage().lastIndexOf(" but was ") + 9);
            c.getErr()
                    .println(
                            "deja: "
                                    + name
                                    + " "
                                    + bad
                                    + ": expected KEY=VALUE, e.g. "
                                    + name
                                    + " PORT=8080");
        } else if (ex instanceof CommandLine.UnmatchedArgumentException u
                && !u.getSuggestions().isEmpty()) {
            // picocli's own suggestions: the options (or subcommands) closest to it
            c.getErr()
                    .println(
                            "deja: "
                                    + ex.getMessage()
                                    + didYouMean(u.getSuggestions().stream().limit(3).toList()));
        } else {
            c.getErr().println("deja: " + ex.getMessage());
        }
        c.getErr().println("Try '" + c.getCommandSpec().qualifiedName() + " --help' for usage.");
        return ExitCodes.USAGE;
    }

    /** An error while running a command: one line, its exit code (2 for the user's, else 4). */
    private static int executionError(Exception ex, CommandLine c, CommandLine.ParseResult parsed) {
        PrintWriter err = c.getErr();
        if (ex instanceof InputException) {
            err.println("deja: " + ex.getMessage());
            return ExitCodes.USAGE;
        }
        if (outOfMemory(ex)) { // thrown on a worker thread and wrapped on its way here
            return outOfMemory(err);
        }
        if (ex instanceof InvalidPathException bad) {
            // a file name this JVM cannot turn into a path: under LC_ALL=C (or POSIX) Java 17
            // reads names as ASCII, so "dé.cfg" given or found in a folder is not a path it can
            // open
            err.println(
                    "deja: "
                            + bad.getInput()
                            + ": a file name the JVM cannot read in the locale's character set "
                            + System.getProperty("sun.jnu.encoding", "?")
                            + " (run with a UTF-8 locale, e.g. LC_ALL=C.UTF-8;"
                            + " the ./deja launcher does so when the locale is C or POSIX)");
            return ExitCodes.USAGE;
        }
        if (ex instanceof CatalogException) {
            err.println("deja: internal error: " + ex.getMessage());
            return ExitCodes.INTERNAL;
        }
        err.println(
                "deja: internal error: "
                        + ex
                        + " (run with --verbose for details; please report it)");
        if (verbose(parsed)) {
            ex.printStackTrace(err);
        }
        return ExitCodes.INTERNAL;
    }

    /** "; did you mean scan?" or "" for no suggestion. */
    static String didYouMean(List<String> suggestions) {
        if (suggestions.isEmpty()) {
            return "";
        }
        String list =
                suggestions.size() == 1
                        ? suggestions.get(0)
                        : String.join(", ", suggestions.subList(0, suggestions.size() - 1))
                                + " or "
                                + suggestions.get(suggestions.size() - 1);
        return "; did you mean " + list + "?";
    }

    private static Map<String, String> codes(String[] list) {
        Map<String, String> codes = new LinkedHashMap<>();
        for (String line : list) {
            int colon = line.indexOf(':');
            codes.put(line.substring(0, colon), line.substring(colon + 1));
        }
        return codes;
    }

    private static void apply(CommandLine cmd, String heading, Map<String, String> codes) {
        cmd.getCommandSpec().usageMessage().exitCodeListHeading(heading).exitCodeList(codes);
    }

    private static boolean verbose(CommandLine.ParseResult parsed) {
        CommandLine.ParseResult p = parsed;
        while (p != null) {
            if (p.hasMatchedOption("--verbose")) {
                return true;
            }
            p = p.subcommand();
        }
        return false;
    }

    /** Gives commands the streams; picocli's default factory otherwise. */
    static final class Factory implements CommandLine.IFactory {
        private final Io io;

        Factory(Io io) {
            this.io = io;
        }

        @Override
        public <K> K create(Class<K> cls) throws Exception {
            if (cls == ReportCommand.class) {
                return cls.cast(new ReportCommand(io));
            }
            if (cls == ProveCommand.class) {
                return cls.cast(new ProveCommand(io));
            }
            if (cls == CompletionCommand.class) {
                return cls.cast(new CompletionCommand(io));
            }
            return CommandLine.defaultFactory().create(cls);
        }
    }
}
