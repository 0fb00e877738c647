package dev.deja.cli;

/** The documented exit codes (README, {@code --help}). */
public final class ExitCodes {
    public static final int OK = 0;
    public static final int FINDINGS = 1;
    public static final int USAGE = 2;
    public static final int INCOMPLETE = 3;
    public static final int INTERNAL = 4;

    /** For picocli's exitCodeList. */
    public static final String[] LIST = {
        " 0:no finding at or above --fail-on",
        " 1:findings at or above --fail-on (default medium)",
        " 2:usage or input error (bad option, unreadable or malformed file), or an output that could not be written"
                + " (a file, --report-configmap; the others are still written)",
        " 3:scan incomplete: a source or kind could not be read (findings still reported)",
        " 4:internal error",
    };

    /** For the commands that only print the catalog (rules, cases, explain): they never scan. */
    public static final String[] LIST_CATALOG = {
        " 0:printed",
        " 2:usage error (bad option or value, unknown rule or case id)",
        " 4:internal error",
    };

    /** deja report: fetches a kept report, never scans. */
    public static final String[] LIST_REPORT = {
        " 0:report written",
        " 2:usage or input error (bad option, no such ConfigMap or no HTML report in it, refused read, unreachable"
                + " API server, unwritable output)",
        " 4:internal error",
    };

    private ExitCodes() {
    }
}
