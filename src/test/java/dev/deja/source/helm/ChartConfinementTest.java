package dev.deja.source.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A chart renders as {@code helm template} renders it, and cannot be turned against the machine:
 * {@code lookup} is an empty map and never a connection, a link out of the chart is not read, and a
 * render that runs away in time or memory is stopped with one line naming the chart and the bound.
 * Each test runs with {@code helm} on the PATH when there is one (.ci/run installs it), and with
 * Helm for the JVM (an environment without PATH).
 */
class ChartConfinementTest {
    static final String CHART = ChartAndKustomizeInputTest.CHART;

    static Path helm() {
        return ChartAndKustomizeInputTest.onPath("helm");
    }

    /** The risky-ingress chart copied to {@code dir}, with one more template. */
    static Path chartWith(Path dir, String template, String text) throws IOException {
        Path chart = dir.resolve("chart");
        ChartAndKustomizeInputTest.copyTree(Path.of(CHART), chart);
        Files.writeString(chart.resolve("templates").resolve(template), text);
        return chart;
    }

    /** deja in a child JVM (Go's own stderr lines would not show in an in-process run). */
    static TestSupport.Run deja(Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("dev.deja.Main");
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Path out = Files.createTempFile("deja-out", ".txt");
        Path err = Files.createTempFile("deja-err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "deja did not finish");
        TestSupport.Run r =
                new TestSupport.Run(p.exitValue(), Files.readString(out), Files.readString(err));
        Files.delete(out);
        Files.delete(err);
        return r;
    }

    /**
     * {@code lookup} answers an empty map, as {@code helm template} does (helm/helm#9426), and no
     * connection is made: KUBECONFIG names a listening loopback port that counts what connects.
     * Without helm on the PATH, Helm for the JVM cannot do that: one line saying so, and still no
     * connection.
     */
    @Test
    void lookupIsAnEmptyMapAndNeverAConnection(@TempDir Path tmp) throws Exception {
        Path chart =
                chartWith(
                        tmp,
                        "lookup.yaml",
                        "{{- $s := lookup \"v1\" \"Secret\" .Release.Namespace \"tls\" }}\n"
                                + "{{- $all := lookup \"v1\" \"ConfigMap\" \"\" \"\" }}\n"
                                + "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: looked-up\n"
                                + "data:\n  found: {{ if $s }}\"yes\"{{ else }}\"no\"{{ end }}\n"
                                + "  size: {{ len $s | quote }}\n");
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            AtomicInteger connections = new AtomicInteger();
            Thread accept =
                    new Thread(
                            () -> {
                                while (!server.isClosed()) {
                                    try (Socket s = server.accept()) {
                                        connections.incrementAndGet();
                                    } catch (IOException e) {
                                        return;
                                    }
                                }
                            });
            accept.setDaemon(true);
            accept.start();
            Path kubeconfig = tmp.resolve("kubeconfig");
            Files.writeString(
                    kubeconfig,
                    "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n"
                            + "  cluster: {server: 'http://127.0.0.1:"
                            + server.getLocalPort()
                            + "'}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\n"
                            + "users:\n- name: u\n  user: {token: t}\n");
            Map<String, String> env = new HashMap<>();
            env.put("KUBECONFIG", kubeconfig.toString());
            env.put("HOME", tmp.toString());

            Path helm = helm();
            if (helm != null) {
                env.put("PATH", helm.getParent().toString());
                TestSupport.Run r =
                        deja(
                                env,
                                "scan",
                                chart.toString(),
                                "--format",
                                "json",
                                "--fail-on",
                                "none");
                assertEquals(0, r.code(), r.err());
                assertEquals("", r.err(), "nothing from Go's client on stderr");
                assertEquals(4, r.json().path("findings").size(), r.out());
                assertEquals(0, connections.get(), "lookup must not connect");
            }

            env.remove("PATH");
            TestSupport.Run jvm = deja(env, "scan", chart.toString());
            assertEquals(2, jvm.code(), jvm.out() + jvm.err());
            assertEquals(1, jvm.err().lines().count(), jvm.err());
            assertTrue(
                    jvm.err()
                            .startsWith(
                                    "deja: "
                                            + chart
                                            + ": cannot render the Helm chart: the chart"
                                            + " calls lookup"),
                    jvm.err());
            assertTrue(jvm.err().contains("put helm on the PATH"), jvm.err());
            assertEquals(0, connections.get(), "lookup must not connect");
            Assumptions.assumeTrue(
                    helm != null,
                    "helm is not on the PATH (.ci/run installs it): its lookup was not tried");
        }
    }

    /** The environments a chart test runs in: Helm for the JVM, and helm when on the PATH. */
    static List<Map<String, String>> backends(Map<String, String> extra) {
        List<Map<String, String>> out = new ArrayList<>();
        out.add(new HashMap<>(extra));
        Path helm = helm();
        if (helm != null) {
            Map<String, String> e = new HashMap<>(extra);
            e.put("PATH", helm.getParent().toString());
            out.add(e);
        }
        return out;
    }

