package dev.deja.cli;

import dev.deja.engine.CaseInfo;
import dev.deja.engine.Catalog;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code deja cases}: the incident cases behind the rules. */
@Command(name = "cases", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "List the incident cases the rules come from.")
public final class CasesCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Catalog catalog = Catalog.packaged();
        PrintWriter out = spec.commandLine().getOut();
        int dw = catalog.cases().stream().mapToInt(c -> c.date().length()).max().orElse(10);
        int ow = catalog.cases().stream().mapToInt(c -> c.organisation().length()).max().orElse(10);
        for (CaseInfo c : catalog.cases()) {
            int n = catalog.rulesForCase(c.id()).size();
            out.printf(Locale.ROOT, "%s  %-" + dw + "s  %-" + ow + "s  %s (%d %s)%n", c.id(), c.date(), c.organisation(),
                    c.title(), n, n == 1 ? "rule" : "rules");
        }
        out.println("'deja explain <case-id>' tells the story.");
        out.flush();
        return ExitCodes.OK;
    }
}
