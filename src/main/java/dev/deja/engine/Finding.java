package dev.deja.engine;

import java.util.Comparator;
import java.util.List;

/**
 * One risk found in the user's infrastructure. The message names the object and shows the numbers behind the
 * verdict; {@code related} lists other objects involved (e.g. the other frontend, the AWS load balancer behind a
 * Service); {@code notes} carries caveats (an undecided {@code .if} branch, an unresolved variable).
 *
 * @param key the stable part of the finding that tells it from the rule's other findings on the same object
 *            ("container envoy readinessProbe", "no-pdb"), never a number that changes with scale; null when the
 *            rule gives none (see {@link #fingerprint()})
 * @param target the cluster or AWS account the object belongs to when the run read live targets; null for files.
 *               Not part of the {@link #fingerprint()}: the same problem in two clusters has one fingerprint, and
 *               identity in a fleet is (target, fingerprint)
 */
public record Finding(String ruleId, Severity severity, List<String> caseIds, String message, String remediation,
                      Location location, List<String> related, List<String> notes, String key, Target target)
        implements Comparable<Finding> {

    public Finding {
        caseIds = List.copyOf(caseIds);
        related = List.copyOf(related);
        notes = List.copyOf(notes);
    }

    /** A finding without a target (files, or a run of one live target before it is stamped). */
    public Finding(String ruleId, Severity severity, List<String> caseIds, String message, String remediation,
                   Location location, List<String> related, List<String> notes, String key) {
        this(ruleId, severity, caseIds, message, remediation, location, related, notes, key, null);
    }

    /** A finding without a key. */
    public Finding(String ruleId, Severity severity, List<String> caseIds, String message, String remediation,
                   Location location, List<String> related, List<String> notes) {
        this(ruleId, severity, caseIds, message, remediation, location, related, notes, null, null);
    }

    public Finding withSeverity(Severity s) {
        return new Finding(ruleId, s, caseIds, message, remediation, location, related, notes, key, target);
    }

    public Finding withLocation(Location l) {
        return new Finding(ruleId, severity, caseIds, message, remediation, l, related, notes, key, target);
    }

    public Finding withRelated(List<String> r) {
        return new Finding(ruleId, severity, caseIds, message, remediation, location, r, notes, key, target);
    }

    public Finding withTarget(Target t) {
        return new Finding(ruleId, severity, caseIds, message, remediation, location, related, notes, key, t);
    }

    /** The target's key ("c:prod") and the fingerprint: identity across the targets of a fleet. */
    public String targetedFingerprint() {
        return target == null ? fingerprint() : target.key() + "|" + fingerprint();
    }

    /**
     * Stable identity for baselines: rule, object (kind/namespace/name or ARN), file (and ConfigMap key), and the
     * stable part of the finding: its {@link #key()} when the rule gives one, else the message without line numbers
     * ("haproxy.cfg:12", "line 12") and with every other number masked. Never a number: scaling a Deployment from 3
     * to 5 replicas, or a new maxconn, keeps an unchanged problem unchanged.
     */
    public String fingerprint() {
        return fingerprint(ruleId, location, key, message);
    }

    /** The fingerprint of a finding given by its parts (e.g. read back from a JSON report). */
    public static String fingerprint(String ruleId, Location location, String key, String message) {
        return identity(ruleId, location) + "|" + (key != null ? "k:" + key
                : "m:" + NUMBER.matcher(withoutLineNumbers(message)).replaceAll("#"));
    }

    /**
     * The fingerprint deja 1.0 reports used (rule, object, file and the message without line numbers, its numbers
     * kept), so that a baseline written by them still matches the findings that did not change.
     */
    public String legacyFingerprint() {
        return legacyFingerprint(ruleId, location, message);
    }

    public static String legacyFingerprint(String ruleId, Location location, String message) {
        return identity(ruleId, location) + "|" + withoutLineNumbers(message);
    }

    private static String identity(String ruleId, Location location) {
        String object = location.arn() != null ? location.arn()
                : (location.kind() != null || location.name() != null)
                        ? location.kind() + "/" + location.namespace() + "/" + location.name()
                        : String.valueOf(location.file());
        String where = location.file() == null ? "" : location.file() + (location.key() == null ? "" : "#" + location.key());
        return ruleId + "|" + object + "|" + where;
    }

    private static final java.util.regex.Pattern NUMBER = java.util.regex.Pattern.compile("\\d+");
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
            .thenComparing(Finding::target, Target.NULLS_FIRST)
            .thenComparing(Finding::location)
            .thenComparing(Finding::ruleId)
            .thenComparing(Finding::message);

    @Override
    public int compareTo(Finding o) {
        return ORDER.compare(this, o);
    }
}
