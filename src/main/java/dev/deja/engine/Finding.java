package dev.deja.engine;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * One risk found in the user's infrastructure. The message names the object and shows the numbers
 * behind the verdict; {@code related} lists other objects involved (e.g. the other frontend, the
 * AWS load balancer behind a Service); {@code notes} carries caveats (an undecided {@code .if}
 * branch, an unresolved variable).
 *
 * @param key the stable part of the finding that tells it from the rule's other findings on the
 *     same object ("container envoy readinessProbe", "no-pdb"), never a number that changes with
 *     scale; null when the rule gives none (see {@link #fingerprint()})
 * @param target the cluster or AWS account the object belongs to when the run read live targets;
 *     null for files. Not part of the {@link #fingerprint()}: the same problem in two clusters has
 *     one fingerprint, and identity in a fleet is (target, fingerprint)
 * @param figure the finding's numbers as data for reports that draw them, or null; not part of the
 *     fingerprint
 * @param fixInputs the values that fill the holes of the rule's {@code fix:} steps for this finding
 *     (the container, the probe, the replicas to run), as {@link Fix#applyTo} reads them; empty
 *     when the rule has no such fix. Not part of the fingerprint and not written by reports.
 */
public record Finding(
        String ruleId,
        Severity severity,
        List<String> caseIds,
        String message,
        String remediation,
        Location location,
        List<String> related,
        List<String> notes,
        String key,
        Target target,
        Figure figure,
        Map<String, Object> fixInputs)
        implements Comparable<Finding> {

    public Finding {
        caseIds = List.copyOf(caseIds);
        related = List.copyOf(related);
        notes = List.copyOf(notes);
        fixInputs = Map.copyOf(fixInputs);
    }

    /** A finding whose rule's fix needs no input. */
    public Finding(
            String ruleId,
            Severity severity,
            List<String> caseIds,
            String message,
            String remediation,
            Location location,
            List<String> related,
            List<String> notes,
            String key,
            Target target,
            Figure figure) {
        this(
                ruleId,
                severity,
                caseIds,
                message,
                remediation,
                location,
                related,
                notes,
                key,
                target,
                figure,
                Map.of());
    }

    /** A finding without a figure. */
    public Finding(
            String ruleId,
            Severity severity,
            List<String> caseIds,
            String message,
            String remediation,
            Location location,
            List<String> related,
            List<String> notes,
            String key,
            Target target) {
        this(
                ruleId,
                severity,
                caseIds,
                message,
                remediation,
                location,
                related,
                notes,
                key,
                target,
                null);
    }

    /** A finding without a target (files, or a run of one live target before it is stamped). */
    public Finding(
            String ruleId,
            Severity severity,
            List<String> caseIds,
            String message,
            String remediation,
            Location location,
            List<String> related,
            List<String> notes,
            String key) {
        this(ruleId, severity, caseIds, message, remediation, location, related, notes, key, null);
    }

    /** A finding without a key. */
    public Finding(
            String ruleId,
            Severity severity,
            List<String> caseIds,
            String message,
            String remediation,
            Location location,
            List<String> related,
            List<String> notes) {
        this(ruleId, severity, caseIds, message, remediation, location, related, notes, null, null);
    }

    public Finding withSeverity(Severity s) {
        return new Finding(
                ruleId,
                s,
                caseIds,
                message,
                remediation,
                location,
                related,
                notes,
                key,
                target,
                figure,
                fixInputs);
    }

    public Finding withLocation(Location l) {
        return new Finding(
                ruleId,
                severity,
                caseIds,
                message,
                remediation,
                l,
                related,
                notes,
                key,
                target,
                figure,
                fixInputs);
    }

    public Finding withRelated(List<String> r) {
        return new Finding(
                ruleId,
                severity,
                caseIds,
                message,
                remediation,
                location,
                r,
                notes,
                key,
                target,
                figure,
                fixInputs);
    }

    public Finding withTarget(Target t) {
        return new Finding(
                ruleId,
                severity,
                caseIds,
                message,
                remediation,
                location,
                related,
                notes,
                key,
                t,
                figure,
                fixInputs);
    }

    /** The same finding with the inputs of its rule's fix ({@link #fixInputs()}). */
    public Finding withFixInputs(Map<String, Object> inputs) {
        return new Finding(
                ruleId,
                severity,
                caseIds,
                message,
                remediation,
                location,
                related,
                notes,
                key,
                target,
                figure,
                inputs);
    }

    /** The same finding with the numbers a report draws. */
    public Finding withFigure(Figure f) {
        return new Finding(
                ruleId,
                severity,
                caseIds,
                message,
                remediation,
                location,
                related,
                notes,
                key,
                target,
                f,
                fixInputs);
    }

    /**
     * The rule, the location's fields and the message: two findings with equal keys say the same of
     * one object (an object judged once per path through undecided .if blocks). A list of the
     * fields, not the records' generated hashCode: bootstrapping that costs a cold run tens of
     * milliseconds.
     */
    public List<Object> sameFindingKey() {
        Location l = location;
        return Arrays.asList(
                ruleId,
                l.file(),
                l.line(),
                l.kind(),
                l.namespace(),
                l.name(),
                l.key(),
                l.arn(),
                l.region(),
                message);
    }

    /** The target's key ("c:prod") and the fingerprint: identity across the targets of a fleet. */
    public String targetedFingerprint() {
        return target == null ? fingerprint() : target.key() + "|" + fingerprint();
    }

    /**
     * Stable identity for baselines: rule, object (kind/namespace/name or ARN), file (and ConfigMap
     * key), and the stable part of the finding: its {@link #key()} when the rule gives one, else
     * the message without line numbers ("haproxy.cfg:12", "line 12") and with every other number
     * masked. Never a number: scaling a Deployment from 3 to 5 replicas, or a new maxconn, keeps an
     * unchanged problem unchanged.
     */
    public String fingerprint() {
        return fingerprint(ruleId, location, key, message);
    }

    /** The fingerprint of a finding given by its parts (e.g. read back from a JSON report). */
    public static String fingerprint(String ruleId, Location location, String key, String message) {
        return identity(ruleId, location)
                + "|"
                + (key != null ? "k:" + key : "m:" + maskNumbers(withoutLineNumbers(message)));
    }

    /**
     * The fingerprint deja 1.0 reports used (rule, object, file and the message without line
     * numbers, its numbers kept), so that a baseline written by them still matches the findings
     * that did not change.
     */
    public String legacyFingerprint() {
        return legacyFingerprint(ruleId, location, message);
    }

    public static String legacyFingerprint(String ruleId, Location location, String message) {
        return identity(ruleId, location) + "|" + withoutLineNumbers(message);
    }

    private static String identity(String ruleId, Location location) {
        String object =
                location.arn() != null
                        ? location.arn()
                        : (location.kind() != null || location.name() != null)
                                ? location.kind()
                                        + "/"
                                        + location.namespace()
                                        + "/"
                                        + location.name()
                                : String.valueOf(location.file());
        String where =
                location.file() == null
                        ? ""
                        : location.file() + (location.key() == null ? "" : "#" + location.key());
        return ruleId + "|" + object + "|" + where;
    }

    /*
     * The masking below is hand-written: the regular expressions it replaces (kept in FindingTest as the reference it
     * is checked against) cost ~0.1 ms per message in a short run's cold JVM, 0.3 s for 2,500 findings.
     */

    /** Every run of ASCII digits replaced by '#' (the regex {@code \d+} -> {@code #}). */
    static String maskNumbers(String s) {
        StringBuilder sb = null;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            if (digit(s.charAt(i))) {
                if (sb == null) {
                    sb = new StringBuilder(n).append(s, 0, i);
                }
                sb.append('#');
                while (i + 1 < n && digit(s.charAt(i + 1))) {
                    i++;
                }
            } else if (sb != null) {
                sb.append(s.charAt(i));
            }
        }
        return sb == null ? s : sb.toString();
    }

    /**
     * The message without line numbers: "haproxy.cfg:12" and "haproxy.cfg:12:5" -> "haproxy.cfg" (a
     * file name's extension, or a ConfigMap key after '#', then ':' and digits), and "line 12",
     * "lines 3-5" (also "3..5", "3 and 5", "3 to 5"; any case) -> "line _", "lines _". The same
     * result as the regexes {@code (\.[A-Za-z0-9_-]+|#[^\s:]+):\d+(?::\d+)?} -> {@code $1}, then
     * {@code (?i)\b(lines?) \d+(?:(?:-|\.\.| and | to )\d+)?} -> {@code $1 _}.
     */
    static String withoutLineNumbers(String message) {
        if (message == null) {
            return "";
        }
        return withoutLineWords(withoutFileLines(message));
    }

    private static String withoutFileLines(String s) {
        int n = s.length();
        StringBuilder sb = null;
        int copied = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c != '.' && c != '#') {
                continue;
            }
            int j = i + 1;
            if (c == '.') {
                while (j < n && extensionChar(s.charAt(j))) {
                    j++;
                }
            } else {
                while (j < n && s.charAt(j) != ':' && !regexSpace(s.charAt(j))) {
                    j++;
                }
            }
            int end = j == i + 1 ? -1 : colonDigits(s, j);
            if (end < 0) {
                continue;
            }
            int more = colonDigits(s, end);
            if (more >= 0) {
                end = more;
            }
            if (sb == null) {
                sb = new StringBuilder(n);
            }
            sb.append(s, copied, j);
            copied = end;
            i = end - 1;
        }
        return sb == null ? s : sb.append(s, copied, n).toString();
    }

    private static String withoutLineWords(String s) {
        int n = s.length();
        StringBuilder sb = null;
        int copied = 0;
        for (int i = 0; i + 4 <= n; i++) {
            if (!s.regionMatches(true, i, "line", 0, 4)
                    || !asciiLine(s, i)
                    || !wordBoundaryBefore(s, i)) {
                continue;
            }
            int word = i + 4;
            if (word < n && (s.charAt(word) == 's' || s.charAt(word) == 'S')) {
                word++;
            }
            if (word >= n || s.charAt(word) != ' ') {
                continue;
            }
            int end = digitsEnd(s, word + 1);
            if (end < 0) {
                continue;
            }
            for (String sep : RANGE_SEPARATORS) {
                if (s.regionMatches(true, end, sep, 0, sep.length())
                        && asciiOnly(s, end, sep.length())) {
                    int to = digitsEnd(s, end + sep.length());
                    if (to >= 0) {
                        end = to;
                        break;
                    }
                }
            }
            if (sb == null) {
                sb = new StringBuilder(n);
            }
            sb.append(s, copied, word).append(" _");
            copied = end;
            i = end - 1;
        }
        return sb == null ? s : sb.append(s, copied, n).toString();
    }

    private static final String[] RANGE_SEPARATORS = {"-", "..", " and ", " to "};

    /**
     * The regex's case-insensitive match is ASCII only: "line" in any ASCII case, never e.g. a
     * Kelvin sign.
     */
    private static boolean asciiLine(String s, int i) {
        return asciiOnly(s, i, 4);
    }

    private static boolean asciiOnly(String s, int from, int len) {
        for (int k = from; k < from + len; k++) {
            if (s.charAt(k) >= 128) {
                return false;
            }
        }
        return true;
    }

    /** After {@code at}: ':' and one or more digits; the index after them, or -1. */
    private static int colonDigits(String s, int at) {
        if (at >= s.length() || s.charAt(at) != ':') {
            return -1;
        }
        return digitsEnd(s, at + 1);
    }

    /** One or more ASCII digits from {@code at}: the index after them, or -1. */
    private static int digitsEnd(String s, int at) {
        int j = at;
        while (j < s.length() && digit(s.charAt(j))) {
            j++;
        }
        return j == at ? -1 : j;
    }

    private static boolean digit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean extensionChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || digit(c) || c == '_' || c == '-';
    }

    /** The regex {@code \s}: [ \t\n\x0B\f\r]. */
    private static boolean regexSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
    }

    /** {@code \b} before a word character at {@code i}, as java.util.regex decides it. */
    private static boolean wordBoundaryBefore(String s, int i) {
        if (i == 0) {
            return true;
        }
        int ch = Character.codePointBefore(s, i);
        boolean left =
                ch == '_'
                        || Character.isLetterOrDigit(ch)
                        || Character.getType(ch) == Character.NON_SPACING_MARK
                                && hasBaseCharacter(s, i - 1);
        return !left;
    }

    private static boolean hasBaseCharacter(String s, int i) {
        for (int x = i; x >= 0; x--) {
            int ch = Character.codePointAt(s, x);
            if (Character.isLetterOrDigit(ch)) {
                return true;
            }
            if (Character.getType(ch) != Character.NON_SPACING_MARK) {
                return false;
            }
        }
        return false;
    }

    /**
     * Most severe first, then by location, rule and message: the same input always gives the same
     * order.
     */
    public static final Comparator<Finding> ORDER =
            Comparator.comparing(Finding::severity, Comparator.reverseOrder())
                    .thenComparing(Finding::target, Target.NULLS_FIRST)
                    .thenComparing(Finding::location)
                    .thenComparing(Finding::ruleId)
                    .thenComparing(Finding::message);

    @Override
    public int compareTo(Finding o) {
        return ORDER.compare(this, o);
    }
}
