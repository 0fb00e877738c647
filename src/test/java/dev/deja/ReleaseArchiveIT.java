package dev.deja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The release archive that {@code mvn verify} built for this platform (pom.xml,
 * pre-integration-test, into {@code target/release/}), as a user gets it: its checksum files match
 * it, it holds one top folder with the launcher, the jar, this platform's natives only and a
 * runtime; unpacked into an empty folder and run with an environment built here (a PATH of a few
 * POSIX tools with no {@code java} and no {@code helm} on it, no JAVA_HOME), it scans the
 * repository's examples and renders a chart as {@code java -cp target/deja.jar} does; the Homebrew
 * formula and the krew manifest generated beside it name its URL and its real SHA-256.
 *
 * <p>The PATH is not {@code /usr/bin:/bin}: on this machine (Debian's openjdk-17) {@code
 * /usr/bin/java} exists, so the tools are linked into a folder of their own; {@link
 * #noJavaOnThePath} checks that {@code command -v java} finds nothing there.
 */
class ReleaseArchiveIT {
    static Path dist;
    static String name;
    static String version;
    static String platform;
    static Path archive;
    @TempDir static Path tmp;
    static Path home;
    static Path tools;

    @BeforeAll
    static void unpack() throws Exception {
        Assumptions.assumeFalse(
                Boolean.parseBoolean(System.getProperty("deja.release.skip", "true")),
                "no release archive for this platform ("
                        + System.getProperty("os.name")
                        + " "
                        + System.getProperty("os.arch")
                        + "): the pom builds one on linux and macOS, amd64 and arm64");
        dist = Path.of(System.getProperty("deja.release.dir"));
        name = System.getProperty("deja.release.name");
        Matcher m = Pattern.compile("deja-(.+)-((?:linux|macos)-(?:amd64|arm64))").matcher(name);
        assertTrue(m.matches(), "archive name deja-VERSION-OS-ARCH: " + name);
        version = m.group(1);
        platform = m.group(2);
        archive = dist.resolve(name + ".tar.gz");
        assertTrue(Files.isRegularFile(archive), archive + " was built");
        // a PATH with the few tools the launcher uses and nothing else: no java, no helm
        tools = Files.createDirectories(tmp.resolve("tools"));
        for (String t : List.of("sh", "readlink", "dirname", "cat", "tar", "gzip")) {
            Path real = which(t);
            Files.createSymbolicLink(tools.resolve(t), real);
        }
        Path into = Files.createDirectories(tmp.resolve("install"));
        Result r = run(into, List.of("tar", "xzf", archive.toString()));
        assertEquals(0, r.code(), r.err());
        try (Stream<Path> top = Files.list(into)) {
            assertEquals(
                    List.of(name),
                    top.map(p -> p.getFileName().toString()).toList(),
                    "one top folder");
        }
        home = into.resolve(name);
        copy(Path.of("examples"), tmp.resolve("examples"));
        copy(Path.of("charts/deja"), tmp.resolve("chart"));
    }

    @Test
    void checksumFilesMatchTheArchive() throws Exception {
        String sum = sha256(archive);
        assertEquals(
                sum + "  " + name + ".tar.gz\n",
                Files.readString(dist.resolve(name + ".tar.gz.sha256")),
                "the .sha256 file (sha256sum -c format)");
        assertTrue(
                Files.readAllLines(dist.resolve("SHA256SUMS"))
                        .contains(sum + "  " + name + ".tar.gz"),
                "SHA256SUMS lists the archive");
        Path sbom = dist.resolve(name + ".cdx.json");
        assumeSbom();
        assertTrue(
                Files.readAllLines(dist.resolve("SHA256SUMS"))
                        .contains(sha256(sbom) + "  " + sbom.getFileName()),
                "SHA256SUMS lists the SBOM");
        assertEquals(
                sha256(sbom) + "  " + sbom.getFileName() + "\n",
                Files.readString(dist.resolve(sbom.getFileName() + ".sha256")));
    }

    /**
     * cyclonedx-maven-plugin writes no SBOM in an offline build (pom.xml says so): then these
     * checks are skipped, unless {@code -Ddeja.release.sbom=required} (the release workflow) says
     * that an archive without one is a failure.
     */
    static void assumeSbom() {
        boolean present = Files.exists(dist.resolve(name + ".cdx.json"));
        if (!present && "required".equals(System.getProperty("deja.release.sbom"))) {
            throw new AssertionError("no SBOM " + dist.resolve(name + ".cdx.json"));
        }
        Assumptions.assumeTrue(
                present, "no SBOM: an offline build (cyclonedx-maven-plugin runs online only)");
    }

    @Test
    void noJavaOnThePath() throws Exception {
        Result r = run(tmp, List.of("sh", "-c", "command -v java || command -v helm"));
        assertTrue(r.code() != 0, "neither java nor helm is found: " + r.out() + r.err());
        assertEquals("", r.out());
    }

    @Test
    void carriesTheSbomOfWhatItBundles() throws Exception {
        assumeSbom();
        // the SBOM lists the components the jar bundles, helm-java's native for this platform among
        // them; the archive's copy is the one published beside it
        String sbom = Files.readString(home.resolve("sbom.cdx.json"));
        assertEquals(Files.readString(dist.resolve(name + ".cdx.json")), sbom);
        assertTrue(sbom.contains("\"bomFormat\" : \"CycloneDX\""), "a CycloneDX SBOM");
        assertTrue(sbom.contains("pkg:maven/io.fabric8/kubernetes-client@"), "lists Fabric8");
        String helm = platform.replace("macos", "darwin");
        assertTrue(
                sbom.contains("pkg:maven/com.marcnuri.helm-java/" + helm + "@"), "lists " + helm);
    }

    @Test
    void holdsTheLayoutAndOnlyThisPlatformsNatives() throws Exception {
        for (String f :
                List.of(
                        "bin/deja",
                        "bin/kubectl-deja",
                        "runtime/bin/java",
                        "runtime/lib/jspawnhelper")) {
            assertTrue(Files.isExecutable(home.resolve(f)), f + " is executable");
        }
        for (String f : List.of("lib/deja.jar", "LICENSE", "NOTICE", "README.md", "CHANGELOG.md")) {
            assertTrue(Files.isRegularFile(home.resolve(f)), f);
        }
        assertEquals(
                Files.readString(Path.of("CHANGELOG.md")),
                Files.readString(home.resolve("CHANGELOG.md")));
        // the launcher is the repository's packaging/bin/deja
        assertEquals(
                Files.readString(Path.of("packaging/bin/deja")),
                Files.readString(home.resolve("bin/deja")));
        // the runtime holds the modules the pom names (jlink adds what they require)
        String release = Files.readString(home.resolve("runtime/release"));
        for (String mod : System.getProperty("deja.release.modules").split(",")) {
            assertTrue(
                    release.matches("(?s).*MODULES=\"[^\"]*\\b" + Pattern.quote(mod) + "\\b.*"),
                    mod);
        }
        assertFalse(release.contains("jdk.compiler"), "a trimmed runtime, not a JDK: " + release);
        // natives: on disk only this OS's kind; inside the jars only this platform's
        String ext = platform.startsWith("linux") ? ".so" : ".dylib";
        List<String> helmJars = new ArrayList<>();
        try (Stream<Path> all = Files.walk(home)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                String n = p.getFileName().toString();
                if (isNative(n)) {
                    assertTrue(
                            n.endsWith(ext), home.relativize(p) + " is not a " + ext + " library");
                }
                if (n.endsWith(".jar") && !p.startsWith(home.resolve("runtime"))) {
                    nativesOfThisPlatformOnly(p);
                    if (p.getParent().equals(home.resolve("lib/helm-java"))) {
                        helmJars.add(n);
                    }
                }
            }
        }
        String helmPlatform = platform.replace("macos", "darwin");
        assertEquals(1, helmJars.size(), "one helm-java native jar: " + helmJars);
        assertTrue(helmJars.get(0).startsWith(helmPlatform + "-"), helmJars.toString());
    }

    @Test
    void scansTheExamplesWithoutJavaOnThePathAsTheJarDoes() throws Exception {
        List<String> args = List.of("scan", "examples/", "--format", "json");
        Result archived = run(tmp, withLauncher(args));
        Result jar = runJar(args);
        assertEquals(1, archived.code(), "findings at or above medium: exit 1\n" + archived.err());
        assertEquals(jar.code(), archived.code());
        List<String> rules = ruleIds(archived.out());
        assertTrue(rules.size() >= 10, "real findings: " + rules);
        assertTrue(rules.contains("haproxy-tarpit-holds-slots"), rules.toString());
        assertEquals(ruleIds(jar.out()), rules, "the archive finds what the jar finds");
        assertEquals(
                summary(jar.out()),
                summary(archived.out()),
                "the same summary (total, severities)");
        // and the text report, byte for byte
        Result text = run(tmp, withLauncher(List.of("scan", "examples/")));
        assertEquals(runJar(List.of("scan", "examples/")).out(), text.out());
    }

    @Test
    void printsItsVersion() throws Exception {
        Result r = run(tmp, withLauncher(List.of("--version")));
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("deja " + version), r.out());
        assertEquals(runJar(List.of("--version")).out(), r.out());
    }

    static List<String> withLauncher(List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(home.resolve("bin/deja").toString());
        cmd.addAll(args);
        return cmd;
    }

    /** The rule ids of a JSON report's findings, sorted. */
    @SuppressWarnings("unchecked")
    static List<String> ruleIds(String json) {
        Map<String, Object> report =
                map(new Yaml(new SafeConstructor(new LoaderOptions())).load(json));
        List<String> ids = new ArrayList<>();
        for (Object f : (List<Object>) report.get("findings")) {
            ids.add((String) map(f).get("ruleId"));
        }
        assertEquals(
                ((Number) map(report.get("summary")).get("total")).intValue(),
                ids.size(),
                "summary.total counts the findings");
        Collections.sort(ids);
        return ids;
    }

    static Object summary(String json) {
        Map<String, Object> report =
                map(new Yaml(new SafeConstructor(new LoaderOptions())).load(json));
        return map(report.get("summary")).get("bySeverity");
    }

    @Test
    void rendersAChartWithHelmJavaFromLib() throws Exception {
        // no chart under examples/: the repository's own (charts/deja)
        Result archived = run(tmp, withLauncher(List.of("scan", "chart/")));
        assertEquals(0, archived.code(), archived.out() + archived.err());
        assertTrue(
                archived.out().contains("sources: kubernetes (")
                        && archived.out().contains("everything requested was read"),
                "the chart was rendered and its objects read: " + archived.out());
        Result jar = runJar(List.of("scan", "chart/"));
        assertEquals(jar.out(), archived.out());
    }

    @Test
    void runsAsAKubectlPluginThroughKrewsLink() throws Exception {
        Path krewBin = Files.createDirectories(tmp.resolve("krew-bin"));
        Path link = krewBin.resolve("kubectl-deja");
        if (!Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.createSymbolicLink(link, home.resolve("bin/kubectl-deja"));
        }
        Result r = run(tmp, List.of(link.toString(), "--version"));
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("deja " + version), r.out());
    }

    @Test
    void formulaAndKrewManifestNameTheArchivesUrlAndRealSha256() throws Exception {
        String sum = sha256(archive);
        String url = System.getProperty("deja.release.download") + "/" + name + ".tar.gz";
        // krew
        Map<String, Object> krew =
                new Yaml(new SafeConstructor(new LoaderOptions()))
                        .load(Files.readString(dist.resolve("deja.yaml")));
        assertEquals("krew.googlecontainertools.github.com/v1alpha2", krew.get("apiVersion"));
        assertEquals("Plugin", krew.get("kind"));
        assertEquals("deja", map(krew.get("metadata")).get("name"));
        Map<String, Object> spec = map(krew.get("spec"));
        assertEquals("v" + version, spec.get("version"));
        List<?> platforms = (List<?>) spec.get("platforms");
        assertEquals(1, platforms.size(), "the archives built here: this platform's");
        Map<String, Object> p = map(platforms.get(0));
        String[] osArch = platform.split("-");
        assertEquals(
                Map.of("os", osArch[0].replace("macos", "darwin"), "arch", osArch[1]),
                map(p.get("selector")).get("matchLabels"));
        assertEquals(url, p.get("uri"));
        assertEquals(sum, p.get("sha256"));
        assertEquals("bin/kubectl-deja", p.get("bin"));
        assertTrue(Files.isExecutable(home.resolve((String) p.get("bin"))));
        assertEquals(
                List.of(Map.of("from", name + "/*", "to", ".")), p.get("files"), "krew's files");
        // Homebrew: one url/sha256 pair, in the block of this OS and CPU
        String rb = Files.readString(dist.resolve("deja.rb"));
        assertTrue(rb.contains("\n  version \"" + version + "\"\n"), rb);
        Matcher pair =
                Pattern.compile(
                                "on_(macos|linux) do\\n\\s*on_(arm|intel) do\\n"
                                        + "\\s*url \"([^\"]+)\"\\n\\s*sha256 \"([0-9a-f]{64})\"\\n")
                        .matcher(rb);
        assertTrue(pair.find(), rb);
        assertEquals(osArch[0].equals("macos") ? "macos" : "linux", pair.group(1));
        assertEquals(osArch[1].equals("arm64") ? "arm" : "intel", pair.group(2));
        assertEquals(url, pair.group(3));
        assertEquals(sum, pair.group(4));
        Matcher urls = Pattern.compile("(?m)^\\s*url ").matcher(rb);
        int n = 0;
        while (urls.find()) {
            n++;
        }
        assertEquals(1, n, "one url: the archives built here");
    }

    // ---- helpers

    record Result(int code, String out, String err) {}

    @SuppressWarnings("unchecked") // SnakeYAML's maps
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    static String ext(String os) {
        return os.equals("linux") ? ".so" : ".dylib";
    }

    static boolean isNative(String n) {
        return n.endsWith(".so")
                || n.endsWith(".dylib")
                || n.endsWith(".jnilib")
                || n.endsWith(".dll");
    }

    /**
     * Every native library inside the jar is this platform's (JNA's and helm-java's path forms).
     */
    static void nativesOfThisPlatformOnly(Path jar) throws IOException {
        String[] osArch = platform.split("-");
        String jnaOs = osArch[0].equals("macos") ? "darwin" : "linux";
        String jnaArch = osArch[1].equals("amd64") ? "x86-64" : "aarch64";
        String helm = "com/marcnuri/helm/jni/" + jnaOs + "/" + osArch[1] + "/";
        String jna = "com/sun/jna/" + jnaOs + "-" + jnaArch + "/";
        TreeSet<String> wrong = new TreeSet<>();
        try (ZipFile z = new ZipFile(jar.toFile())) {
            for (Enumeration<? extends ZipEntry> e = z.entries(); e.hasMoreElements(); ) {
                String n = e.nextElement().getName();
                String lower = n.toLowerCase(Locale.ROOT);
                // helm-java's library is helm-OS-ARCH.so (or .dylib) at its jar's root
                boolean helmLib = n.equals("helm-" + jnaOs + "-" + osArch[1] + ext(jnaOs));
                if (isNative(lower) && !n.startsWith(helm) && !n.startsWith(jna) && !helmLib) {
                    wrong.add(n);
                }
            }
        }
        assertEquals(
                new TreeSet<String>(), wrong, jar.getFileName() + ": natives of another platform");
    }

    static Result runJar(List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(Path.of("target/deja.jar").toAbsolutePath().toString());
        cmd.add("dev.deja.Main");
        cmd.addAll(args);
        return run(tmp, cmd);
    }

    /** Runs with an environment of PATH (the few tools), HOME and TMPDIR only. */
    static Result run(Path dir, List<String> cmd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        Map<String, String> env = pb.environment();
        env.clear();
        env.put("PATH", tools.toString());
        env.put("HOME", tmp.toString());
        Path t = Files.createDirectories(tmp.resolve("t"));
        env.put("TMPDIR", t.toString());
        Path out = Files.createTempFile(tmp, "out", ".txt");
        Path err = Files.createTempFile(tmp, "err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), "finished: " + cmd);
        return new Result(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    static Path which(String tool) {
        for (String d :
                System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
            Path p = Path.of(d, tool);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        throw new IllegalStateException(tool + " is not on the PATH");
    }

    static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path d = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(d);
                } else {
                    Files.copy(p, d);
                }
            }
        }
    }

    static String sha256(Path f) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(f)) {
            byte[] b = new byte[1 << 16];
            for (int n; (n = in.read(b)) > 0; ) {
                md.update(b, 0, n);
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
