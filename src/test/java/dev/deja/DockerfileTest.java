package dev.deja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What can be checked about the image without a Docker engine: the stages, pinned base images, a
 * numeric non-root user, and that the ENTRYPOINT runs the jar that {@code mvn package} produces,
 * copied from the build stage.
 */
class DockerfileTest {
    record Instr(String op, String args, int line) {}

    record Stage(String image, String tag, String name, List<Instr> body) {}

    static List<Stage> stages;
    static List<String> ignores;

    @BeforeAll
    static void parse() throws IOException {
        stages = stages(Files.readAllLines(Path.of("Dockerfile")));
        ignores =
                Files.readAllLines(Path.of(".dockerignore")).stream()
                        .map(String::strip)
                        .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                        .toList();
    }

    /** Joins continuation lines, drops comments, splits into stages at FROM. */
    static List<Stage> stages(List<String> lines) {
        List<Stage> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        int start = 0;
        List<Instr> instrs = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (cur.length() == 0 && (l.isBlank() || l.strip().startsWith("#"))) {
                continue;
            }
            if (cur.length() == 0) {
                start = i + 1;
            }
            if (l.endsWith("\\")) {
                cur.append(l, 0, l.length() - 1).append(' ');
                continue;
            }
            cur.append(l);
            String s = cur.toString().strip();
            cur.setLength(0);
            int sp = s.indexOf(' ');
            instrs.add(
                    new Instr(
                            s.substring(0, sp).toUpperCase(Locale.ROOT),
                            s.substring(sp + 1).strip(),
                            start));
        }
        Pattern from =
                Pattern.compile(
                        "(?i)(?:--platform=\\S+\\s+)?([^\\s:@]+)(?::([^\\s@]+))?(?:@\\S+)?(?:\\s+AS\\s+(\\S+))?");
        Stage stage = null;
        for (Instr in : instrs) {
            if (in.op().equals("FROM")) {
                Matcher m = from.matcher(in.args());
                assertTrue(
                        m.matches(), "Dockerfile:" + in.line() + ": cannot read FROM " + in.args());
                stage = new Stage(m.group(1), m.group(2), m.group(3), new ArrayList<>());
                out.add(stage);
            } else {
                assertTrue(stage != null, "Dockerfile:" + in.line() + ": instruction before FROM");
                stage.body().add(in);
            }
        }
        return out;
    }

    static String producedJar() throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        Document pom = f.newDocumentBuilder().parse(Path.of("pom.xml").toFile());
        String packaging =
                pom.getElementsByTagNameNS("*", "packaging").item(0).getTextContent().strip();
        String finalName =
                pom.getElementsByTagNameNS("*", "finalName").item(0).getTextContent().strip();
        assertEquals("jar", packaging);
        return "target/" + finalName + ".jar";
    }

    @Test
    void multiStageWithPinnedBaseImages() {
        assertTrue(stages.size() >= 2, "a build stage and a runtime stage");
        for (Stage s : stages) {
            assertTrue(s.tag() != null && !s.tag().isBlank(), s.image() + " is not pinned by tag");
            assertNotEquals("latest", s.tag(), s.image() + ":latest is not a pin");
            assertTrue(s.tag().matches(".*\\d.*"), s.image() + ":" + s.tag() + " names no version");
        }
        assertTrue(
                stages.get(0).image().equals("maven") && stages.get(0).tag().contains("17"),
                "build stage is Maven on JDK 17: " + stages.get(0));
        Stage run = stages.get(stages.size() - 1);
        assertTrue(
                run.tag().contains("17") && run.tag().contains("jre"),
                "runtime stage is a JRE 17: " + run);
    }

    @Test
    void runsAsNumericNonRootUser() {
        Stage run = stages.get(stages.size() - 1);
        List<Instr> users = run.body().stream().filter(i -> i.op().equals("USER")).toList();
        assertFalse(users.isEmpty(), "runtime stage sets USER");
        String user = users.get(users.size() - 1).args();
        assertTrue(
                user.matches("\\d+(:\\d+)?"),
                "USER is numeric (runAsNonRoot can verify it): " + user);
        for (String id : user.split(":")) {
            assertNotEquals(0, Integer.parseInt(id), "USER is not root");
        }
    }

    @Test
    void entrypointRunsTheJarThatMavenBuildsCopiedFromTheBuildStage() throws Exception {
        String jar = producedJar();
        Stage build = stages.get(0);
        assertTrue(build.name() != null, "build stage is named");
        String workdir =
                build.body().stream()
                        .filter(i -> i.op().equals("WORKDIR"))
                        .map(Instr::args)
                        .reduce((a, b) -> b)
                        .orElse("/");
        assertTrue(
                build.body().stream()
                        .anyMatch(
                                i ->
                                        i.op().equals("RUN")
                                                && i.args().contains("mvn")
                                                && i.args().contains("package")),
                "build stage runs mvn package");

        Stage run = stages.get(stages.size() - 1);
        Instr copy =
                run.body().stream()
                        .filter(i -> i.op().equals("COPY") && i.args().startsWith("--from="))
                        .findFirst()
                        .orElseThrow(
                                () ->
                                        new AssertionError(
                                                "runtime stage copies from the build stage"));
        String[] parts = copy.args().split("\\s+");
        assertEquals("--from=" + build.name(), parts[0]);
        assertEquals(
                Path.of(workdir, jar).normalize().toString(),
                parts[1],
                "COPY takes the jar mvn package writes");
        String dest = parts[2];

        Instr entry =
                run.body().stream()
                        .filter(i -> i.op().equals("ENTRYPOINT"))
                        .reduce((a, b) -> b)
                        .orElseThrow(() -> new AssertionError("ENTRYPOINT"));
        JsonNode argv = JsonMapper.builder().build().readTree(entry.args());
        assertTrue(argv.isArray(), "ENTRYPOINT in exec form (no shell in front of the script)");
        assertEquals(1, argv.size(), "ENTRYPOINT is the script: " + argv);
        // the script is copied from the repository (executable there: COPY keeps the mode), starts
        // with a POSIX shell and ends by exec'ing java: java is PID 1 again and gets the signals;
        // the image's CMD and the pod's args are "$@"
        Path script = entrypointScript(run);
        assertTrue(Files.isExecutable(script), script + " is executable");
        List<String> lines = Files.readAllLines(script);
        assertEquals("#!/bin/sh", lines.get(0));
        String exec = lines.get(lines.size() - 1);
        assertTrue(exec.startsWith("exec java "), exec);
        assertTrue(exec.endsWith(" \"$@\""), exec);
        assertTrue(exec.contains(" ${DEJA_JAVA_OPTS:-} "), exec);
        List<String> args = entrypointJava(run);
        assertEquals("java", args.get(0));
        assertTrue(
                args.contains("-XX:MaxRAMPercentage=70"),
                "the heap follows the container's memory limit");
        int j = args.indexOf("-cp");
        assertTrue(j > 0, "java -cp JAR dev.deja.Main");
        assertEquals(dest, args.get(j + 1), "ENTRYPOINT runs the copied jar");
        assertEquals("dev.deja.Main", args.get(j + 2));
        // nothing writable needed: no perf data file under /tmp/hsperfdata_*
        assertTrue(args.contains("-XX:-UsePerfData"), "read-only root filesystem: no hsperfdata");
    }

    /** Where the kernel puts its transparent huge page mode, read by ./deja and the script. */
    static final String THP = "/sys/kernel/mm/transparent_hugepage/enabled";

    /** The repository file that the runtime stage copies to the ENTRYPOINT's path. */
    static Path entrypointScript(Stage run) {
        Instr entry =
                run.body().stream()
                        .filter(i -> i.op().equals("ENTRYPOINT"))
                        .reduce((a, b) -> b)
                        .orElseThrow(() -> new AssertionError("ENTRYPOINT"));
        String inImage = JsonMapper.builder().build().readTree(entry.args()).get(0).asString();
        for (Instr i : run.body()) {
            String[] parts = i.args().split("\\s+");
            if (i.op().equals("COPY")
                    && !i.args().startsWith("--")
                    && parts.length == 2
                    && parts[1].equals(inImage)) {
                return Path.of(parts[0]);
            }
        }
        throw new AssertionError("the runtime stage copies no file to " + inImage);
    }

    /**
     * The arguments java gets from the ENTRYPOINT script, run by a real /bin/sh with a stand-in
     * java on the PATH, "java" first.
     *
     * @param thp what the kernel's transparent huge page file says (the script's copy reads a file
     *     holding it instead), "" for no such file, null for this machine's own file (the script as
     *     it is)
     * @param dejaJavaOpts DEJA_JAVA_OPTS, or null for none
     */
    static List<String> runEntrypoint(Path dir, String thp, String dejaJavaOpts, String... args)
            throws Exception {
        Path sh = Path.of("/bin/sh");
        Assumptions.assumeTrue(Files.isExecutable(sh), "no /bin/sh");
        String text = Files.readString(entrypointScript(stages.get(stages.size() - 1)));
        assertTrue(text.contains(THP), "the script reads " + THP);
        if (thp != null) {
            Path f = dir.resolve("thp-enabled");
            Files.deleteIfExists(f);
            if (!thp.isEmpty()) {
                Files.writeString(f, thp + "\n");
            }
            text = text.replace(THP, f.toString());
        }
        Path script = dir.resolve("entrypoint.sh");
        Files.writeString(script, text);
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path fakeJava = bin.resolve("java");
        Files.writeString(fakeJava, "#!/bin/sh\nfor a in \"$@\"; do echo \"[$a]\"; done\n");
        fakeJava.toFile().setExecutable(true);
        List<String> argv = new ArrayList<>(List.of(sh.toString(), script.toString()));
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
        pb.environment().put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
        pb.environment().remove("DEJA_JAVA_OPTS");
        if (dejaJavaOpts != null) {
            pb.environment().put("DEJA_JAVA_OPTS", dejaJavaOpts);
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        List<String> got = new ArrayList<>(List.of("java"));
        for (String l : out.lines().toList()) {
            assertTrue(l.startsWith("[") && l.endsWith("]"), "stand-in java's output: " + out);
            got.add(l.substring(1, l.length() - 1));
        }
        return got;
    }

    /**
     * The ENTRYPOINT run by a real /bin/sh with a stand-in java: DEJA_JAVA_OPTS is split into
     * options, args pass.
     */
    @Test
    void entrypointAddsDejaJavaOptsAndPassesTheArguments(@TempDir Path tmp) throws Exception {
        for (String opts : new String[] {null, "-Xmx300m -Dx=y"}) {
            List<String> got =
                    runEntrypoint(
                            tmp,
                            "always madvise [never]",
                            opts,
                            "scan",
                            "--config",
                            "/etc/deja/deja.yaml",
                            "a b");
            assertEquals(
                    List.of(
                            "-cp",
                            "/opt/deja/deja.jar",
                            "dev.deja.Main",
                            "scan",
                            "--config",
                            "/etc/deja/deja.yaml",
                            "a b"),
                    got.subList(got.size() - 7, got.size()),
                    got.toString());
            assertEquals(
                    opts != null,
                    got.contains("-Xmx300m") && got.contains("-Dx=y"),
                    got.toString());
        }
    }

    /**
     * As ./deja, the image asks for transparent huge pages where the kernel gives them on request
     * ("[madvise]", or "[always]"), and only there; nothing else of the options changes.
     */
    @Test
    void entrypointAsksForTransparentHugePagesWhereTheKernelOffersThem(@TempDir Path tmp)
            throws Exception {
        String flag = "-XX:+UseTransparentHugePages";
        List<String> without = runEntrypoint(tmp, "always madvise [never]", null, "--version");
        assertFalse(without.contains(flag), without.toString());
        for (String mode : new String[] {"always [madvise] never", "[always] madvise never"}) {
            List<String> with = runEntrypoint(tmp, mode, null, "--version");
            assertTrue(with.contains(flag), mode + ": " + with);
            List<String> rest = new ArrayList<>(with);
            rest.remove(flag);
            assertEquals(without, rest, mode);
        }
        assertEquals(without, runEntrypoint(tmp, "", null, "--version"), "no such file");
        // this machine's own setting, read by the script as it is
        String host = Files.isReadable(Path.of(THP)) ? Files.readString(Path.of(THP)) : "";
        assertEquals(
                host.contains("[madvise]") || host.contains("[always]"),
                runEntrypoint(tmp, null, null, "--version").contains(flag),
                THP + ": " + host);
        // the same test as the launcher's
        String launcher = Files.readString(Path.of("deja"));
        assertTrue(
                launcher.contains(
                        "case \"$(cat "
                                + THP
                                + " 2>/dev/null)\" in\n  *\"[madvise]\"*|*\"[always]\"*) opts=\"$opts "
                                + flag
                                + "\" ;;"),
                "./deja's huge page test");
        // the options of the image's JVM before the script (the sh -c ENTRYPOINT), unchanged
        assertEquals(
                List.of(
                        "java",
                        "-XX:SharedArchiveFile=/opt/deja/deja.jsa",
                        "-Xshare:auto",
                        "-Xlog:cds=off,cds+dynamic=off",
                        "-XX:-UsePerfData",
                        "-XX:TieredStopAtLevel=1",
                        "-XX:+UseSerialGC",
                        "-XX:NewRatio=1",
                        "-XX:InitialRAMPercentage=4",
                        "-XX:MaxRAMPercentage=70",
                        "-Djava.io.tmpdir=/tmp",
                        "-cp",
                        "/opt/deja/deja.jar",
                        "dev.deja.Main",
                        "--version"),
                without);
    }

    record Docker(int code, String out) {}

    /** A docker command's exit code and output; -1 when there is no docker command. */
    static Docker docker(String... args) throws InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("docker"));
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Docker(p.waitFor(), out);
        } catch (IOException e) {
            return new Docker(-1, e.getMessage());
        }
    }

    /**
     * The image itself, where a Docker engine runs and already holds the base images (the test
     * pulls nothing): its JVM asks for transparent huge pages exactly where this machine's kernel
     * offers them on request (a container sees the host's setting). Elsewhere, skipped with a
     * message: the entrypoint script is run with /bin/sh above.
     */
    @Test
    void theImagesJvmAsksForHugePagesAsTheHostOffers() throws Exception {
        Assumptions.assumeTrue(
                docker("info").code() == 0,
                "no Docker engine reachable: the image is not built (its entrypoint script is run"
                        + " with /bin/sh by the other tests)");
        for (Stage st : stages) {
            String image = st.image() + ":" + st.tag();
            Assumptions.assumeTrue(
                    docker("image", "inspect", image).code() == 0,
                    "base image "
                            + image
                            + " is not on this Docker engine (the test pulls nothing)");
        }
        String tag = "deja-dockerfiletest:" + ProcessHandle.current().pid();
        Docker build = docker("build", "-t", tag, ".");
        assertEquals(0, build.code(), build.out());
        try {
            Docker run =
                    docker(
                            "run",
                            "--rm",
                            "-e",
                            "DEJA_JAVA_OPTS=-XX:+PrintFlagsFinal",
                            tag,
                            "--version");
            assertEquals(0, run.code(), run.out());
            assertTrue(run.out().contains("deja "), run.out());
            Matcher m =
                    Pattern.compile("\\bUseTransparentHugePages\\s*=\\s*(true|false)")
                            .matcher(run.out());
            assertTrue(m.find(), run.out());
            String host = Files.isReadable(Path.of(THP)) ? Files.readString(Path.of(THP)) : "";
            assertEquals(
                    String.valueOf(host.contains("[madvise]") || host.contains("[always]")),
                    m.group(1),
                    THP + ": " + host);
        } finally {
            docker("rmi", "-f", tag);
        }
    }

    @Test
    void buildContextHasWhatTheStagesCopyAndNoMore() {
        assertTrue(ignores.contains(".git"), ".dockerignore excludes .git");
        assertTrue(
                ignores.stream().anyMatch(l -> l.equals("target") || l.equals("target/")),
                ".dockerignore excludes target/");
        for (Instr i : stages.stream().flatMap(s -> s.body().stream()).toList()) {
            if (i.op().equals("COPY") && !i.args().startsWith("--from")) {
                String[] parts = i.args().split("\\s+");
                for (int k = 0; k < parts.length - 1; k++) {
                    String src = parts[k];
                    assertTrue(
                            Files.exists(Path.of(src)),
                            "Dockerfile copies " + src + " which is not in the repository");
                    assertFalse(
                            ignores.stream()
                                    .anyMatch(
                                            g ->
                                                    src.equals(g)
                                                            || src.startsWith(
                                                                    g.endsWith("/") ? g : g + "/")),
                            src + " is copied but excluded by .dockerignore");
                }
            }
        }
    }

    /**
     * The AppCDS archive: written in the runtime stage (its own JVM) from the copied jar, used by
     * the ENTRYPOINT.
     */
    @Test
    void appCdsArchiveIsWrittenByTheRuntimeJvmAndUsedByTheEntrypoint() throws Exception {
        Stage run = stages.get(stages.size() - 1);
        List<String> train = trainingCommand(run);
        String archive = option(train, "-XX:ArchiveClassesAtExit=");
        List<String> entry = entrypointJava(run);
        assertEquals(
                archive,
                option(entry, "-XX:SharedArchiveFile="),
                "the ENTRYPOINT uses the archive the stage writes");
        assertTrue(
                entry.contains("-Xshare:auto"), "a JVM that cannot map the archive still starts");
        assertTrue(
                entry.contains("-Xlog:cds=off,cds+dynamic=off"),
                "no CDS warning on stdout (JSON, SARIF reports)");
        for (String o : List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:NewRatio=1")) {
            assertTrue(
                    train.contains(o) && entry.contains(o),
                    "trained with the options it runs with: " + o);
        }
        String jar = entry.get(entry.indexOf("-cp") + 1);
        assertEquals(
                jar, train.get(train.indexOf("-cp") + 1), "trained on the jar the ENTRYPOINT runs");
        assertEquals("dev.deja.cli.CdsTraining", train.get(train.indexOf("-cp") + 2));
        // order in the stage: the jar is copied, then the archive written, as root, before USER
        List<String> ops =
                run.body().stream()
                        .map(
                                i ->
                                        i.op()
                                                + (i.args().contains("ArchiveClassesAtExit")
                                                        ? "-cds"
                                                        : ""))
                        .toList();
        assertTrue(
                ops.indexOf("COPY") < ops.indexOf("RUN-cds")
                        && ops.indexOf("RUN-cds") < ops.indexOf("USER"),
                ops.toString());
    }

    /**
     * No Docker engine can pull the base images here, so the stage's own commands run on this JDK
     * 17: the training command of the Dockerfile writes an archive, and the ENTRYPOINT's JVM
     * options use it (with -Xshare:on, which fails when the archive cannot be used). The jar is the
     * compiled classes in a jar plus the dependency jars (CDS archives no classes from folders).
     */
    @Test
    void theDockerfilesAppCdsOptionsWorkOnAJdk17(@TempDir Path tmp) throws Exception {
        Stage run = stages.get(stages.size() - 1);
        List<String> train = trainingCommand(run);
        List<String> entry = entrypointJava(run);
        String archiveInImage = option(train, "-XX:ArchiveClassesAtExit=");
        String jarInImage = entry.get(entry.indexOf("-cp") + 1);
        Path jar = tmp.resolve("deja-classes.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
                Stream<Path> s = Files.walk(Path.of("target/classes"))) {
            for (Path p : (Iterable<Path>) s.filter(Files::isRegularFile).sorted()::iterator) {
                out.putNextEntry(
                        new JarEntry(
                                Path.of("target/classes")
                                        .relativize(p)
                                        .toString()
                                        .replace('\\', '/')));
                Files.copy(p, out);
                out.closeEntry();
            }
        }
        List<String> cp = new ArrayList<>(List.of(jar.toString()));
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (e.endsWith(".jar")
                    && !e.contains("surefire")
                    && !e.contains("junit")
                    && !e.contains("opentest4j")) {
                cp.add(e);
            }
        }
        String classPath = String.join(File.pathSeparator, cp);
        String archive = tmp.resolve("deja.jsa").toString();
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();

        List<String> dump = new ArrayList<>();
        Map<String, String> env = new HashMap<>();
        for (String t : train.subList(0, train.indexOf("java"))) {
            env.put(t.substring(0, t.indexOf('=')), t.substring(t.indexOf('=') + 1));
        }
        for (String t : train.subList(train.indexOf("java"), train.size())) {
            dump.add(
                    t.equals("java")
                            ? javaBin
                            : t.equals(jarInImage)
                                    ? classPath
                                    : t.equals("/tmp/deja-training")
                                            ? Path.of("examples").toAbsolutePath().toString()
                                            : t.replace(archiveInImage, archive)
                                                    .replace(
                                                            "-Djava.io.tmpdir=/tmp",
                                                            "-Djava.io.tmpdir=" + tmp));
        }
        ProcessBuilder pb =
                new ProcessBuilder(dump)
                        .redirectErrorStream(true)
                        .redirectOutput(tmp.resolve("train.log").toFile());
        pb.environment().putAll(env);
        pb.start().waitFor();
        assertTrue(
                Files.size(Path.of(archive)) > 1_000_000,
                "the training wrote an archive: " + Files.readString(tmp.resolve("train.log")));

        List<String> use = new ArrayList<>(List.of(javaBin));
        for (String t : entry.subList(1, entry.indexOf("-cp"))) {
            if (!t.startsWith("${")) {
                use.add(
                        t.replace(archiveInImage, archive)
                                .replace("-Xshare:auto", "-Xshare:on")
                                .replace("-Djava.io.tmpdir=/tmp", "-Djava.io.tmpdir=" + tmp));
            }
        }
        List<String> version = new ArrayList<>(use);
        version.addAll(List.of("-cp", classPath, "dev.deja.Main", "--version"));
        Process p = new ProcessBuilder(version).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "the ENTRYPOINT's JVM uses the archive (-Xshare:on): " + out);
        assertTrue(out.startsWith("deja "), out);
        // a command that parses its options with picocli: picocli's classes come from the archive
        // too (the build rewrites its Java 5 class files, which CDS does not archive)
        Path loads = tmp.resolve("loads.txt");
        List<String> rules = new ArrayList<>(use);
        rules.addAll(
                List.of(
                        "-Xlog:class+load=info:file=" + loads,
                        "-cp",
                        classPath,
                        "dev.deja.Main",
                        "rules"));
        Process r = new ProcessBuilder(rules).redirectErrorStream(true).start();
        String listed = new String(r.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, r.waitFor(), listed);
        List<String> picocli =
                Files.readAllLines(loads).stream()
                        .filter(l -> l.contains(" picocli.CommandLine"))
                        .toList();
        assertTrue(picocli.size() > 50, picocli.toString());
        for (String l : picocli) {
            assertTrue(l.contains("source: shared objects file"), "from the archive: " + l);
        }
    }

    /**
     * The java command of the RUN that writes the archive, with the environment assignments before
     * it.
     */
    static List<String> trainingCommand(Stage run) {
        Instr cds =
                run.body().stream()
                        .filter(
                                i ->
                                        i.op().equals("RUN")
                                                && i.args().contains("-XX:ArchiveClassesAtExit="))
                        .findFirst()
                        .orElseThrow(
                                () ->
                                        new AssertionError(
                                                "the runtime stage writes an AppCDS archive"));
        List<String> out = new ArrayList<>();
        for (String t : cds.args().split("\\s+")) {
            if (t.startsWith(">") || t.equals("||") || t.endsWith(";")) {
                break;
            }
            out.add(t);
        }
        assertTrue(out.contains("java"), out.toString());
        return out;
    }

    /**
     * The ENTRYPOINT script's java command, "java" to "-cp JAR dev.deja.Main", as the script runs
     * it where the kernel gives no transparent huge pages.
     */
    static List<String> entrypointJava(Stage run) throws Exception {
        Path dir = Files.createTempDirectory("deja-entrypoint");
        try {
            List<String> args = runEntrypoint(dir, "always madvise [never]", null);
            return args.subList(0, args.indexOf("-cp") + 3);
        } finally {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
    }

    static String option(List<String> args, String prefix) {
        return args.stream()
                .filter(a -> a.startsWith(prefix))
                .map(a -> a.substring(prefix.length()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + prefix + " in " + args));
    }
}
