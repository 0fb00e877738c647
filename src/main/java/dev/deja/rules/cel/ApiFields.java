package dev.deja.rules.cel;

import dev.deja.engine.InputException;
import dev.deja.model.kube.ClusterRole;
import dev.deja.model.kube.ClusterRoleBinding;
import dev.deja.model.kube.ConfigMap;
import dev.deja.model.kube.CustomResourceDefinition;
import dev.deja.model.kube.Hpa;
import dev.deja.model.kube.Ingress;
import dev.deja.model.kube.IngressClass;
import dev.deja.model.kube.NetworkPolicy;
import dev.deja.model.kube.Pdb;
import dev.deja.model.kube.Pod;
import dev.deja.model.kube.Service;
import dev.deja.model.kube.WebhookConfiguration;
import dev.deja.model.kube.Workload;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The top-level fields of a Kubernetes object as the API returns it, per kind (the Kubernetes API
 * reference, https://kubernetes.io/docs/reference/kubernetes-api/), next to deja's own fields of
 * its view: what {@code object} of a Kubernetes rule shows, what the type-checker can say about
 * {@code object.<field>}, and whether a rule reads the API's fields at all (then its kinds' objects
 * are kept whole).
 */
final class ApiFields {
    private ApiFields() {}

    private static final List<String> COMMON = List.of("apiVersion", "kind", "metadata");

    /** Each kind's top-level fields besides {@link #COMMON}. */
    private static final Map<String, List<String>> OWN =
            Map.ofEntries(
                    Map.entry("ConfigMap", List.of("data", "binaryData", "immutable")),
                    Map.entry("ClusterRole", List.of("rules", "aggregationRule")),
                    Map.entry("ClusterRoleBinding", List.of("roleRef", "subjects")),
                    Map.entry("ValidatingWebhookConfiguration", List.of("webhooks")));

    /**
     * Names that, read anywhere in a rule, make it read the API's fields (the kinds' objects are
     * then kept whole). {@code apiVersion} and {@code kind} are not among them: the view shows the
     * API's from deja's metadata.
     */
    static final Set<String> RAW_NAMES =
            Set.of(
                    "metadata",
                    "spec",
                    "status",
                    "data",
                    "binaryData",
                    "stringData",
                    "immutable",
                    "rules",
                    "aggregationRule",
                    "roleRef",
                    "subjects",
                    "webhooks");

    private static final Pattern FIELD_READ =
            Pattern.compile(
                    "\\.\\s*("
                            + String.join("|", new TreeSet<>(RAW_NAMES))
                            + ")\\b|\\[\\s*['\"]("
                            + String.join("|", new TreeSet<>(RAW_NAMES))
                            + ")['\"]\\s*\\]");

    /** {@code object.<field>} (not {@code x.object.<field>}). */
    private static final Pattern OBJECT_FIELD =
            Pattern.compile("(?<![\\w.$])object\\s*\\.\\s*([A-Za-z_][A-Za-z0-9_]*)");

    /** The API's top-level fields of a kind. */
    static List<String> apiFields(String kind) {
        List<String> out = new ArrayList<>(COMMON);
        List<String> own = OWN.get(kind);
        if (own != null) {
            out.addAll(own);
        } else {
            out.addAll(List.of("spec", "status"));
        }
        return out;
    }

    /** The model class of a kind's view, or null for a kind deja has no view of. */
    static Class<?> modelOf(String kind) {
        return switch (kind) {
            case "Deployment", "StatefulSet", "DaemonSet" -> Workload.class;
            case "Service" -> Service.class;
            case "HorizontalPodAutoscaler" -> Hpa.class;
            case "PodDisruptionBudget" -> Pdb.class;
            case "Ingress" -> Ingress.class;
            case "IngressClass" -> IngressClass.class;
            case "ConfigMap" -> ConfigMap.class;
            case "NetworkPolicy" -> NetworkPolicy.class;
            case "ValidatingWebhookConfiguration" -> WebhookConfiguration.class;
            case "ClusterRole" -> ClusterRole.class;
            case "ClusterRoleBinding" -> ClusterRoleBinding.class;
            case "CustomResourceDefinition" -> CustomResourceDefinition.class;
            case "Pod" -> Pod.class;
            default -> null;
        };
    }

    /** Whether any of the texts reads one of {@link #RAW_NAMES} as a field. */
    static boolean readsApiFields(List<RuleFile.Text> texts) {
        return !readIn(texts).isEmpty();
    }

    /** Which of {@link #RAW_NAMES} the texts read as fields, sorted. */
    static List<String> readIn(List<RuleFile.Text> texts) {
        Set<String> out = new TreeSet<>();
        for (RuleFile.Text t : texts) {
            Matcher m = FIELD_READ.matcher(t.value());
            while (m.find()) {
                out.add(m.group(1) != null ? m.group(1) : m.group(2));
            }
        }
        return List.copyOf(out);
    }

    /**
     * Refuses {@code object.<field>} where no kind of {@code check.for} has that field at the top
     * level, neither as the API returns the object nor in deja's view (exit 2, file:line:column); a
     * kind deja has no view of may have any field.
     */
    static void checkTopLevel(RuleFile f, RuleFile.Check c) {
        Set<String> known = new LinkedHashSet<>();
        for (String kind : c.over()) {
            Class<?> model = modelOf(kind);
            if (model == null) {
                return; // its fields are not known: not checked (said by deja rules test --lint)
            }
            known.addAll(apiFields(kind));
            known.addAll(View.fieldNames(model));
        }
        for (RuleFile.Text t : CelRule.texts(c)) {
            boolean template = t == c.message() || t == c.key() || t == c.remediation();
            String v = t.value();
            Matcher m = OBJECT_FIELD.matcher(v);
            while (m.find()) {
                if (template && !inHole(v, m.start())) {
                    continue;
                }
                String name = m.group(1);
                if (!known.contains(name)) {
                    throw new InputException(
                            t.where(m.start(1))
                                    + ": "
                                    + c.name()
                                    + "."
                                    + part(c, t)
                                    + ": object."
                                    + name
                                    + ": no "
                                    + String.join(" or ", c.over())
                                    + " has this field (the API's: "
                                    + String.join(", ", apiFieldsOf(c.over()))
                                    + "; deja's: "
                                    + String.join(", ", derivedOf(c.over()))
                                    + ")");
                }
            }
        }
    }

    /** "when", "message", ...: which text of the check {@code t} is. */
    private static String part(RuleFile.Check c, RuleFile.Text t) {
        if (t == c.when()) {
            return "when";
        }
        if (t == c.message()) {
            return "message";
        }
        if (t == c.key()) {
            return "key";
        }
        if (t == c.severity()) {
            return "severity";
        }
        if (t == c.line()) {
            return "line";
        }
        return "remediation";
    }

    private static Set<String> apiFieldsOf(List<String> kinds) {
        Set<String> out = new LinkedHashSet<>();
        kinds.forEach(k -> out.addAll(apiFields(k)));
        return out;
    }

    private static Set<String> derivedOf(List<String> kinds) {
        Set<String> out = new LinkedHashSet<>();
        kinds.forEach(k -> out.addAll(View.fieldNames(modelOf(k))));
        return out;
    }

    /** Whether {@code at} is inside a {@code {{ }}} hole of a template. */
    private static boolean inHole(String text, int at) {
        int open = text.lastIndexOf("{{", at);
        if (open < 0) {
            return false;
        }
        int close = text.lastIndexOf("}}", at);
        return close < open;
    }
}
