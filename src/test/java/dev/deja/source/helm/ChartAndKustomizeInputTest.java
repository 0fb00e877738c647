package dev.deja.source.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.marcnuri.helm.Helm;
import dev.deja.TestSupport;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code deja scan CHART/} renders a Helm chart with Helm itself and scans the result, findings
 * naming the template file and the line in Helm's own output of that template ({@code helm template
 * release-name CHART --show-only templates/x.yaml}); {@code deja scan KUSTOMIZATION/} builds it
 * with {@code kubectl kustomize}.
 */
class ChartAndKustomizeInputTest {
    static final String CHART = "src/test/resources/helm/risky-ingress";
    static final String DEPLOYMENT = CHART + "/templates/controller-deployment.yaml";
    static final String OVERLAY = "src/test/resources/kustomize/risky-ingress/overlay";

    static List<String> rules(TestSupport.Run r) {
        List<String> out = new ArrayList<>();
        for (JsonNode f : r.json().path("findings")) {
            out.add(f.path("ruleId").asString());
        }
        return out;
    }

    /** The lines of one template in Helm's output, as --show-only prints them. */
    static List<String> helmShowOnly(String template) {
        String all =
                new Helm(Path.of(CHART))
                        .template()
                        .withName("release-name")
                        .withNamespace("default")
                        .call();
        return HelmRenderer.split(all, CHART).stream()
                .filter(f -> f.display().equals(CHART + "/" + template))
                .findFirst()
                .orElseThrow()
                .text()
                .lines()
                .toList();
    }

    /**
     * The chart's Deployment is made by template logic: its findings name the template, without a
     * line (which line of the template made a rendered line is not known: ChartLineMappingTest).
     */
    @Test
    void aChartIsRenderedAndFindingsNameTheTemplate() {
        TestSupport.Run r = TestSupport.run("scan", CHART, "--format", "json", "--fail-on", "none");
        assertEquals(0, r.code(), r.err());
        List<String> lines = helmShowOnly("templates/controller-deployment.yaml");
        assertEquals("---", lines.get(0));
        assertEquals("# Source: risky-ingress/templates/controller-deployment.yaml", lines.get(1));
        int seen = 0;
        for (JsonNode f : r.json().path("findings")) {
            assertEquals(DEPLOYMENT, f.path("location").path("file").asString(), f.toString());
            assertTrue(f.path("location").path("line").isMissingNode(), f.toString());
            // {{ .Release.Namespace }} is "default", as helm template renders it outside a
            // kubeconfig context
            assertTrue(
                    f.path("object")
                            .asString()
                            .startsWith("Deployment default/release-name-controller "),
                    f.toString());
            seen++;
        }
        assertEquals(
                List.of(
                        "k8s-lb-liveness-same-as-readiness",
                        "k8s-lb-no-disruption-headroom",
                        "k8s-lb-probe-fails-fast",
                        "k8s-lb-probe-fails-fast"),
                rules(r).stream().sorted().toList());
        assertEquals(4, seen);
        assertEquals("", r.err());
    }

    @Test
    void valuesFilesAndSetsChangeTheRenderAsInHelm(@TempDir Path tmp) throws IOException {
        Path values = tmp.resolve("prod.yaml");
        Files.writeString(
                values,
                "replicaCount: 3\npdb: {enabled: true}\nprobe: {periodSeconds: 10, failureThreshold: 3,"
                        + " livenessPath: /livez}\n");
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        CHART,
                        "--helm-values",
                        values.toString(),
                        "--format",
                        "json",
                        "--fail-on",
                        "none");
        assertEquals(0, r.code(), r.err());
        // three replicas with a budget: only the spread is missing (and the default 1 s probe
        // timeout, a low note)
        assertFalse(rules(r).contains("k8s-lb-no-disruption-headroom"), r.out());
        assertFalse(rules(r).contains("k8s-lb-liveness-same-as-readiness"), r.out());
        assertTrue(rules(r).contains("k8s-lb-not-spread"), r.out());

