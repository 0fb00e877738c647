package dev.deja.engine;

import java.util.Comparator;
import java.util.List;

/**
 * One risk found in the user's infrastructure. The message names the object and shows the numbers behind the
 * verdict; {@code related} lists other objects involved (e.g. the other frontend, the AWS load balancer behind a
 * Service); {@code notes} carries caveats (an undecided {@code .if} branch, an unresolved variable).
 */
public record Finding(String ruleId, Severity severity, List<String> caseIds, String message, String remediation,
                      Location location, List<String> related, List<String> notes) implements Comparable<Finding> {

    public Finding {
        caseIds = List.copyOf(caseIds);
        related = List.copyOf(related);
        notes = List.copyOf(notes);
    }

    public Finding withSeverity(Severity s) {
        return new Finding(ruleId, s, caseIds, message, remediation, location, related, notes);
    }

    public Finding withLocation(Location l) {
        return new Finding(ruleId, severity, caseIds, message, remediation, l, related, notes);
    }

    public Finding withRelated(List<String> r) {
        return new Finding(ruleId, severity, caseIds, message, remediation, location, r, notes);
    }

    /**
     * Stable identity for baselines: rule, object and message, without what moves when a file is edited (line
     * numbers, also inside the message as "haproxy.cfg:12" or "line 12"). Numbers in the message stay: a changed
     * number is a changed verdict.
     */
    public String fingerprint() {
        return fingerprint(ruleId, location, message);
    }

    /** The fingerprint of a finding given by its parts (e.g. read back from a JSON report). */
    public static String fingerprint(String ruleId, Location location, String message) {
        String object = location.arn() != null ? location.arn()
                : (location.kind() != null || location.name() != null)
                        ? location.kind() + "/" + location.namespace() + "/" + location.name()
                        : String.valueOf(location.file());
        String where = location.file() == null ? "" : location.file() + (location.key() == null ? "" : "#" + location.key());
        return ruleId + "|" + object + "|" + where + "|" + withoutLineNumbers(message);
    }

    private static final java.util.regex.Pattern FILE_LINE =
            java.util.regex.Pattern.compile("(\\.[A-Za-z0-9_-]+|#[^\\s:]+):\\d+(?::\\d+)?");
    private static final java.util.regex.Pattern LINE_WORD =
            java.util.regex.Pattern.compile("(?i)\\b(lines?) \\d+(?:(?:-|\\.\\.| and | to )\\d+)?");

    static String withoutLineNumbers(String message) {
        if (message == null) {
            return "";
        }
        String m = FILE_LINE.matcher(message).replaceAll("$1");
        return LINE_WORD.matcher(m).replaceAll("$1 _");
    }

    /** Most severe first, then by location, rule and message: the same input always gives the same order. */
    public static final Comparator<Finding> ORDER = Comparator
            .comparing(Finding::severity, Comparator.reverseOrder())
            .thenComparing(Finding::location)
            .thenComparing(Finding::ruleId)
            .thenComparing(Finding::message);

    @Override
    public int compareTo(Finding o) {
        return ORDER.compare(this, o);
    }
}
