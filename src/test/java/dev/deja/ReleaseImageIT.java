package dev.deja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The container image that {@code mvn -B -Pimage verify} built from the release archive (pom.xml,
 * profile image; packaging/image), as a container runtime would run it, without one: the OCI layout
 * tar is read here (index, manifest, config, every blob checked against its digest), its layers are
 * unpacked in order into an empty root filesystem, and the config's entrypoint runs inside it under
 * bubblewrap with the config's user, working directory and environment only (no network, no host
 * file but the examples, mounted read-only). It scans the repository's examples as {@code java -cp
 * target/deja.jar} does and prints the same version.
 *
 * <p>Without the profile the image is not built and this class skips, saying so; with it ({@code
 * deja.image.required=true}) a missing image or a missing {@code bwrap} fails.
 */
class ReleaseImageIT {
    static final Set<String> TOP =
            Set.of("opt", "bin", "lib", "lib64", "etc", "tmp", "work", "usr", "app");
    static boolean required;
    static Path image;
    static String version;
    @TempDir static Path tmp;
    static Path rootfs;
    static Map<String, Object> config;
    static List<String> layerNames = new ArrayList<>();

    @BeforeAll
    static void unpack() throws Exception {
        required = Boolean.parseBoolean(System.getProperty("deja.image.required", "false"));
        String tar = System.getProperty("deja.image.tar", "");
        image = Path.of(tar.isEmpty() ? "target/release/none-image.tar" : tar);
        if (!required) {
            Assumptions.assumeTrue(
                    Files.isRegularFile(image),
                    "no container image at "
                            + image
                            + ": it is built by 'mvn -B -Pimage verify' (docs/install.md)");
        }
        assertTrue(Files.isRegularFile(image), image + " was built by the image profile");
        Path bwrap = which("bwrap");
        if (!required) {
            Assumptions.assumeTrue(bwrap != null, "bwrap (bubblewrap) is not installed");
        }
        assertTrue(bwrap != null, "bwrap (bubblewrap, installed by .ci/run) is on the PATH");
        version =
                image.getFileName()
                        .toString()
                        .replaceFirst("^deja-(.+)-linux-[a-z0-9]+-image\\.tar$", "$1");

        Path layout = Files.createDirectories(tmp.resolve("layout"));
        Result x = run(List.of("tar", "-xf", image.toString(), "-C", layout.toString()));
        assertEquals(0, x.code(), x.err());
        assertEquals(
                "1.0.0",
                json(Files.readString(layout.resolve("oci-layout"))).get("imageLayoutVersion"),
                "an OCI image layout");
        Map<String, Object> index = json(Files.readString(layout.resolve("index.json")));
        List<Object> manifests = list(index.get("manifests"));
        assertEquals(1, manifests.size(), "one image in the tar");
        Map<String, Object> manifest = json(blob(layout, map(manifests.get(0))));
        config = json(blob(layout, map(manifest.get("config"))));
        assertEquals("linux", config.get("os"));
        assertEquals("amd64", config.get("architecture"));

        rootfs = Files.createDirectories(tmp.resolve("rootfs"));
        for (Object l : list(manifest.get("layers"))) {
            Map<String, Object> layer = map(l);
            assertTrue(
                    ((String) layer.get("mediaType")).endsWith(".tar+gzip"),
                    "a gzip layer: " + layer);
            Path file = blobFile(layout, layer);
            Result t = run(List.of("tar", "-tzf", file.toString()));
            assertEquals(0, t.code(), t.err());
            layerNames.addAll(t.out().lines().toList());
            // -p: the layer's modes as they are (/tmp 777, the programs 755), whatever the umask
            Result u = run(List.of("tar", "-xpzf", file.toString(), "-C", rootfs.toString()));
            assertEquals(0, u.code(), u.err());
        }
    }

    @Test
    void configRunsTheLauncherAsANumericNonRootUser() {
        Map<String, Object> c = map(config.get("config"));
        assertEquals("10001:10001", c.get("User"));
        assertEquals(List.of("/opt/deja/bin/deja"), c.get("Entrypoint"));
        assertEquals(List.of("--help"), c.get("Cmd"));
        assertEquals("/work", c.get("WorkingDir"));
        assertEquals(
                List.of("LANG=C.UTF-8", "PATH=/opt/deja/bin:/bin"), sorted(list(c.get("Env"))));
        Map<String, Object> labels = map(c.get("Labels"));
        assertEquals("deja", labels.get("org.opencontainers.image.title"));
        assertEquals("Apache-2.0", labels.get("org.opencontainers.image.licenses"));
        assertEquals(
                "https://github.com/deja-dev/deja", labels.get("org.opencontainers.image.source"));
        assertEquals(version, labels.get("org.opencontainers.image.version"));
        // Jib's fixed dates: the image does not carry the time it was built
        assertEquals("1970-01-01T00:00:00Z", config.get("created"));
    }

