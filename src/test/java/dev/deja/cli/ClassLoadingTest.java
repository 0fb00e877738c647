package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Start-up is part of the product: the catalog commands must not load the Kubernetes client, the
 * AWS SDK or a YAML parser. Runs deja in a child JVM with class-load logging and reads what was
 * loaded.
 */
class ClassLoadingTest {

    @ParameterizedTest
    @ValueSource(
            strings = {"--version", "rules", "rules --format json", "cases", "explain IL-0264"})
    void catalogCommandsLoadNoSourceLibraries(String command) throws Exception {
        List<String> loaded = loadedClasses(command.split(" "));
        assertTrue(
                loaded.stream().anyMatch(c -> c.startsWith("dev.deja.")),
                "sanity: deja classes were loaded");
        List<String> forbidden =
                loaded.stream()
                        .filter(
                                c ->
                                        c.startsWith("io.fabric8.")
                                                || c.startsWith("software.amazon.")
                                                || c.startsWith("org.yaml.")
                                                || c.startsWith("dev.deja.source.kube.")
                                                || c.startsWith("dev.deja.model.kube.")
                                                || c.startsWith("dev.deja.source.aws.")
                                                || c.startsWith("dev.deja.model.aws.")
                                                || c.startsWith("dev.deja.report.sink.S3")
                                                || helm(c))
                        .toList();
        assertEquals(List.of(), forbidden, "deja " + command + " loaded source libraries");
        // rules are discovered through the catalog: listing or explaining them loads no rule class
        assertEquals(
                List.of(),
                loaded.stream().filter(c -> c.startsWith("dev.deja.rules.")).toList(),
                "deja " + command + " loaded rule classes");
    }

    /**
     * Only runs that use --report-configmap or --baseline configmap: load Fabric8's client for
     * them.
     */
    @Test
    void aFileScanWithAFileBaselineLoadsNoKubernetesClient(@TempDir Path tmp) throws Exception {
        List<String> loaded =
                loadedClasses(
                        "scan",
                        "examples/kubernetes/il-0495-risky-ingress.yaml",
                        "--format",
                        "json",
                        "--baseline",
                        tmp.resolve("none.json").toString(),
                        "--output",
                        "html=" + tmp.resolve("r.html"));
        assertTrue(
                loaded.contains("dev.deja.source.kube.ManifestLoader"),
                "sanity: the manifest was read");
        assertEquals(
                List.of(),
                loaded.stream()
                        .filter(
                                c ->
                                        c.startsWith("io.fabric8.")
                                                || c.startsWith("dev.deja.report.sink.ConfigMap"))
                        .toList());
    }

    /**
     * S3 outputs and inputs are loaded by name: a HAProxy scan or a merge of local files loads no
     * AWS class.
     */
    @Test
    void aHaproxyScanAndAMergeOfFilesLoadNoS3Client(@TempDir Path tmp) throws Exception {
        Path json = tmp.resolve("a/deja.json");
        List<String> scan =
                loadedClasses(
                        "scan",
                        "examples/haproxy/il-0264-before.cfg",
                        "--format",
                        "json",
                        "-o",
                        json.toString(),
                        "--output",
                        "html=" + tmp.resolve("a/deja.html"));
        assertTrue(
                scan.contains("dev.deja.model.haproxy.HaproxyParser"),
                "sanity: the config was read");
        assertEquals(
                List.of(),
                scan.stream()
                        .filter(
                                c ->
                                        c.startsWith("software.amazon.")
                                                || c.startsWith("dev.deja.source.aws.")
                                                || c.startsWith("dev.deja.report.sink.S3"))
                        .toList());
        List<String> merge =
                loadedClasses("report", "merge", tmp.resolve("a").toString(), "--format", "html");
        assertTrue(merge.contains("dev.deja.report.FleetMerge"), "sanity: the merge ran");
        assertEquals(
                List.of(),
                merge.stream()
                        .filter(
                                c ->
                                        c.startsWith("software.amazon.")
                                                || c.startsWith("dev.deja.source.aws.")
                                                || c.startsWith("dev.deja.report.sink.S3"))
                        .toList());
    }

    /** Helm for the JVM (helm-java, JNA, deja's renderer): loaded only when a chart is scanned. */
    static boolean helm(String c) {
        return c.startsWith("com.marcnuri.")
                || c.startsWith("com.sun.jna.")
                || c.startsWith("dev.deja.source.helm.");
    }

    /**
     * A HAProxy-only scan loads none of the Kubernetes, AWS or Helm libraries; a chart scan loads
     * deja's renderer, which runs Helm in a child process: helm-java and JNA never load in deja's
     * own JVM.
     */
    @Test
    void aHaproxyScanLoadsNoHelmNorKubernetesClient() throws Exception {
        List<String> loaded =
                loadedClasses("scan", "examples/haproxy/il-0011-risky.cfg", "--format", "json");
        assertTrue(
                loaded.contains("dev.deja.source.haproxy.HaproxyFileLoader"),
                "sanity: the HAProxy file was read");
        assertEquals(
                List.of(),
                loaded.stream()
                        .filter(
                                c ->
                                        helm(c)
                                                || c.startsWith("io.fabric8.")
                                                || c.startsWith("software.amazon."))
                        .toList());
        List<String> chart =
                loadedClasses("scan", "src/test/resources/helm/risky-ingress", "--format", "json");
        assertTrue(
                chart.contains("dev.deja.source.helm.HelmRenderer"),
                "sanity: a chart scan renders");
        assertEquals(
                List.of(),
                chart.stream()
                        .filter(c -> c.startsWith("com.marcnuri.") || c.startsWith("com.sun.jna."))
                        .toList(),
                "Helm for the JVM runs in a child process");
    }

    /** Classes a child JVM loads running deja with these arguments. */
    public static List<String> loadedClasses(String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xshare:off");
        cmd.add("-Xlog:class+load=info");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("dev.deja.Main");
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int code = p.waitFor();
        assertTrue(
                code == 0 || code == 1,
                "exit "
                        + code
                        + ": "
                        + out.lines().filter(l -> !l.contains("class,load")).toList());
        List<String> classes = new ArrayList<>();
        for (String line : out.split("\n")) {
            int i = line.indexOf("[class,load] ");
            if (i >= 0) {
                String rest = line.substring(i + "[class,load] ".length());
                int sp = rest.indexOf(' ');
                classes.add(sp < 0 ? rest : rest.substring(0, sp));
            }
        }
        return classes;
    }
}
