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
        " 2:usage or input error (bad option, unreadable or malformed file; with --allow-partial such a file is"
                + " 'not checked' and the others are scanned), or an output that could not be written"
                + " (a file, --report-configmap, an s3:// upload: the report is then kept in a local file named on"
                + " stderr; the others are still written)",
        " 3:scan incomplete: a source or kind could not be read (findings still reported; --allow-partial: only"
                + " when nothing at all could be read)",
        " 4:internal error",
    };

    /** For the commands that only print the catalog (rules, cases, explain): they never scan. */
    public static final String[] LIST_CATALOG = {
        " 0:printed",
        " 2:usage error (bad option or value, unknown rule or case id)",
        " 4:internal error",
    };

    /** deja completion: prints a script. */
    public static final String[] LIST_COMPLETION = {
        " 0:printed", " 2:usage error (unknown shell)", " 4:internal error",
    };

    /** deja report: fetches a kept report, never scans. */
    public static final String[] LIST_REPORT = {
        " 0:report written",
        " 2:usage or input error (bad option, no such ConfigMap or no HTML report in it, refused read, unreachable"
                + " API server, unwritable output)",
        " 4:internal error",
    };

    /** deja report merge: merges kept reports into a fleet report. */
    public static final String[] LIST_MERGE = {
        " 0:fleet report written",
        " 1:a merged finding is at or above --fail-on (default none)",
        " 2:usage or input error (bad option, no report found, an S3 prefix that cannot be listed, an output not"
                + " written); or an input that is not a deja JSON report: each is named on stderr, the others are"
                + " still merged and the report written",
        " 3:fleet incomplete: a target's latest report is older than --stale, or its scan was incomplete (the report"
                + " is written; --allow-partial accepts this)",
        " 4:internal error",
    };

    private ExitCodes() {}
}
