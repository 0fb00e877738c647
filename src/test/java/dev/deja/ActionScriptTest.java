package dev.deja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The GitHub Action (action.yml) and its script (.github/actions/scan.sh), run here as a runner
 * runs a composite action: each {@code run:} step in order with bash, its {@code env:} filled from
 * the inputs and the earlier steps' outputs (read back from each step's GITHUB_OUTPUT file), the
 * {@code uses:} steps (setup-java, cache, upload-sarif) left out but their {@code with:} resolved.
 * deja is the one this Maven run compiled (a jar whose manifest points at this JVM's class path),
 * reached either as a release archive served on a loopback HTTP server (a real tar.gz with {@code
 * bin/deja} and its .sha256) or as the jar a stand-in {@code mvn} "builds" from the action's
 * checkout. The scans are real scans of examples/haproxy.
 */
class ActionScriptTest {
    static final Path ACTION = Path.of("action.yml");
    static final Path SCRIPT = Path.of(".github/actions/scan.sh");
    static final String VERSION = "1.2.3";
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir static Path shared;

    static HttpServer server;
    static final Map<String, byte[]> served = new ConcurrentHashMap<>();
    static final List<String> requests = new CopyOnWriteArrayList<>();
    static Path pathingJar;
    static Path envDump;
    static String archiveName;

    @TempDir Path tmp;

    @BeforeAll
    static void serveReleases() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext(
                "/",
                ex -> {
                    String path = ex.getRequestURI().getPath();
                    requests.add(path);
                    byte[] body = served.get(path);
                    if (body == null) {
                        body = "Not Found".getBytes(StandardCharsets.UTF_8);
                        ex.sendResponseHeaders(404, body.length);
                    } else {
                        ex.sendResponseHeaders(200, body.length);
                    }
                    try (OutputStream out = ex.getResponseBody()) {
                        out.write(body);
                    }
                });
        server.start();
        pathingJar = pathingJar(shared.resolve("deja-under-test.jar"));
        envDump = shared.resolve("deja-env.txt");
        String platform = platform();
        if (platform != null) {
            archiveName = "deja-" + VERSION + "-" + platform;
            byte[] archive =
                    archive(
                            shared.resolve("good"),
                            "env > "
                                    + quote(envDump)
                                    + "\nexec "
                                    + quote(java())
                                    + " -jar "
                                    + quote(pathingJar)
                                    + " \"$@\"\n");
            served.put(releasePath(archiveName + ".tar.gz"), archive);
            served.put(
                    releasePath(archiveName + ".tar.gz.sha256"),
                    (sha256(archive) + "  " + archiveName + ".tar.gz\n")
                            .getBytes(StandardCharsets.UTF_8));
        }
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    static String releasesUrl() {
        return "http://127.0.0.1:"
                + server.getAddress().getPort()
                + "/deja-dev/deja/releases/download";
    }

    static String releasePath(String file) {
        return "/deja-dev/deja/releases/download/v" + VERSION + "/" + file;
    }

    /** The archive name's os-arch for this machine, as the script names it; null when none. */
    static String platform() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String o = os.startsWith("linux") ? "linux" : os.startsWith("mac") ? "macos" : null;
        String a =
                Set.of("amd64", "x86_64").contains(arch)
                        ? "amd64"
                        : Set.of("aarch64", "arm64").contains(arch) ? "arm64" : null;
        return o == null || a == null ? null : o + "-" + a;
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    static String quote(Object path) {
        String s = path.toString();
        assertFalse(s.contains("'"), "a temporary path without a quote: " + s);
        return "'" + s + "'";
    }

    /**
     * A jar that runs dev.deja.Main from this test JVM's class path: deja as this build made it.
     */
    static Path pathingJar(Path jar) throws IOException {
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "dev.deja.Main");
        m.getMainAttributes()
                .put(
                        Attributes.Name.CLASS_PATH,
                        Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                                .map(e -> Path.of(e).toAbsolutePath().toUri().toString())
                                .collect(Collectors.joining(" ")));
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), m)) {
            out.flush();
        }
        return jar;
    }

    /** A release archive: top folder deja-VERSION-OS-ARCH with an executable bin/deja. */
    static byte[] archive(Path dir, String launcherBody) throws Exception {
        Path bin = Files.createDirectories(dir.resolve(archiveName).resolve("bin"));
        executable(bin.resolve("deja"), launcherBody);
        Path tgz = dir.resolve(archiveName + ".tar.gz");
        Process p =
                new ProcessBuilder("tar", "-czf", tgz.toString(), "-C", dir.toString(), archiveName)
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(5, TimeUnit.MINUTES));
        assertEquals(0, p.exitValue(), out);
        return Files.readAllBytes(tgz);
    }

    static void executable(Path p, String body) throws IOException {
        Files.writeString(p, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    static String sha256(byte[] b) throws NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> action() throws IOException {
        return (Map<String, Object>) CiExamplesTest.yaml(ACTION);
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> steps() throws IOException {
        return (List<Map<String, Object>>)
                ((Map<String, Object>) action().get("runs")).get("steps");
    }

    // ---- what action.yml says -----------------------------------------------------------------

    @Test
    @SuppressWarnings("unchecked")
    void actionDeclaresItsInputsAndOutputsAndItsStepsPassInputsOnlyThroughTheEnvironment()
            throws IOException {
        Map<String, Object> action = action();
        assertEquals("composite", ((Map<String, Object>) action.get("runs")).get("using"));
        Map<String, Map<String, Object>> inputs =
                (Map<String, Map<String, Object>>) action.get("inputs");
        for (String i :
                List.of("paths", "fail-on", "baseline", "format", "version", "upload-sarif")) {
            assertTrue(inputs.containsKey(i), "input " + i);
            assertNotNull(inputs.get(i).get("description"), "input " + i + " is described");
        }
        assertEquals("sarif", inputs.get("format").get("default"));
        assertEquals("true", inputs.get("upload-sarif").get("default"));
        Map<String, Map<String, Object>> outputs =
                (Map<String, Map<String, Object>>) action.get("outputs");
        for (String o : List.of("exit-code", "new-findings", "sarif")) {
            assertEquals(
                    "${{ steps.scan.outputs." + o + " }}",
                    outputs.get(o).get("value"),
                    "output " + o + " is the scan step's");
        }

        Set<String> inputsUsed = new TreeSet<>();
        Set<String> subcommands = new TreeSet<>();
        Pattern expr = Pattern.compile("\\$\\{\\{\\s*(.*?)\\s*}}");
        for (Map<String, Object> step : steps()) {
            if (step.containsKey("run")) {
                String run = (String) step.get("run");
                assertEquals("bash", step.get("shell"), step.get("name") + ": shell bash");
                assertFalse(
                        run.contains("${{"),
                        step.get("name")
                                + ": no expression inside run (GitHub's script-injection advice:"
                                + " values go through env)");
                Matcher m =
                        Pattern.compile(
                                        "sh \"\\$GITHUB_ACTION_PATH/\\.github/actions/scan\\.sh\" (\\w+)")
                                .matcher(run.strip());
                assertTrue(m.matches(), step.get("name") + " runs the script: " + run);
                subcommands.add(m.group(1));
                Map<String, String> env = (Map<String, String>) step.getOrDefault("env", Map.of());
                for (Map.Entry<String, String> e : env.entrySet()) {
                    Matcher x = expr.matcher(e.getValue());
                    assertTrue(x.matches(), e.getKey() + " is one expression: " + e.getValue());
                    String ref = x.group(1);
                    if (ref.startsWith("inputs.")) {
                        String input = ref.substring("inputs.".length());
                        assertTrue(inputs.containsKey(input), e.getKey() + ": input " + input);
                        assertEquals(
                                "INPUT_" + input.toUpperCase(Locale.ROOT).replace('-', '_'),
                                e.getKey(),
                                "the variable is named after its input");
                        inputsUsed.add(input);
                    } else {
                        assertTrue(
                                ref.matches("steps\\.[\\w-]+\\.outputs\\.[\\w-]+"),
                                e.getKey() + ": an input or a step's output, not " + ref);
                    }
                }
            } else {
                String uses = (String) step.get("uses");
                assertTrue(
                        uses.matches("[\\w.-]+/[\\w.-]+(/[\\w./-]+)?@[0-9a-f]{40}"),
                        uses + " is pinned to a full commit");
                assertTrue(
                        Files.readString(ACTION).contains(uses + " # v"),
                        uses + " says which release that commit is");
            }
        }
        assertEquals(Set.of("build", "install", "scan"), subcommands);
        Set<String> unused = new TreeSet<>(inputs.keySet());
        unused.removeAll(inputsUsed);
        assertEquals(
                Set.of("upload-sarif", "category"),
                unused,
                "every input reaches the script, but those of the upload step");

        Map<String, Object> upload =
                steps().stream()
                        .filter(
                                s ->
                                        String.valueOf(s.get("uses"))
                                                .startsWith("github/codeql-action/upload-sarif@"))
                        .findFirst()
                        .orElseThrow();
        String cond = (String) upload.get("if");
        assertTrue(cond.contains("inputs.upload-sarif == 'true'"), cond);
        assertTrue(cond.contains("!cancelled()"), "the SARIF is uploaded when the scan fails too");
        assertTrue(cond.contains("steps.scan.outputs.sarif != ''"), cond);
        assertEquals(
                "${{ steps.scan.outputs.sarif }}",
                ((Map<String, Object>) upload.get("with")).get("sarif_file"));

        String script = Files.readString(SCRIPT);
        assertTrue(script.startsWith("#!/bin/sh\n"), "a POSIX sh script");
        assertTrue(script.contains("\nset -f\n"), "no globbing of inputs");
        assertFalse(Pattern.compile("(?m)^[^#]*\\beval\\b").matcher(script).find(), "no eval");
    }

    // ---- a runner for the composite action ----------------------------------------------------

    record StepResult(String id, int code, Map<String, String> outputs, String out, String err) {}

    record Run(
            List<StepResult> steps, Map<String, String> outputs, Map<String, String> uploadWith) {
        StepResult step(String id) {
            return steps.stream().filter(s -> id.equals(s.id())).findFirst().orElse(null);
        }

        String log() {
            return steps.stream()
                    .map(s -> "[" + s.id() + " exit " + s.code() + "]\n" + s.out() + s.err())
                    .collect(Collectors.joining("\n"));
        }

        /** The exit code of the first step that failed (the action's failure), or 0. */
        int code() {
            return steps.stream()
                    .mapToInt(StepResult::code)
                    .filter(c -> c != 0)
                    .findFirst()
                    .orElse(0);
        }
    }

    final class Runner {
        final Path workspace;
        final Path home;
        final Path runnerTemp;
        Path actionPath = Path.of("").toAbsolutePath();
        Path extraBin;
        final Map<String, String> jobEnv = new LinkedHashMap<>();

        Runner() throws IOException {
            workspace = Files.createDirectories(tmp.resolve("workspace"));
            home = Files.createDirectories(tmp.resolve("home"));
            runnerTemp = Files.createDirectories(tmp.resolve("runner-temp"));
            for (String f : List.of("il-0264-before.cfg", "il-0011-risky.cfg")) {
                Files.copy(Path.of("examples/haproxy", f), workspace.resolve(f));
            }
            jobEnv.put("DEJA_RELEASES_URL", releasesUrl());
            // what a job may hold: deja must see none of it
            jobEnv.put("GITHUB_TOKEN", "ghs_not-for-deja");
            jobEnv.put("AWS_SECRET_ACCESS_KEY", "aws-not-for-deja");
        }

        @SuppressWarnings("unchecked")
        Run run(Map<String, String> given) throws Exception {
            Map<String, Object> action = action();
            Map<String, String> inputs = new LinkedHashMap<>();
            ((Map<String, Map<String, Object>>) action.get("inputs"))
                    .forEach((k, v) -> inputs.put(k, String.valueOf(v.get("default"))));
            for (String k : given.keySet()) {
                assertTrue(inputs.containsKey(k), "the action has an input " + k);
            }
            inputs.putAll(given);
            Map<String, Map<String, String>> outs = new LinkedHashMap<>();
            List<StepResult> results = new ArrayList<>();
            Map<String, String> uploadWith = null;
            boolean failed = false;
            for (Map<String, Object> step : steps()) {
                if (step.containsKey("uses")) {
                    Map<String, String> with = new LinkedHashMap<>();
                    ((Map<String, Object>) step.getOrDefault("with", Map.of()))
                            .forEach((k, v) -> with.put(k, eval(String.valueOf(v), inputs, outs)));
                    if (((String) step.get("uses"))
                            .startsWith("github/codeql-action/upload-sarif@")) {
                        uploadWith = with;
                    }
                    continue;
                }
                String cond = String.valueOf(step.getOrDefault("if", ""));
                if (failed && !cond.contains("always()") && !cond.contains("!cancelled()")) {
                    continue; // after a failed step the runner runs only these
                }
                String id = (String) step.getOrDefault("id", "step" + results.size());
                Path script = Files.createTempFile(runnerTemp, "step-", ".sh");
                Files.writeString(script, (String) step.get("run"));
                Path outFile = Files.createTempFile(runnerTemp, "output-", "");
                ProcessBuilder pb =
                        new ProcessBuilder(
                                "bash",
                                "--noprofile",
                                "--norc",
                                "-eo",
                                "pipefail",
                                script.toString());
                pb.directory(workspace.toFile());
                Map<String, String> env = pb.environment();
                env.clear();
                env.put(
                        "PATH",
                        (extraBin == null ? "" : extraBin + File.pathSeparator)
                                + System.getenv("PATH"));
                env.put("HOME", home.toString());
                env.put("JAVA_HOME", System.getProperty("java.home"));
                env.put("LANG", "C.UTF-8");
                env.putAll(jobEnv);
                env.put("GITHUB_OUTPUT", outFile.toString());
                env.put("GITHUB_ACTION_PATH", actionPath.toString());
                env.put("GITHUB_WORKSPACE", workspace.toString());
                env.put("RUNNER_TEMP", runnerTemp.toString());
                ((Map<String, Object>) step.getOrDefault("env", Map.of()))
                        .forEach((k, v) -> env.put(k, eval(String.valueOf(v), inputs, outs)));
                Path stdout = runnerTemp.resolve(id + ".out");
                Path stderr = runnerTemp.resolve(id + ".err");
                pb.redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
                Process p = pb.start();
                assertTrue(p.waitFor(10, TimeUnit.MINUTES), id + " did not finish");
                Map<String, String> o = new LinkedHashMap<>();
                for (String line : Files.readAllLines(outFile)) {
                    int eq = line.indexOf('=');
                    assertTrue(eq > 0, id + ": an output line name=value: " + line);
                    o.put(line.substring(0, eq), line.substring(eq + 1));
                }
                outs.put(id, o);
                results.add(
                        new StepResult(
                                id,
                                p.exitValue(),
                                o,
                                Files.readString(stdout),
                                Files.readString(stderr)));
                if (p.exitValue() != 0) {
                    failed = true;
                }
            }
            Map<String, String> actionOutputs = new LinkedHashMap<>();
            ((Map<String, Map<String, Object>>) action.get("outputs"))
                    .forEach(
                            (k, v) ->
                                    actionOutputs.put(
                                            k, eval(String.valueOf(v.get("value")), inputs, outs)));
            return new Run(results, actionOutputs, uploadWith);
        }

        /** ${{ }} as the runner fills it, for the expressions action.yml uses in env and with. */
        String eval(
                String text, Map<String, String> inputs, Map<String, Map<String, String>> outs) {
            Matcher m = Pattern.compile("\\$\\{\\{\\s*(.*?)\\s*}}").matcher(text);
            StringBuilder sb = new StringBuilder();
            while (m.find()) {
                String e = m.group(1);
                String v;
                if (e.startsWith("inputs.")) {
                    v = inputs.get(e.substring("inputs.".length()));
                    assertNotNull(v, "no input " + e);
                } else if (e.matches("steps\\.[\\w-]+\\.outputs\\.[\\w-]+")) {
                    String[] parts = e.split("\\.");
                    v = outs.getOrDefault(parts[1], Map.of()).getOrDefault(parts[3], "");
                } else if (e.equals("runner.os")) {
                    v = "Linux";
                } else {
                    throw new AssertionError("an expression this test does not know: " + e);
                }
                m.appendReplacement(sb, Matcher.quoteReplacement(v));
            }
            m.appendTail(sb);
            return sb.toString();
        }
    }

    static JsonNode read(String path) throws IOException {
        return JSON.readTree(Files.readString(Path.of(path)));
    }

    static int rank(String severity) {
        return List.of("info", "low", "medium", "high", "critical").indexOf(severity);
    }

    // ---- the release archive --------------------------------------------------------------------

    @Test
    void releaseArchiveIsVerifiedUnpackedAndScansWithTheExitCodeOfFailOn() throws Exception {
        Assumptions.assumeTrue(platform() != null, "no release archive for this platform");
        Runner r = new Runner();
        Map<Integer, List<String>> seen = new LinkedHashMap<>();
        for (String failOn : List.of("high", "critical", "none")) {
            Files.deleteIfExists(envDump);
            Run run =
                    r.run(
                            Map.of(
                                    "version",
                                    "v" + VERSION,
                                    "paths",
                                    "il-0264-before.cfg il-0011-risky.cfg",
                                    "fail-on",
                                    failOn));
            StepResult install = run.step("install");
            assertEquals(0, install.code(), run.log());
            assertEquals("release", install.outputs().get("mode"), run.log());
            assertTrue(
                    install.outputs().get("bin").endsWith("/" + archiveName + "/bin/deja"),
                    install.outputs().toString());
            assertEquals("", run.step("build").outputs().getOrDefault("jar", ""), "nothing built");
            StepResult scan = run.step("scan");
            assertNotNull(scan, run.log());

            JsonNode sarif = read(run.outputs().get("sarif"));
            assertEquals("2.1.0", sarif.get("version").asString());
            JsonNode results = sarif.get("runs").get(0).get("results");
            assertTrue(results.size() > 0, "the examples have findings: " + run.log());
            assertEquals(String.valueOf(results.size()), run.outputs().get("findings"));
            assertEquals(
                    run.outputs().get("findings"),
                    run.outputs().get("new-findings"),
                    "without a baseline every finding is new");
            assertEquals(run.outputs().get("sarif"), run.outputs().get("report"), "format sarif");
            assertEquals(run.outputs().get("sarif"), run.uploadWith().get("sarif_file"));

            int worst = -1;
            for (JsonNode res : results) {
                worst = Math.max(worst, rank(res.get("properties").get("severity").asString()));
            }
            int expected = !failOn.equals("none") && worst >= rank(failOn) ? 1 : 0;
            assertEquals(String.valueOf(expected), run.outputs().get("exit-code"), run.log());
            assertEquals(
                    expected, scan.code(), "the scan step exits with deja's code: " + run.log());
            seen.computeIfAbsent(expected, k -> new ArrayList<>()).add(failOn);

            String env = Files.readString(envDump);
            assertFalse(env.contains("not-for-deja"), "deja got the job's secrets:\n" + env);
            assertFalse(env.contains("GITHUB_"), "deja got the job's GitHub variables:\n" + env);
            assertFalse(env.contains("HOME=" + r.home + "\n"), "deja has a HOME of its own");
        }
        assertEquals(
                Set.of(0, 1),
                seen.keySet(),
                "the fail-on values tried give both exit codes: " + seen);
        assertTrue(requests.contains(releasePath(archiveName + ".tar.gz.sha256")));
        assertTrue(requests.contains(releasePath(archiveName + ".tar.gz")));
    }

    @Test
    void wrongSha256IsRefusedAndNothingFromTheArchiveRuns() throws Exception {
        Assumptions.assumeTrue(platform() != null, "no release archive for this platform");
        String version = "1.2.4";
        String name = "deja-" + version + "-" + platform();
        Path ran = tmp.resolve("ran");
        Path dir = Files.createDirectories(tmp.resolve("bad"));
        Path bin = Files.createDirectories(dir.resolve(name).resolve("bin"));
        executable(bin.resolve("deja"), "touch " + quote(ran) + "\n");
        Process p =
                new ProcessBuilder("tar", "-czf", "a.tar.gz", name)
                        .directory(dir.toFile())
                        .inheritIO()
                        .start();
        assertTrue(p.waitFor(5, TimeUnit.MINUTES));
        byte[] archive = Files.readAllBytes(dir.resolve("a.tar.gz"));
        String base = "/deja-dev/deja/releases/download/v" + version + "/" + name;
        served.put(base + ".tar.gz", archive);
        // the checksum of another file
        served.put(
                base + ".tar.gz.sha256",
                (sha256("something else".getBytes(StandardCharsets.UTF_8))
                                + "  "
                                + name
                                + ".tar.gz\n")
                        .getBytes(StandardCharsets.UTF_8));
        Runner r = new Runner();
        Run run = r.run(Map.of("version", version, "paths", "il-0264-before.cfg"));
        assertEquals(1, run.steps().size(), "only the install step ran: " + run.log());
        StepResult install = run.step("install");
        assertNotEquals(0, install.code(), run.log());
        assertTrue(install.out().contains("::error"), run.log());
        assertTrue(install.out().contains("SHA-256"), run.log());
        assertTrue(install.out().contains("refused"), run.log());
        assertFalse(install.outputs().containsKey("bin"), install.outputs().toString());
        assertFalse(Files.exists(ran), "the archive's deja ran");
        try (Stream<Path> left = Files.walk(r.runnerTemp)) {
            assertEquals(
                    List.of(),
                    left.filter(f -> f.getFileName().toString().equals("deja")).toList(),
                    "nothing was unpacked");
        }
        assertTrue(requests.contains(base + ".tar.gz"), "the archive was downloaded and checked");
    }

    // ---- building from the action's checkout ----------------------------------------------------

    @Test
    void withoutAPublishedReleaseTheActionsCheckoutIsBuiltOnceForItsSources() throws Exception {
        Runner r = new Runner();
        // the action's checkout: its script, and sources the key is the hash of
        Path checkout = Files.createDirectories(tmp.resolve("action"));
        Files.copy(ACTION, checkout.resolve("action.yml"));
        Files.createDirectories(checkout.resolve(".github/actions"));
        Files.copy(SCRIPT, checkout.resolve(SCRIPT));
        Files.writeString(checkout.resolve("pom.xml"), "<project/>\n");
        Files.createDirectories(checkout.resolve("src/main/java"));
        Files.writeString(checkout.resolve("src/main/java/A.java"), "class A {}\n");
        Files.createDirectories(checkout.resolve("rules"));
        Files.writeString(checkout.resolve("rules/r.yaml"), "id: r\n");
        r.actionPath = checkout;
        // Maven: "builds" target/deja.jar (this build's deja) and target/helm-java/, and says it
        // ran
        r.extraBin = Files.createDirectories(tmp.resolve("bin"));
        Path mvnLog = tmp.resolve("mvn.log");
        executable(
                r.extraBin.resolve("mvn"),
                "echo \"$(pwd) $*\" >> "
                        + quote(mvnLog)
                        + "\nmkdir -p target/helm-java && cp "
                        + quote(pathingJar)
                        + " target/deja.jar && echo native > target/helm-java/lib.jar\n");

        Map<String, String> inputs =
                new LinkedHashMap<>(
                        Map.of("version", "", "paths", "il-0264-before.cfg", "fail-on", "none"));
        int requestsBefore = requests.size();
        Run first = r.run(inputs);
        assertEquals(0, first.code(), first.log());
        StepResult install = first.step("install");
        assertEquals("build", install.outputs().get("mode"));
        String key = install.outputs().get("key");
        assertTrue(key.matches("[0-9a-f]{64}"), key);
        Path jarDir = Path.of(install.outputs().get("jar-dir"));
        assertEquals(r.home.resolve(".cache/deja-action").resolve(key), jarDir);
        assertEquals(
                List.of(checkout + " -B -ntp -Dmaven.test.skip=true package"),
                Files.readAllLines(mvnLog),
                "built once, in the action's checkout, without the tests");
        assertEquals(
                jarDir.resolve("deja.jar").toString(), first.step("build").outputs().get("jar"));
        assertTrue(
                Files.exists(jarDir.resolve("helm-java/lib.jar")), "Helm's library kept beside it");
        assertEquals("0", first.outputs().get("exit-code"));
        assertTrue(read(first.outputs().get("sarif")).get("runs").get(0).get("results").size() > 0);
        assertEquals(requestsBefore, requests.size(), "no version: nothing downloaded");

        // the cache holds the jar for these sources: no second build
        Run second = r.run(inputs);
        assertEquals(0, second.code(), second.log());
        assertEquals(key, second.step("install").outputs().get("key"));
        assertEquals(1, Files.readAllLines(mvnLog).size(), "cached: " + second.log());

        // other sources, another key and a build
        Files.writeString(checkout.resolve("src/main/java/A.java"), "class A { int x; }\n");
        Run third = r.run(inputs);
        assertEquals(0, third.code(), third.log());
        assertNotEquals(key, third.step("install").outputs().get("key"));
        assertEquals(2, Files.readAllLines(mvnLog).size());

        // a version whose release has no archive (404): a warning, and the build (cached)
        inputs.put("version", "9.9.9");
        Run unpublished = r.run(inputs);
        assertEquals(0, unpublished.code(), unpublished.log());
        assertEquals("build", unpublished.step("install").outputs().get("mode"));
        assertTrue(unpublished.step("install").out().contains("::warning"), unpublished.log());
        assertTrue(
                requests.stream()
                        .anyMatch(q -> q.startsWith("/deja-dev/deja/releases/download/v9.9.9/")),
                requests.toString());
        assertEquals(2, Files.readAllLines(mvnLog).size());
    }

    // ---- hostile inputs -----------------------------------------------------------------------

    @Test
    void shellMetacharactersInInputsAreNeverRun() throws Exception {
        Runner r = new Runner();
        r.extraBin = Files.createDirectories(tmp.resolve("bin"));
        Path cacheDir = r.home.resolve(".cache/deja-action");
        // deja from a "build" already cached (no Maven here): the jar of this test run
        Path checkout = Path.of("").toAbsolutePath();
        r.actionPath = checkout;
        executable(r.extraBin.resolve("mvn"), "echo mvn must not run >&2; exit 9\n");
        Run probe = r.run(Map.of("version", "", "paths", "nothing-here.cfg"));
        Path jarDir = Path.of(probe.step("install").outputs().get("jar-dir"));
        assertTrue(jarDir.startsWith(cacheDir), jarDir.toString());
        Files.createDirectories(jarDir);
        Files.copy(pathingJar, jarDir.resolve("deja.jar"));

        String hook = "/hook-" + System.nanoTime();
        String url = "http://127.0.0.1:" + server.getAddress().getPort() + hook;
        String hostile =
                String.join(
                        "\n",
                        "$(touch pwned-1)",
                        "`touch pwned-2`",
                        "x; touch pwned-3",
                        "x && touch pwned-4 #",
                        "--notify=" + url,
                        "*.cfg",
                        "il-0264-before.cfg");
        Run run =
                r.run(
                        Map.of(
                                "version", "",
                                "paths", hostile,
                                "args", "$(touch pwned-5) ;touch pwned-6",
                                "baseline", "$(touch pwned-7)",
                                "fail-on", "high;touch pwned-8"));
        StepResult scan = run.step("scan");
        assertNotNull(scan, run.log());
        assertEquals(2, scan.code(), "deja refuses what it does not know: " + run.log());
        assertEquals("2", scan.outputs().get("exit-code"));
        assertTrue(requests.stream().noneMatch(q -> q.startsWith(hook)), "a path is no option");
        try (Stream<Path> all = Files.walk(tmp)) {
            assertEquals(
                    List.of(),
                    all.filter(f -> f.getFileName().toString().startsWith("pwned")).toList(),
                    "an input ran as a command: " + run.log());
        }

        // each value reached deja as it was written: a path or an option value, never split by the
        // shell
        Run paths = r.run(Map.of("version", "", "paths", "$(touch pwned-1)\n*.cfg"));
        assertEquals(2, paths.code());
        assertTrue(paths.step("scan").err().contains("$(touch pwned-1)"), paths.log());
        Run glob = r.run(Map.of("version", "", "paths", "*.cfg"));
        assertTrue(glob.step("scan").err().contains("*.cfg: no such file"), glob.log());

        // values the script checks itself
        Run format = r.run(Map.of("version", "", "paths", "x", "format", "sarif; touch pwned-9"));
        assertEquals(2, format.code());
        assertTrue(format.step("scan").out().contains("::error"), format.log());
        Run output =
                r.run(
                        Map.of(
                                "version",
                                "",
                                "paths",
                                "x",
                                "format",
                                "json",
                                "output",
                                "a\nexit-code=0"));
        assertEquals(2, output.code());
        assertFalse(output.step("scan").outputs().containsKey("exit-code"), output.log());
        try (Stream<Path> all = Files.walk(tmp)) {
            assertEquals(
                    List.of(),
                    all.filter(f -> f.getFileName().toString().startsWith("pwned")).toList());
        }
    }

    // ---- baseline -----------------------------------------------------------------------------

    /**
     * The checkout's deja.yaml is the pull request's: by default it may not send the findings
     * anywhere (deja --untrusted-config); {@code trust-config: true} lets it.
     */
    @Test
    void theCheckoutsConfigCannotReachOutUnlessTrusted() throws Exception {
        Assumptions.assumeTrue(platform() != null, "no release archive for this platform");
        Runner r = new Runner();
        String hook = "/hook-" + System.nanoTime();
        Files.writeString(
                r.workspace.resolve("deja.yaml"),
                "failOn: none\nnotify: http://127.0.0.1:"
                        + server.getAddress().getPort()
                        + hook
                        + "\n");
        Map<String, String> inputs =
                new LinkedHashMap<>(
                        Map.of(
                                "version",
                                VERSION,
                                "paths",
                                "il-0264-before.cfg",
                                "fail-on",
                                "none"));
        Run pr = r.run(inputs);
        assertEquals(2, pr.step("scan").code(), pr.log());
        assertTrue(pr.log().contains("deja.yaml:2: sets --notify"), pr.log());
        assertFalse(requests.contains(hook), "the pull request's webhook was called");

        inputs.put("trust-config", "true");
        Run trusted = r.run(inputs);
        assertTrue(
                requests.contains(hook),
                "trusted, the same file notifies (the test's own check): " + trusted.log());
    }

    @Test
    void withABaselineOnlyNewFindingsCountAndTheSarifSaysWhichAreUnchanged() throws Exception {
        Assumptions.assumeTrue(platform() != null, "no release archive for this platform");
        Runner r = new Runner();
        Run before =
                r.run(
                        Map.of(
                                "version", VERSION,
                                "paths", "il-0264-before.cfg",
                                "format", "json",
                                "output", "main.json",
                                "fail-on", "none"));
        assertEquals(0, before.code(), before.log());
        assertEquals("main.json", before.outputs().get("report"));
        assertTrue(Files.exists(r.workspace.resolve("main.json")));
        assertNotEquals(before.outputs().get("sarif"), before.outputs().get("report"));

        Run pr =
                r.run(
                        Map.of(
                                "version", VERSION,
                                "paths", "il-0264-before.cfg\nil-0011-risky.cfg",
                                "baseline", "main.json",
                                "fail-on", "medium",
                                "annotations", "true"));
        JsonNode results = read(pr.outputs().get("sarif")).get("runs").get(0).get("results");
        int fresh = 0;
        int freshAtMedium = 0;
        for (JsonNode res : results) {
            String state = res.get("baselineState").asString();
            String file =
                    res.get("locations")
                            .get(0)
                            .get("physicalLocation")
                            .get("artifactLocation")
                            .get("uri")
                            .asString();
            assertEquals(file.contains("il-0011") ? "new" : "unchanged", state, res.toString());
            if (state.equals("new")) {
                fresh++;
                if (rank(res.get("properties").get("severity").asString()) >= rank("medium")) {
                    freshAtMedium++;
                }
            }
        }
        assertTrue(fresh > 0, pr.log());
        assertEquals(String.valueOf(fresh), pr.outputs().get("new-findings"));
        assertEquals(String.valueOf(results.size()), pr.outputs().get("findings"));
        assertEquals(freshAtMedium > 0 ? 1 : 0, pr.code(), pr.log());
        // the annotation pass: one workflow command per finding on the log
        long annotations =
                pr.step("scan")
                        .out()
                        .lines()
                        .filter(l -> l.matches("::(error|warning|notice) .*"))
                        .count();
        assertEquals(results.size(), annotations, pr.log());
    }
}