    @Test
    void layersHoldTheImagesFilesOnlyAndNoPathOfTheBuildMachine() throws Exception {
        Set<String> tops = new TreeSet<>();
        for (String n : layerNames) {
            tops.add(n.replaceFirst("^\\./", "").split("/", 2)[0]);
        }
        tops.remove("");
        assertTrue(TOP.containsAll(tops), "top folders " + tops + " within " + TOP);
        String base = Path.of("").toAbsolutePath().toString();
        String repo = System.getProperty("user.home");
        for (String n : layerNames) {
            assertTrue(!("/" + n).startsWith(base + "/"), "a path of the build folder: " + n);
        }
        // no text file of the image names the build folder (os-files.txt, passwd, the launcher...)
        try (Stream<Path> all = Files.walk(rootfs)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
                        && Files.size(p) < 1 << 20
                        && !p.toString().endsWith(".so")) {
                    String s = new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1);
                    assertTrue(!s.contains(base), rootfs.relativize(p) + " names " + base);
                    assertTrue(!s.contains(repo + "/.m2"), rootfs.relativize(p) + " names " + repo);
                }
            }
        }
        // the release archive's layout under /opt/deja, the launcher's tools, the dynamic loader
        for (String f :
                List.of(
                        "opt/deja/bin/deja",
                        "opt/deja/runtime/bin/java",
                        // the JDK's own CA certificates: the clients need no /etc/ssl
                        "opt/deja/runtime/lib/security/cacerts",
                        "opt/deja/lib/deja.jar",
                        "opt/deja/LICENSE",
                        "opt/deja/NOTICE",
                        "bin/sh",
                        "lib64/ld-linux-x86-64.so.2",
                        "lib/x86_64-linux-gnu/libc.so.6",
                        "usr/share/doc/libc6/copyright",
                        "usr/share/doc/deja-image/os-files.txt")) {
            assertTrue(Files.isRegularFile(rootfs.resolve(f)), f);
        }
        assertEquals(
                "rwxr-xr-x",
                PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(rootfs.resolve("opt/deja/bin/deja"))));
        Set<PosixFilePermission> tmpMode = Files.getPosixFilePermissions(rootfs.resolve("tmp"));
        assertEquals("rwxrwxrwx", PosixFilePermissions.toString(tmpMode), "/tmp for every user");
        // the CA certificates are there (a store with entries, not a link to the build machine's
        // /etc/ssl)
        java.security.KeyStore cacerts = java.security.KeyStore.getInstance("JKS");
        try (InputStream in =
                Files.newInputStream(rootfs.resolve("opt/deja/runtime/lib/security/cacerts"))) {
            cacerts.load(in, null);
        }
        assertTrue(cacerts.size() > 10, "CA certificates: " + cacerts.size());
        String passwd = Files.readString(rootfs.resolve("etc/passwd"));
        assertTrue(passwd.lines().anyMatch(l -> l.startsWith("deja:x:10001:10001:")), passwd);
        assertTrue(
                Files.readString(rootfs.resolve("etc/group"))
                        .lines()
                        .anyMatch(l -> l.equals("deja:x:10001:")));
        // every copied system file says where it comes from (package and version)
        List<String> os =
                Files.readAllLines(rootfs.resolve("usr/share/doc/deja-image/os-files.txt")).stream()
                        .filter(l -> !l.startsWith("#"))
                        .toList();
        assertTrue(
                os.stream().anyMatch(l -> l.startsWith("/lib/x86_64-linux-gnu/libc.so.6 ")),
                os.toString());
        for (String l : os) {
            assertTrue(Files.isRegularFile(rootfs.resolve(l.split(" ")[0].substring(1))), l);
        }
    }

    @Test
    void scansTheExamplesInTheImageAsTheJarDoes() throws Exception {
        List<String> args = List.of("scan", "examples/", "--format", "json");
        Result inImage = inImage(args);
        Result jar = runJar(args);
        assertEquals(1, inImage.code(), "findings at or above medium: exit 1\n" + inImage.err());
        assertEquals(jar.code(), inImage.code());
        List<String> rules = ReleaseArchiveIT.ruleIds(inImage.out());
        assertTrue(rules.size() >= 10, "real findings: " + rules);
        assertTrue(rules.contains("haproxy-tarpit-holds-slots"), rules.toString());
        assertEquals(
                ReleaseArchiveIT.ruleIds(jar.out()), rules, "the image finds what the jar finds");
        assertEquals(ReleaseArchiveIT.summary(jar.out()), ReleaseArchiveIT.summary(inImage.out()));
        // and the text report, byte for byte
        assertEquals(
                runJar(List.of("scan", "examples/")).out(),
                inImage(List.of("scan", "examples/")).out());
    }

    @Test
    void printsItsVersion() throws Exception {
        Result r = inImage(List.of("--version"));
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("deja " + version + "\n"), r.out());
        assertEquals(runJar(List.of("--version")).out(), r.out());
    }

    /**
     * Runs the config's entrypoint with ARGS in the unpacked image under bubblewrap: every
     * namespace unshared (no network), the root filesystem bound as /, /proc and /dev of the
     * sandbox, the config's user and working directory, the repository's examples read-only under
     * it, and an environment of the config's Env only.
     */
    static Result inImage(List<String> args) throws Exception {
        return inImage(Path.of("examples"), "examples", args);
    }

    @Test
    void rendersAChartWithHelmJavaInTheImage() throws Exception {
        // the repository's own chart, rendered by Helm for the JVM from /opt/deja/lib/helm-java (no
        // helm)
        Result r = inImage(Path.of("charts/deja"), "chart", List.of("scan", "chart/"));
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(
                r.out().contains("sources: kubernetes (")
                        && r.out().contains("everything requested was read"),
                "the chart was rendered and its objects read: " + r.out());
        Path here = Files.createDirectories(tmp.resolve("jar-chart"));
        ReleaseArchiveIT.copy(Path.of("charts/deja"), here.resolve("chart"));
        assertEquals(runJar(here, List.of("scan", "chart/")).out(), r.out());
    }

    /** As {@link #inImage(List)}, with the host folder FROM read-only at WORKDIR/TO. */
    static Result inImage(Path from, String to, List<String> args) throws Exception {
        Map<String, Object> c = map(config.get("config"));
        String[] user = ((String) c.get("User")).split(":");
        String work = (String) c.get("WorkingDir");
        List<String> cmd = new ArrayList<>();
        cmd.add(which("bwrap").toString());
        cmd.addAll(List.of("--unshare-all", "--die-with-parent", "--clearenv"));
        cmd.addAll(List.of("--bind", rootfs.toString(), "/", "--proc", "/proc", "--dev", "/dev"));
        cmd.addAll(List.of("--uid", user[0], "--gid", user[1], "--chdir", work));
        cmd.addAll(List.of("--ro-bind", from.toAbsolutePath().toString(), work + "/" + to));
        for (Object e : list(c.get("Env"))) {
            String[] kv = ((String) e).split("=", 2);
            cmd.addAll(List.of("--setenv", kv[0], kv[1]));
        }
        for (Object e : list(c.get("Entrypoint"))) {
            cmd.add((String) e);
        }
        cmd.addAll(args);
        return run(cmd);
    }

    static Result runJar(List<String> args) throws Exception {
        return runJar(Path.of(""), args);
    }

    static Result runJar(Path dir, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(Path.of("target/deja.jar").toAbsolutePath().toString());
        cmd.add("dev.deja.Main");
        cmd.addAll(args);
        return run(dir, cmd);
    }

    static Result run(List<String> cmd) throws Exception {
        return run(Path.of(""), cmd);
    }

    /** Runs CMD in DIR with an environment of PATH only. */
    static Result run(Path dir, List<String> cmd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toAbsolutePath().toFile());
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/bin:/bin");
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

    record Result(int code, String out, String err) {}

    /** A descriptor's blob, checked against its digest and size. */
    static Path blobFile(Path layout, Map<String, Object> descriptor) throws Exception {
        String digest = (String) descriptor.get("digest");
        assertTrue(digest.startsWith("sha256:"), digest);
        Path f = layout.resolve("blobs/sha256").resolve(digest.substring(7));
        assertEquals(((Number) descriptor.get("size")).longValue(), Files.size(f), digest);
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(f)) {
            byte[] b = new byte[1 << 16];
            for (int n; (n = in.read(b)) > 0; ) {
                md.update(b, 0, n);
            }
        }
        assertEquals(digest.substring(7), HexFormat.of().formatHex(md.digest()), "blob " + f);
        return f;
    }

    static String blob(Path layout, Map<String, Object> descriptor) throws Exception {
        return Files.readString(blobFile(layout, descriptor), StandardCharsets.UTF_8);
    }

    static Map<String, Object> json(String s) {
        return map(new Yaml(new SafeConstructor(new LoaderOptions())).load(s));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        assertTrue(o instanceof Map, "a JSON object: " + o);
        return new LinkedHashMap<>((Map<String, Object>) o);
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        assertTrue(o instanceof List, "a JSON array: " + o);
        return (List<Object>) o;
    }

    static List<String> sorted(List<Object> l) {
        return l.stream().map(String::valueOf).sorted().toList();
    }

    static Path which(String tool) {
        for (String d :
                System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
            Path p = Path.of(d, tool);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }
}