    static TestSupport.Run scan(Map<String, String> env, String... args) {
        return TestSupport.runWith(new ByteArrayInputStream(new byte[0]), env, args);
    }

    /**
     * A link to a file, and one to a folder, outside the chart are not given to Helm, and each is
     * named; a link that stays inside is read as Helm reads it. The secret behind the links is in
     * no output, though a template puts {@code .Files.Get} in a ConfigMap and in a {@code fail}.
     */
    @Test
    void linksOutOfTheChartAreNotRead(@TempDir Path tmp) throws IOException {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "TOPSECRET-4242\n");
        Path chart =
                chartWith(
                        tmp,
                        "files.yaml",
                        "{{- if .Files.Get \"leak.txt\" }}{{ fail (.Files.Get \"leak.txt\") }}{{ end }}\n"
                                + "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: files\ndata:\n"
                                + "  leak: {{ .Files.Get \"leak.txt\" | quote }}\n"
                                + "  inner: {{ .Files.Get \"inner.txt\" | quote }}\n"
                                + "  glob: \"{{ range $p, $_ := .Files.Glob \"**.txt\" }}{{ $p }},"
                                + "{{ $.Files.Get $p | trim }};{{ end }}\"\n");
        Files.createDirectories(chart.resolve("files"));
        Files.writeString(chart.resolve("files/a.txt"), "inside\n");
        Files.createSymbolicLink(chart.resolve("leak.txt"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(chart.resolve("away"), outside);
        Files.createSymbolicLink(chart.resolve("inner.txt"), Path.of("files/a.txt"));
        for (Map<String, String> env : backends(Map.of())) {
            TestSupport.Run r =
                    scan(env, "scan", chart.toString(), "--format", "json", "--fail-on", "none");
            assertEquals(0, r.code(), env + ": " + r.err());
            assertFalse(r.out().contains("TOPSECRET"), r.out());
            assertFalse(r.err().contains("TOPSECRET"), r.err());
            assertTrue(
                    r.err()
                            .contains(
                                    "deja: note: "
                                            + chart
                                            + "/leak.txt: a symbolic link to a file outside the chart:"
                                            + " not given to Helm"),
                    r.err());
            assertTrue(
                    r.err()
                            .contains(
                                    "deja: note: "
                                            + chart
                                            + "/away: a symbolic link to a folder outside the chart"),
                    r.err());
            assertEquals(4, r.json().path("findings").size(), r.out());
        }
        // what the renderer saw: the inner link's content, the outer links' nothing
        ChartCopy copy = ChartCopy.of(chart, tmp.resolve("copy"), chart.toString());
        assertEquals("inside\n", Files.readString(tmp.resolve("copy/inner.txt")));
        assertFalse(Files.exists(tmp.resolve("copy/leak.txt")));
        assertFalse(Files.exists(tmp.resolve("copy/away")));
        assertEquals(2, copy.notes.size(), copy.notes.toString());
    }

    static Path endless(Path tmp, String body) throws IOException {
        Path chart = tmp.resolve("endless");
        Files.createDirectories(chart.resolve("templates"));
        Files.writeString(
                chart.resolve("Chart.yaml"), "apiVersion: v2\nname: endless\nversion: 0.1.0\n");
        Files.writeString(
                chart.resolve("templates/cm.yaml"),
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: endless\ndata:\n  x: \""
                        + body
                        + "\"\n");
        return chart;
    }

    /**
     * {@code range until 1000000000} grows the renderer's memory without end: it is stopped at
     * DEJA_HELM_MEMORY with one line naming the chart and the bound (exit 2); under --allow-partial
     * the chart is "not checked" and the HAProxy file beside it is scanned.
     */
    @Test
    void aRenderThatGrowsWithoutEndIsStoppedAtTheMemoryBound(@TempDir Path tmp) throws IOException {
        Path chart = endless(tmp, "{{ range until 1000000000 }}xxxxxxxxxxxxxxxx{{ end }}");
        for (Map<String, String> env : backends(Map.of("DEJA_HELM_MEMORY", "400"))) {
            TestSupport.Run r = scan(env, "scan", chart.toString());
            assertEquals(2, r.code(), r.out() + r.err());
            assertEquals(
                    "deja: "
                            + chart
                            + ": rendering the Helm chart was stopped: it used more than 400 MiB of"
                            + " memory (DEJA_HELM_MEMORY)\n",
                    r.err());
            assertEquals("", r.out());
        }
        Files.copy(Path.of("examples/haproxy/il-0011-risky.cfg"), tmp.resolve("haproxy.cfg"));
        TestSupport.Run partial =
                scan(
                        Map.of("DEJA_HELM_MEMORY", "400"),
                        "scan",
                        "--allow-partial",
                        "--format",
                        "json",
                        "--fail-on",
                        "none",
                        chart.toString(),
                        tmp.resolve("haproxy.cfg").toString());
        assertEquals(0, partial.code(), partial.err());
        JsonNode failed = null;
        for (JsonNode e : partial.json().path("coverage").path("entries")) {
            if (e.path("status").asString("").equals("failed")) {
                failed = e;
            }
        }
        assertTrue(failed != null, partial.out());
        assertEquals(chart.toString(), failed.path("scope").asString());
        assertTrue(
                failed.path("detail").asString().contains("DEJA_HELM_MEMORY"), failed.toString());
        assertTrue(partial.json().path("findings").size() > 0, partial.out());
        TestSupport.Run alone =
                scan(
                        Map.of("DEJA_HELM_MEMORY", "400"),
                        "scan",
                        "--allow-partial",
                        chart.toString());
        assertEquals(3, alone.code(), alone.out() + alone.err());
    }

    /** Two nested {@code until 100000}: stopped at DEJA_HELM_TIMEOUT, one line, exit 2. */
    @Test
    void aRenderThatRunsWithoutEndIsStoppedAtTheDeadline(@TempDir Path tmp) throws IOException {
        Path chart =
                endless(tmp, "{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}");
        for (Map<String, String> env : backends(Map.of("DEJA_HELM_TIMEOUT", "3"))) {
            TestSupport.Run r = scan(env, "scan", chart.toString());
            assertEquals(2, r.code(), r.out() + r.err());
            assertEquals(
                    "deja: "
                            + chart
                            + ": rendering the Helm chart was stopped: it did not finish within 3 s"
                            + " (DEJA_HELM_TIMEOUT)\n",
                    r.err());
        }
        TestSupport.Run bad = scan(Map.of("DEJA_HELM_TIMEOUT", "soon"), "scan", chart.toString());
        assertEquals(2, bad.code());
        assertEquals(
                "deja: DEJA_HELM_TIMEOUT=soon: expected a number of seconds from 1 to 86400\n",
                bad.err());
    }

    /**
     * Helm for the JVM's native library is extracted once to the user's cache folder (made
     * owner-only) and loaded from there; a cache folder others may write to is not used.
     */
    @Test
    void theNativeLibraryIsExtractedOnceToAPrivateCache(@TempDir Path tmp) throws IOException {
        Map<String, String> env = Map.of("HOME", tmp.toString());
        TestSupport.Run first = scan(env, "scan", CHART, "--fail-on", "none");
        assertEquals(0, first.code(), first.err());
        Path cache = tmp.resolve(".cache/deja");
        assertEquals(
                "rwx------",
                java.nio.file.attribute.PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(cache)));
        List<Path> libs;
        try (var s = Files.list(cache)) {
            libs = s.toList();
        }
        assertEquals(1, libs.size(), libs.toString());
        assertTrue(libs.get(0).getFileName().toString().startsWith("helm-"), libs.toString());
        long modified = Files.getLastModifiedTime(libs.get(0)).toMillis();
        TestSupport.Run again = scan(env, "scan", CHART, "--fail-on", "none");
        assertEquals(0, again.code(), again.err());
        assertEquals(modified, Files.getLastModifiedTime(libs.get(0)).toMillis(), "not rewritten");

        Path shared = Files.createDirectories(tmp.resolve("shared"));
        Path open = Files.createDirectories(shared.resolve("deja"));
        Files.setPosixFilePermissions(
                open, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        TestSupport.Run other =
                scan(
                        Map.of("XDG_CACHE_HOME", shared.toString()),
                        "scan",
                        CHART,
                        "--fail-on",
                        "none");
        assertEquals(0, other.code(), other.err());
        try (var s = Files.list(open)) {
            assertEquals(List.of(), s.toList(), "a folder others may write to is not used");
        }
    }

    /**
     * On a platform whose Helm library the jar does not carry (a Mac, an arm64 node: simulated by a
     * class path without helm-java's linux-amd64 jar), the child says to put helm on the PATH and
     * exits 3, instead of helm-java fetching a library from the network.
     */
    @Test
    void withoutANativeLibraryTheRendererSaysToUseHelm() throws Exception {
        String cp =
                System.getProperty(
                        "surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> kept = new ArrayList<>();
        boolean dropped = false;
        for (String e : cp.split(java.io.File.pathSeparator)) {
            if (e.contains("/com/marcnuri/helm-java/linux-amd64/")) {
                dropped = true;
            } else {
                kept.add(e);
            }
        }
        Assumptions.assumeTrue(
                dropped, "helm-java's linux-amd64 jar is not on the class path " + cp);
        Process p =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-cp",
                                String.join(java.io.File.pathSeparator, kept),
                                RenderMain.class.getName(),
                                CHART,
                                "0")
                        .redirectErrorStream(true)
                        .start();
        String out =
                new String(
                        p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(3, p.exitValue(), out);
        assertTrue(out.startsWith("this build of deja carries no Helm library for "), out);
        assertTrue(out.strip().endsWith(": put helm on the PATH"), out);
    }
}