        // --helm-set wins over the values file, as with helm
        TestSupport.Run one =
                TestSupport.run(
                        "scan",
                        CHART,
                        "--helm-values",
                        values.toString(),
                        "--helm-set",
                        "replicaCount=1",
                        "--format",
                        "json",
                        "--fail-on",
                        "none");
        assertEquals(0, one.code(), one.err());
        assertTrue(rules(one).contains("k8s-lb-no-disruption-headroom"), one.out());
        assertFalse(
                rules(one).contains("k8s-lb-not-spread"),
                "one replica: one root cause " + one.out());
    }

    /**
     * deja.yaml's sources.helm: values files relative to the config's folder, set as a mapping; a
     * typo is file:line.
     */
    @Test
    void theConfigFileGivesValuesAndSets(@TempDir Path tmp) throws IOException {
        Files.writeString(tmp.resolve("prod.yaml"), "replicaCount: 3\npdb: {enabled: true}\n");
        Path cfg = tmp.resolve("deja.yaml");
        String chart = Path.of(CHART).toAbsolutePath().toString();
        Files.writeString(
                cfg,
                "sources:\n  paths: ["
                        + chart
                        + "]\n  helm:\n    values: [prod.yaml]\nfailOn: none\n");
        TestSupport.Run r = TestSupport.run("scan", "--config", cfg.toString(), "--format", "json");
        assertEquals(0, r.code(), r.err());
        assertFalse(rules(r).contains("k8s-lb-no-disruption-headroom"), r.out());
        assertTrue(rules(r).contains("k8s-lb-not-spread"), r.out());

        Files.writeString(
                cfg,
                "sources:\n  paths: ["
                        + chart
                        + "]\n  helm:\n    values: [prod.yaml]\n"
                        + "    set: {replicaCount: \"1\"}\nfailOn: none\n");
        TestSupport.Run one =
                TestSupport.run("scan", "--config", cfg.toString(), "--format", "json");
        assertEquals(0, one.code(), one.err());
        assertTrue(rules(one).contains("k8s-lb-no-disruption-headroom"), one.out());

        Files.writeString(
                cfg, "sources:\n  paths: [" + chart + "]\n  helm:\n    value: [prod.yaml]\n");
        TestSupport.Run typo = TestSupport.run("scan", "--config", cfg.toString());
        assertEquals(2, typo.code());
        assertTrue(typo.err().startsWith("deja: " + cfg + ":4: "), typo.err());
    }

    /**
     * A folder holding a chart that does not render and a HAProxy configuration: --allow-partial
     * scans the configuration and lists the chart as not checked with Helm's line; a missing
     * --helm-values file stays a usage error.
     */
    @Test
    void withAllowPartialAChartThatDoesNotRenderInAFolderIsNotChecked(@TempDir Path tmp)
            throws IOException {
        Path chart = tmp.resolve("broken");
        Files.createDirectories(chart.resolve("templates"));
        Files.writeString(
                chart.resolve("Chart.yaml"), "apiVersion: v2\nname: broken\nversion: 0.1.0\n");
        Files.writeString(
                chart.resolve("templates/cm.yaml"),
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                        + "  name: {{ required \"tag is required\" .Values.tag }}\n");
        Files.copy(Path.of("examples/haproxy/il-0011-risky.cfg"), tmp.resolve("haproxy.cfg"));
        TestSupport.Run strict = TestSupport.run("scan", tmp.toString());
        assertEquals(2, strict.code(), strict.out() + strict.err());
        assertEquals("", strict.out());

        TestSupport.Run r =
                TestSupport.run("scan", "--allow-partial", "--format", "json", tmp.toString());
        assertEquals(1, r.code(), r.err());
        JsonNode failed = null;
        for (JsonNode e : r.json().path("coverage").path("entries")) {
            if (e.path("status").asString("").equals("failed")) {
                assertEquals(null, failed, "one failed entry: " + r.out());
                failed = e;
            }
        }
        assertTrue(failed != null, r.out());
        assertEquals("kubernetes", failed.path("source").asString(""));
        assertEquals(chart.toString(), failed.path("scope").asString(""));
        assertTrue(
                failed.path("detail")
                        .asString("")
                        .startsWith(chart + ": cannot render the Helm chart: "),
                failed.toString());
        assertTrue(failed.path("detail").asString("").contains("tag is required"));
        assertTrue(r.json().path("findings").size() > 0, r.out());

        TestSupport.Run missing =
                TestSupport.run(
                        "scan",
                        "--allow-partial",
                        tmp.toString(),
                        "--helm-values",
                        tmp.resolve("nope.yaml").toString());
        assertEquals(2, missing.code(), missing.out());
        assertEquals(
                "deja: --helm-values " + tmp.resolve("nope.yaml") + ": no such file\n",
                missing.err());
    }

    @Test
    void aChartThatDoesNotRenderIsOneLineNamingItExit2(@TempDir Path tmp) throws IOException {
        Path chart = tmp.resolve("broken");
        Files.createDirectories(chart.resolve("templates"));
        Files.writeString(
                chart.resolve("Chart.yaml"), "apiVersion: v2\nname: broken\nversion: 0.1.0\n");
        Files.writeString(
                chart.resolve("templates/cm.yaml"),
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                        + "  name: {{ required \"tag is required\" .Values.tag }}\n");
        TestSupport.Run r = TestSupport.run("scan", chart.toString());
        assertEquals(2, r.code(), r.out() + r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(
                r.err().startsWith("deja: " + chart + ": cannot render the Helm chart: "), r.err());
        assertTrue(r.err().contains("tag is required"), r.err());

        TestSupport.Run missing =
                TestSupport.run(
                        "scan", CHART, "--helm-values", tmp.resolve("nope.yaml").toString());
        assertEquals(2, missing.code());
        assertEquals(
                "deja: --helm-values " + tmp.resolve("nope.yaml") + ": no such file\n",
                missing.err());

        TestSupport.Run noChart =
                TestSupport.run("scan", "examples/haproxy/il-0011-risky.cfg", "--helm-set", "a=b");
        assertEquals(2, noChart.code());
        assertEquals(1, noChart.err().lines().count(), noChart.err());
        assertTrue(noChart.err().contains("--helm-set: only with a Helm chart"), noChart.err());

        TestSupport.Run template = TestSupport.run("scan", DEPLOYMENT);
        assertEquals(2, template.code());
        assertEquals(
                "deja: "
                        + DEPLOYMENT
                        + ": a Helm template (Go template, not a manifest): scan its chart, 'deja scan "
                        + CHART
                        + "', which renders it\n",
                template.err());

        TestSupport.Run badSet = TestSupport.run("scan", CHART, "--helm-set", "replicaCount");
        assertEquals(2, badSet.code());
        assertTrue(badSet.err().contains("expected KEY=VALUE"), badSet.err());
    }

    /**
     * A chart that asks for a newer Kubernetes than Helm for the JVM renders as (v1.20.0) is
     * rendered, saying so.
     */
    @Test
    void aKubeVersionConstraintIsNotedNotFatal(@TempDir Path tmp) throws IOException {
        Path chart = tmp.resolve("modern");
        Files.createDirectories(chart.resolve("templates"));
        Files.writeString(
                chart.resolve("Chart.yaml"),
                "apiVersion: v2\nname: modern\nversion: 0.1.0\nkubeVersion: \">=1.21.0-0\"\n");
        Files.copy(Path.of(DEPLOYMENT), chart.resolve("templates/controller-deployment.yaml"));
        Files.copy(
                Path.of(CHART, "templates/_helpers.tpl"), chart.resolve("templates/_helpers.tpl"));
        Files.copy(Path.of(CHART, "values.yaml"), chart.resolve("values.yaml"));
        TestSupport.Run r =
                TestSupport.run("scan", chart.toString(), "--format", "json", "--fail-on", "none");
        assertEquals(0, r.code(), r.err());
        assertTrue(
                r.err().contains("requires kubeVersion >=1.21.0-0; rendered as Kubernetes v1.20.0"),
                r.err());
        assertTrue(rules(r).contains("k8s-lb-no-disruption-headroom"), r.out());
        assertTrue(
                Files.readString(chart.resolve("Chart.yaml")).contains("kubeVersion"),
                "the user's chart is left alone");
    }

    /**
     * A chart found inside a scanned folder is rendered too; its templates are never read as
     * manifests.
     */
    @Test
    void aChartInsideAScannedFolderIsRendered(@TempDir Path tmp) throws IOException {
        Path repo = tmp.resolve("repo");
        Files.createDirectories(repo.resolve("deploy"));
        copyTree(Path.of(CHART), repo.resolve("deploy/risky-ingress"));
        TestSupport.Run r =
                TestSupport.run("scan", repo.toString(), "--format", "json", "--fail-on", "none");
        assertEquals(0, r.code(), r.err());
        assertEquals(4, r.json().path("findings").size(), r.out());
        assertEquals(
                repo.resolve("deploy/risky-ingress") + "/templates/controller-deployment.yaml",
                r.json().path("findings").get(0).path("location").path("file").asString());
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (var s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
    }

    static Path onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path c = dir.isEmpty() ? null : Path.of(dir, program);
            if (c != null && Files.isExecutable(c)) {
                return c;
            }
        }
        return null;
    }

    static Map<String, String> pathEnv() {
        return Map.of("PATH", System.getenv().getOrDefault("PATH", ""));
    }

    @Test
    void aKustomizationIsBuiltWithKubectl() throws Exception {
        Path kubectl = onPath("kubectl");
        Assumptions.assumeTrue(
                kubectl != null,
                "kubectl is not on the PATH (.ci/run installs it where it can): skipping"
                        + " the kustomize build test");
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        pathEnv(),
                        "scan",
                        OVERLAY,
                        "--format",
                        "json",
                        "--fail-on",
                        "none");
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("k8s-lb-probe-fails-fast", "k8s-lb-no-disruption-headroom"), rules(r));
        Process p = new ProcessBuilder(kubectl.toString(), "kustomize", OVERLAY).start();
        String built = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        List<String> lines = built.lines().toList();
        for (JsonNode f : r.json().path("findings")) {
            assertEquals("<kustomize " + OVERLAY + ">", f.path("location").path("file").asString());
            String line = lines.get(f.path("location").path("line").asInt() - 1).strip();
            assertEquals(
                    f.path("ruleId").asString().equals("k8s-lb-no-disruption-headroom")
                            ? "replicas: 1"
                            : "readinessProbe:",
                    line);
        }
        assertTrue(
                r.out().contains("Deployment ingress/ingress-nginx-controller"),
                "the overlay's namespace: " + r.out());
    }

    /**
     * The shipped kustomize example, built as 'kubectl apply -k' would install it, trips no rule.
     */
    @Test
    void theCronJobKustomizationBuildsAndFindsNothing() {
        Assumptions.assumeTrue(
                onPath("kubectl") != null,
                "kubectl is not on the PATH: skipping the kustomize build test");
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        pathEnv(),
                        "scan",
                        "examples/kubernetes/cronjob",
                        "--fail-on",
                        "info");
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().startsWith("No findings.\n"), r.out());
    }

    @Test
    void aKustomizationWithoutKubectlIsOneLineNamingTheFolder() {
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of("PATH", "/nonexistent"),
                        "scan",
                        OVERLAY);
        assertEquals(2, r.code(), r.out() + r.err());
        assertEquals(
                "deja: "
                        + OVERLAY
                        + ": a kustomization; building it needs kubectl on the PATH (or scan"
                        + " 'kubectl kustomize "
                        + OVERLAY
                        + " | deja scan -')\n",
                r.err());
    }
}
