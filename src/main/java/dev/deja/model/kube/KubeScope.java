package dev.deja.model.kube;

import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The label selector of a live scan ({@code -l/--selector}) as a snapshot part. The API server
 * filters the workloads by it; the other kinds (Services, PodDisruptionBudgets,
 * HorizontalPodAutoscalers, ConfigMaps, IngressClasses) are read whole, because they decide about
 * the selected workloads (which are load balancers, which have a budget), but findings are reported
 * only on objects whose own labels the selector selects: a scan narrowed to {@code
 * app.kubernetes.io/name=ingress-nginx} does not report other Services or ConfigMaps. Objects read
 * from manifests (they have a file) are not narrowed: the selector is a cluster option.
 *
 * @param selector the selector as given ("app=web,tier!=cache", "env in (prod,staging)", "!canary")
 */
public record KubeScope(String selector) {

    /** One requirement: key, operator (= != in notin exists !), values. */
    private record Requirement(String key, String op, List<String> values) {
        boolean matches(Map<String, String> labels) {
            String v = labels.get(key);
            return switch (op) {
                case "=" -> v != null && v.equals(values.get(0));
                case "!=" -> v == null || !v.equals(values.get(0));
                case "in" -> v != null && values.contains(v);
                case "notin" -> v == null || !values.contains(v);
                case "exists" -> v != null;
                default -> v == null; // "!"
            };
        }
    }

    private static final Pattern SET =
            Pattern.compile("\\s*(\\S+?)\\s+(in|notin)\\s+\\((.*)\\)\\s*");
    private static final Pattern EQ = Pattern.compile("\\s*([^=!\\s]+)\\s*(==|=|!=)\\s*(\\S*)\\s*");

    private static final String LABEL_KEY =
            "(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*/)?"
                    + "[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?";
    private static final String LABEL_VALUE = "(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?";
    private static final Pattern REQUIREMENT =
            Pattern.compile(
                    "\\s*(?:!?\\s*"
                            + LABEL_KEY
                            + "|"
                            + LABEL_KEY
                            + "\\s*(?:==?|!=)\\s*"
                            + LABEL_VALUE
                            + "|"
                            + LABEL_KEY
                            + "\\s+(?:in|notin)\\s+\\(\\s*"
                            + LABEL_VALUE
                            + "(?:\\s*,\\s*"
                            + LABEL_VALUE
                            + ")*\\s*\\))\\s*");

    /**
     * The requirements' text: the selector split on commas outside parentheses; null when
     * parentheses do not pair or nest (a selector the API server refuses).
     */
    private static List<String> split(String selector) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i <= selector.length(); i++) {
            char c = i < selector.length() ? selector.charAt(i) : ',';
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                out.add(selector.substring(start, i));
                start = i + 1;
            }
            if (depth < 0 || depth > 1) {
                return null;
            }
        }
        return depth == 0 ? out : null;
    }

    /**
     * A label selector as the API server reads it: requirements separated by commas outside
     * parentheses.
     */
    public static boolean valid(String selector) {
        List<String> parts = split(selector);
        return parts != null && parts.stream().allMatch(r -> REQUIREMENT.matcher(r).matches());
    }

    /**
     * The requirements (the CLI has checked the syntax; a selector that does not split has none).
     */
    List<Requirement> requirements() {
        List<Requirement> out = new ArrayList<>();
        List<String> parts = split(selector);
        for (String part : parts == null ? List.<String>of() : parts) {
            String r = part.strip();
            if (r.isEmpty()) {
                continue;
            }
            Matcher m = SET.matcher(r);
            Matcher e = EQ.matcher(r);
            if (m.matches()) {
                List<String> values = new ArrayList<>();
                for (String v : m.group(3).split(",")) {
                    values.add(v.strip());
                }
                out.add(new Requirement(m.group(1), m.group(2), values));
            } else if (e.matches()) {
                out.add(
                        new Requirement(
                                e.group(1),
                                e.group(2).equals("!=") ? "!=" : "=",
                                List.of(e.group(3))));
            } else if (r.startsWith("!")) {
                out.add(new Requirement(r.substring(1).strip(), "!", List.of()));
            } else {
                out.add(new Requirement(r, "exists", List.of()));
            }
        }
        return out;
    }

    /** Whether the selector selects an object with these labels (every requirement holds). */
    public boolean selects(Map<String, String> labels) {
        for (Requirement r : requirements()) {
            if (!r.matches(labels)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a baseline finding at {@code loc} lies within what this narrowed scan looked at, so
     * that its absence means fixed: not when its object was read and is not selected, nor when it
     * is a workload this scan did not list (the server filtered the workloads: an unselected one is
     * simply not there). Other locations are covered.
     */
    public boolean covers(KubeInventory inv, Location loc) {
        if (loc.kind() == null || loc.file() != null || loc.arn() != null) {
            return true;
        }
        List<Requirement> reqs = requirements();
        boolean found = false;
        for (Meta m : inv.metas()) {
            if (m.file() == null
                    && loc.kind().equals(m.kind())
                    && Objects.equals(loc.namespace(), m.namespace())
                    && Objects.equals(loc.name(), m.name())) {
                found = true;
                if (reqs.stream().allMatch(r -> r.matches(m.labels()))) {
                    return true;
                }
            }
        }
        return !found && !WORKLOADS.contains(loc.kind());
    }

    private static final Set<String> WORKLOADS = Set.of("Deployment", "StatefulSet", "DaemonSet");

    /**
     * The findings on objects this scan is narrowed to: a finding on a live object (no file) whose
     * labels the selector does not select is dropped; findings on objects from manifests, or on
     * objects not in the inventory, are kept.
     */
    public List<Finding> keep(KubeInventory inv, List<Finding> findings) {
        if (findings.isEmpty()) {
            return findings;
        }
        List<Requirement> reqs = requirements();
        Map<String, Boolean> selected = new HashMap<>();
        for (Meta m : inv.metas()) {
            if (m.file() == null) {
                boolean all = reqs.stream().allMatch(r -> r.matches(m.labels()));
                selected.merge(
                        m.kind() + "/" + m.namespace() + "/" + m.name(), all, Boolean::logicalOr);
            }
        }
        List<Finding> out = new ArrayList<>(findings.size());
        for (Finding f : findings) {
            Location l = f.location();
            Boolean s =
                    l.file() == null
                            ? selected.get(l.kind() + "/" + l.namespace() + "/" + l.name())
                            : null;
            if (s == null || s) {
                out.add(f);
            }
        }
        return out;
    }
}
