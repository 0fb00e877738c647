package dev.deja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.cli.ConfigFileAccess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * examples/kubernetes/cronjob: parses, the kustomization is complete, and the security settings
 * hold.
 */
class CronJobExampleTest {
    static final Path DIR = Path.of("examples/kubernetes/cronjob");

    static List<Map<String, Object>> docs(Path file) throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object o :
                new Yaml(new SafeConstructor(new LoaderOptions()))
                        .loadAll(Files.readString(file))) {
            if (o != null) {
                assertTrue(o instanceof Map, file + ": every document is a mapping");
                out.add(cast(o));
            }
        }
        return out;
    }

    static Map<String, Object> doc(String name) throws IOException {
        List<Map<String, Object>> d = docs(DIR.resolve(name));
        assertEquals(1, d.size(), name);
        return d.get(0);
    }

    // The tests' one unchecked cast, for YAML trees (maps and lists of Object) whose shape the test
    // knows: a wrong shape fails the test with a ClassCastException where the value is used.
    @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"})
    static <T> T cast(Object o) {
        return (T) o;
    }

    static Object at(Object node, String... path) {
        Object cur = node;
        for (String p : path) {
            if (cur instanceof List<?> l) {
                cur = l.get(Integer.parseInt(p));
            } else {
                assertTrue(cur instanceof Map, "no " + p + " in " + cur);
                cur = ((Map<?, ?>) cur).get(p);
            }
        }
        return cur;
    }

    @Test
    void everyFileParsesAndTheKustomizationListsExistingFiles() throws IOException {
        Set<String> yamlFiles = new TreeSet<>();
        try (Stream<Path> s = Files.list(DIR)) {
            s.filter(p -> p.toString().endsWith(".yaml"))
                    .forEach(p -> yamlFiles.add(p.getFileName().toString()));
        }
        for (String f : yamlFiles) {
            for (Map<String, Object> d : docs(DIR.resolve(f))) {
                assertTrue(
                        d.get("apiVersion") instanceof String && d.get("kind") instanceof String,
                        f);
            }
        }
        Map<String, Object> k = doc("kustomization.yaml");
        assertEquals("Kustomization", k.get("kind"));
        List<String> resources = cast(k.get("resources"));
        for (String r : resources) {
            assertTrue(
                    Files.isRegularFile(DIR.resolve(r)),
                    "kustomization lists a missing file: " + r);
        }
        Set<String> unlisted = new TreeSet<>(yamlFiles);
        unlisted.removeAll(resources);
        unlisted.remove("kustomization.yaml");
        assertEquals(
                Set.of("serviceaccount-irsa.yaml"),
                unlisted,
                "only the documented alternative is left out");
        Map<String, Object> irsa = doc("serviceaccount-irsa.yaml");
        assertEquals(
                at(doc("serviceaccount.yaml"), "metadata", "name"),
                at(irsa, "metadata", "name"),
                "a drop-in replacement");
        assertTrue(
                String.valueOf(at(irsa, "metadata", "annotations", "eks.amazonaws.com/role-arn"))
                        .startsWith("arn:aws:iam::"));
    }

    @Test
    void clusterRoleOnlyReadsAndNeverSecrets() throws IOException {
        List<Map<String, Object>> rules = cast(doc("clusterrole.yaml").get("rules"));
        Set<String> granted = new TreeSet<>();
        for (Map<String, Object> r : rules) {
            // get on namespaces only: a namespace to scan must exist (KubeLiveSource)
            assertEquals(
                    r.get("resources").equals(List.of("namespaces"))
                            ? List.of("get")
                            : List.of("get", "list"),
                    r.get("verbs"),
                    "read-only: " + r);
            List<String> groups = cast(r.get("apiGroups"));
            List<String> res = cast(r.get("resources"));
            assertFalse(
                    res.contains("secrets") || res.contains("*") || groups.contains("*"),
                    "never Secrets, no wildcards: " + r);
            for (String g : groups) {
                res.forEach(x -> granted.add((g.isEmpty() ? "core" : g) + "/" + x));
            }
        }
        assertTrue(
                granted.containsAll(
                        Set.of(
                                "apps/deployments",
                                "core/services",
                                "policy/poddisruptionbudgets",
                                "networking.k8s.io/ingressclasses")),
                granted.toString());
        Map<String, Object> binding = doc("clusterrolebinding.yaml");
        assertEquals(
                at(doc("clusterrole.yaml"), "metadata", "name"), at(binding, "roleRef", "name"));
        assertEquals("deja", at(binding, "subjects", "0", "name"));
    }

    @Test
    void roleIsLimitedToTheShippedReportConfigMap() throws IOException {
        Map<String, Object> role = doc("role.yaml");
        List<Map<String, Object>> rules = cast(role.get("rules"));
        assertEquals(1, rules.size());
        String cm = String.valueOf(at(doc("report-configmap.yaml"), "metadata", "name"));
        assertEquals(List.of(cm), rules.get(0).get("resourceNames"));
        assertEquals(List.of("configmaps"), rules.get(0).get("resources"));
        assertFalse(
                ((List<?>) rules.get(0).get("verbs")).contains("create"),
                "create cannot be limited by name");
        assertEquals(at(role, "metadata", "name"), at(doc("rolebinding.yaml"), "roleRef", "name"));
    }

    @Test
    void cronJobIsLockedDownAndMountsItsConfig() throws Exception {
        Map<String, Object> cj = doc("cronjob.yaml");
        assertEquals("Forbid", at(cj, "spec", "concurrencyPolicy"));
        Object job = at(cj, "spec", "jobTemplate", "spec");
        assertTrue(at(job, "backoffLimit") instanceof Integer);
        assertTrue(at(job, "ttlSecondsAfterFinished") instanceof Integer);
        Object pod = at(job, "template", "spec");
        assertEquals("deja", at(pod, "serviceAccountName"));
        assertEquals(true, at(pod, "securityContext", "runAsNonRoot"));
        Object c = at(pod, "containers", "0");
        assertEquals(true, at(c, "securityContext", "readOnlyRootFilesystem"));
        assertEquals(false, at(c, "securityContext", "allowPrivilegeEscalation"));
        assertEquals(true, at(c, "securityContext", "runAsNonRoot"));
        assertEquals(List.of("ALL"), at(c, "securityContext", "capabilities", "drop"));
        assertEquals("RuntimeDefault", at(c, "securityContext", "seccompProfile", "type"));
        assertTrue(
                at(c, "resources", "requests") != null
                        && at(c, "resources", "limits", "memory") != null);
        // the image's USER (Dockerfile) is the uid the pod runs as
        String user =
                Files.readAllLines(Path.of("Dockerfile")).stream()
                        .filter(l -> l.startsWith("USER "))
                        .reduce((a, b) -> b)
                        .orElseThrow()
                        .substring(5)
                        .split(":")[0];
        assertEquals(Integer.parseInt(user), at(c, "securityContext", "runAsUser"));
        // JVM options through the launcher's own variable: a JAVA_TOOL_OPTIONS the JVM reads itself
        // prints
        // "Picked up JAVA_TOOL_OPTIONS" in every job log
        List<Map<String, Object>> env = cast(at(c, "env"));
        assertTrue(
                env.stream()
                        .noneMatch(
                                e ->
                                        Set.of(
                                                        "JAVA_TOOL_OPTIONS",
                                                        "JDK_JAVA_OPTIONS",
                                                        "_JAVA_OPTIONS")
                                                .contains(e.get("name"))),
                env.toString());

        List<String> args = cast(at(c, "args"));
        String configPath = args.get(args.indexOf("--config") + 1);
        List<Map<String, Object>> mounts = cast(at(c, "volumeMounts"));
        Map<String, Object> configMount =
                mounts.stream()
                        .filter(m -> configPath.startsWith(m.get("mountPath") + "/"))
                        .findFirst()
                        .orElseThrow();
        List<Map<String, Object>> volumes = cast(at(pod, "volumes"));
        Map<String, Object> vol =
                volumes.stream()
                        .filter(v -> v.get("name").equals(configMount.get("name")))
                        .findFirst()
                        .orElseThrow();
        Map<String, Object> cfgMap = doc("configmap.yaml");
        assertEquals(at(cfgMap, "metadata", "name"), at(vol, "configMap", "name"));
        String key = configPath.substring(configPath.lastIndexOf('/') + 1);
        String dejaYaml = String.valueOf(at(cfgMap, "data", key));
        // the shipped configuration is valid for this deja (unknown keys would be an error with
        // file:line)
        ConfigFileAccess.check(dejaYaml, "configmap.yaml#" + key);
        // the commented S3 output is valid once uncommented, and goes to S3, not to the read-only
        // filesystem
        String s3Line =
                dejaYaml.lines()
                        .filter(l -> l.strip().startsWith("# - {format: json, path: \"s3://"))
                        .findFirst()
                        .orElseThrow(
                                () -> new AssertionError("configmap.yaml shows an s3:// output"));
        String withS3 = dejaYaml.replace(s3Line, s3Line.replace("# - ", "- "));
        ConfigFileAccess.check(withS3, "configmap.yaml#" + key + " with its S3 output");
        assertTrue(
                ConfigFileAccess.outputPaths(withS3)
                        .contains("s3://my-deja-reports/deja/prod-eu/{date}-{time}.json"),
                ConfigFileAccess.outputPaths(withS3).toString());
        // outputs land on a writable mount
        for (String out : ConfigFileAccess.outputPaths(dejaYaml)) {
            assertTrue(
                    mounts.stream()
                            .anyMatch(
                                    m ->
                                            out.startsWith(m.get("mountPath") + "/")
                                                    && !Boolean.TRUE.equals(m.get("readOnly"))),
                    out + " is on a writable volume (the root filesystem is read-only)");
        }
    }

    /**
     * The IRSA variant points at the example IAM policy, and that policy allows every AWS action
     * the AWS source calls (AwsLiveSourceTest's full scan makes each of them), EC2's as well as
     * ELBv2's.
     */
    @Test
    void irsaServiceAccountNamesAPolicyThatAllowsEveryCallDejaMakes() throws IOException {
        String irsa = Files.readString(DIR.resolve("serviceaccount-irsa.yaml"));
        assertTrue(
                irsa.contains("examples/aws/iam-policy.json"),
                "the IRSA example names the policy to attach");
        assertFalse(
                irsa.contains("needs only read access to ELBv2"),
                "EC2 describe calls are needed too");
        String policy = Files.readString(Path.of("examples/aws/iam-policy.json"));
        List<String> allowed = new ArrayList<>();
        JsonNode doc = JsonMapper.builder().build().readTree(policy);
        for (JsonNode st : doc.path("Statement")) {
            assertEquals("Allow", st.path("Effect").asString());
            JsonNode a = st.path("Action");
            if (a.isArray()) {
                a.forEach(x -> allowed.add(x.asString()));
            } else {
                allowed.add(a.asString());
            }
        }
        for (String call :
                List.of(
                        "elasticloadbalancing:DescribeLoadBalancers",
                        "elasticloadbalancing:DescribeTargetGroups",
                        "elasticloadbalancing:DescribeLoadBalancerAttributes",
                        "elasticloadbalancing:DescribeTags",
                        "elasticloadbalancing:DescribeTargetGroupAttributes",
                        "elasticloadbalancing:DescribeTargetHealth",
                        "ec2:DescribeSubnets",
                        "ec2:DescribeInstances")) {
            assertTrue(
                    allowed.stream().anyMatch(p -> call.matches(p.replace("*", "[A-Za-z]*"))),
                    call + " is not allowed by examples/aws/iam-policy.json " + allowed);
        }
        assertTrue(
                allowed.stream().allMatch(p -> p.contains(":Describe")), "read-only: " + allowed);
    }
}
