package dev.deja.cli;

import dev.deja.engine.InputException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code deja completion bash|zsh|fish}: a shell completion script on stdout. bash and zsh get
 * picocli's generated script ({@link AutoComplete#bash}), which zsh runs through its bash
 * compatibility ({@code bashcompinit}, which the script turns on itself); picocli generates nothing
 * for fish, so the fish script is written here from the same command model: the subcommands, their
 * options and the values of those that have a fixed set.
 */
@Command(
        name = "completion",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {
            "Print a shell completion script for deja (commands, options and their values).",
        },
        footer = {
            "",
            "Load it:",
            "  bash:  source <(deja completion bash)      (or save it in /etc/bash_completion.d/deja)",
            "  zsh:   source <(deja completion zsh)       (bash-style completion, through bashcompinit)",
            "  fish:  deja completion fish > ~/.config/fish/completions/deja.fish"
        })
public final class CompletionCommand implements Callable<Integer> {
    static final List<String> SHELLS = List.of("bash", "zsh", "fish");

    private final Cli.Io io;

    CompletionCommand(Cli.Io io) {
        this.io = io;
    }

    @Spec CommandSpec spec;

    @Parameters(
            paramLabel = "SHELL",
            description = "bash, zsh or fish",
            completionCandidates = Shells.class)
    String shell;

    /** The shells, for the completion of this command itself. */
    static final class Shells extends ArrayList<String> {
        private static final long serialVersionUID = 1L;

        Shells() {
            super(SHELLS);
        }
    }

    @Override
    public Integer call() {
        String s = shell.toLowerCase(Locale.ROOT);
        if (!SHELLS.contains(s)) {
            throw new InputException(
                    "completion: unknown shell '" + shell + "' (expected bash, zsh or fish)");
        }
        // every command, whatever this run built (a run of one command builds only that one)
        CommandLine all = Cli.commandLine(io);
        Opt.interpolating(all.getCommandSpec()); // the descriptions as the help renders them
        PrintWriter out = spec.commandLine().getOut();
        out.print(s.equals("fish") ? fish(all) : AutoComplete.bash("deja", all));
        out.flush();
        return ExitCodes.OK;
    }

    /** A fish completion script for the command and its subcommands (one level, as deja has). */
    static String fish(CommandLine root) {
        StringBuilder sb = new StringBuilder();
        sb.append("# fish completion for deja (deja completion fish)\n");
        sb.append("complete -c deja -e\n");
        Map<String, CommandLine> subs = root.getSubcommands();
        String none = "__fish_use_subcommand";
        for (Map.Entry<String, CommandLine> e : subs.entrySet()) {
            sb.append("complete -c deja -f -n ")
                    .append(none)
                    .append(" -a ")
                    .append(quote(e.getKey()))
                    .append(" -d ")
                    .append(quote(firstLine(e.getValue().getCommandSpec())))
                    .append('\n');
        }
        options(sb, root.getCommandSpec(), none);
        for (Map.Entry<String, CommandLine> e : subs.entrySet()) {
            String when = "'__fish_seen_subcommand_from " + e.getKey() + "'";
            CommandSpec sub = e.getValue().getCommandSpec();
            options(sb, sub, when);
            for (Map.Entry<String, CommandLine> n : e.getValue().getSubcommands().entrySet()) {
                sb.append("complete -c deja -f -n ")
                        .append(when)
                        .append(" -a ")
                        .append(quote(n.getKey()))
                        .append(" -d ")
                        .append(quote(firstLine(n.getValue().getCommandSpec())))
                        .append('\n');
            }
            // positional values with a fixed set (deja completion SHELL)
            sub.positionalParameters().stream()
                    .filter(p -> p.completionCandidates() != null)
                    .forEach(
                            p -> {
                                List<String> values = new ArrayList<>();
                                p.completionCandidates().forEach(values::add);
                                sb.append("complete -c deja -f -n ")
                                        .append(when)
                                        .append(" -a ")
                                        .append(quote(String.join(" ", values)))
                                        .append('\n');
                            });
        }
        return sb.toString();
    }

    private static void options(StringBuilder sb, CommandSpec spec, String when) {
        for (OptionSpec o : spec.options()) {
            if (o.hidden()) {
                continue;
            }
            sb.append("complete -c deja -n ").append(when);
            for (String name : o.names()) {
                if (name.startsWith("--")) {
                    sb.append(" -l ").append(quote(name.substring(2)));
                } else if (name.startsWith("-") && name.length() == 2) {
                    sb.append(" -s ").append(quote(name.substring(1)));
                }
            }
            if (o.description().length > 0) {
                sb.append(" -d ").append(quote(o.description()[0]));
            }
            if (o.arity().max() > 0 && !o.type().equals(boolean.class)) {
                sb.append(" -r");
                if (o.completionCandidates() != null) {
                    List<String> values = new ArrayList<>();
                    o.completionCandidates().forEach(values::add);
                    sb.append(" -f -a ").append(quote(String.join(" ", values)));
                }
            }
            sb.append('\n');
        }
    }

    private static String firstLine(CommandSpec spec) {
        String[] d = spec.usageMessage().description();
        return d.length == 0 ? spec.name() : d[0];
    }

    /**
     * A fish single-quoted word: backslash and quote escaped; picocli's ${DEFAULT-VALUE} and
     * ${COMPLETION-CANDIDATES} left as they read, first sentence only (a description, not a page).
     */
    static String quote(String s) {
        String t = s.replaceAll("\\s+", " ").strip();
        int stop = t.indexOf(". ");
        if (stop > 0) {
            t = t.substring(0, stop + 1);
        }
        if (t.length() > 120) {
            t = t.substring(0, 117) + "...";
        }
        return "'" + t.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
