package dev.deja;

import dev.deja.cli.Cli;
import dev.deja.cli.VersionProvider;
import dev.deja.cli.WarmUp;
import dev.deja.engine.Catalog;
import java.util.ArrayList;
import java.util.List;

/** Entry point: run the command line, exit with its code. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
            // the answer needs nothing of the command-line machinery: answer at JVM start-up speed
            for (String line : new VersionProvider().getVersion()) {
                System.out.println(line);
            }
            return;
        }
        if (System.getProperty("picocli.converters.excludes") == null) {
            // no option of deja's is a date, a time or a JDBC type: picocli need not look up and
            // initialise the 25 java.time and java.sql classes it has converters for
            // (DateTimeFormatter's
            // own start-up among them; about 80 classes fewer loaded by a scan of a file)
            System.setProperty("picocli.converters.excludes", "java\\.sql\\..*,java\\.time\\..*");
        }
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            // third-party logging stays silent unless --verbose raises it
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "off");
            System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        }
        // not with --verbose: the warm-up would initialise the libraries' logging before the level
        // is raised
        boolean cluster =
                args.length > 1
                        && args[0].equals("scan")
                        && List.of(args).contains("--cluster")
                        && !List.of(args).contains("--verbose");
        if (cluster || args.length > 0 && args[0].equals("scan")) {
            List<String> list = List.of(args);
            Thread warm = new Thread(() -> warmUp(cluster, list), "deja-warm-up");
            warm.setDaemon(true);
            warm.start();
        }
        int code = Cli.run(Cli.Io.system(), args);
        stopHttpSelectors();
        System.exit(code);
    }

    /**
     * A scan: the packaged rule catalog is read on the second core while picocli parses the
     * arguments (the scan's first step waits for it; ~20 ms of a 50-line scan); with a deja.yaml
     * the YAML reader is made ready too, and for a live cluster scan what it needs first is loaded.
     */
    private static void warmUp(boolean cluster, List<String> args) {
        try {
            Catalog.packaged(); // cached: the scan's own call takes this one, or reads it again
            if (WarmUp.readsConfigFile(args)) {
                WarmUp.configFile();
            }
            if (cluster) {
                WarmUp.liveCluster();
            }
        } catch (RuntimeException | LinkageError e) {
            // only a head start: the scan itself reports whatever is really wrong
        }
    }

    /**
     * Java 17's {@code java.net.http.HttpClient} cannot be closed: its selector thread stays in
     * native code (epoll) until the client is garbage collected, and at exit the JVM waits up to
     * 300 ms for threads in native code to block. Interrupting the selector thread ends it (and its
     * client, which is no longer used once the command has returned), so a live scan exits at once.
     */
    public static void stopHttpSelectors() {
        List<Thread> selectors = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("HttpClient-") && t.getName().endsWith("-SelectorManager")) {
                t.interrupt();
                selectors.add(t);
            }
        }
        for (Thread t : selectors) {
            try {
                t.join(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
