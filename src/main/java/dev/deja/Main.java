package dev.deja;

import dev.deja.cli.Cli;

/** Entry point: run the command line, exit with its code. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
            // the answer needs nothing of the command-line machinery: answer at JVM start-up speed
            for (String line : new dev.deja.cli.VersionProvider().getVersion()) {
                System.out.println(line);
            }
            return;
        }
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            // third-party logging stays silent unless --verbose raises it
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "off");
            System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        }
        System.exit(Cli.run(Cli.Io.system(), args));
    }
}
