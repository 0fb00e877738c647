package dev.deja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The release archive's parts that run without building it: the launcher {@code packaging/bin/deja}
 * (the bundled runtime only, through links, with {@code ./deja}'s JVM options) and {@code
 * packaging/manifests.sh} (checksums, the Homebrew formula and the krew manifest, for one
 * platform's archive as a local build has and for the four the release workflow gathers).
 * ReleaseArchiveIT runs the real archive.
 */
class ReleasePackagingTest {
    static final List<String> PLATFORMS =
            List.of("linux-amd64", "linux-arm64", "macos-amd64", "macos-arm64");
    static final String URL = "https://github.com/deja-dev/deja/releases/download/v9.8.7";

    @TempDir Path tmp;

    // ---- the launcher

    static String line(Path script, String regex) throws Exception {
        Matcher m = Pattern.compile("(?m)^" + regex + "$").matcher(Files.readString(script));
        assertTrue(m.find(), script + " has a line " + regex);
        String found = m.group();
        assertFalse(m.find(), script + " has one line " + regex);
        return found;
    }

    @Test
    void launcherPassesTheJvmOptionsOfTheRepositorysLauncher() throws Exception {
        Path repo = Path.of("deja");
        Path release = Path.of("packaging/bin/deja");
        assertEquals(line(repo, "opts=\"-XX:.*\""), line(release, "opts=\"-XX:.*\""));
        assertEquals(
                line(repo, "  \\*\"\\[madvise\\]\"\\*.*"),
                line(release, "  \\*\"\\[madvise\\]\"\\*.*"));
        assertEquals(line(repo, "  C\\|POSIX\\).*"), line(release, "  C\\|POSIX\\).*"));
        // and no build logic: no Maven, no java from the PATH
        String text = Files.readString(release);
        assertFalse(text.contains("mvn"), "no build in the release launcher");
        assertFalse(
                Pattern.compile("(?m)^[^#]*(^|[\\s;|&(])java\\s").matcher(text).find(),
                "no java from the PATH");
    }

    /** A fake archive whose runtime/bin/java prints its arguments, one a line. */
    Path fakeArchive() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("deja-9.8.7-linux-amd64"));
        Files.createDirectories(home.resolve("bin"));
        Files.createDirectories(home.resolve("runtime/bin"));
        Files.createDirectories(home.resolve("lib"));
        for (String f : List.of("deja", "kubectl-deja")) {
            Files.copy(Path.of("packaging/bin", f), home.resolve("bin/" + f));
        }
        Path java = home.resolve("runtime/bin/java");
        Files.writeString(java, "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(home.resolve("lib/deja.jar"), "");
        return home;
    }

    record Result(int code, String out, String err) {}

    /** Runs with PATH a folder of the few tools the launcher needs, no java among them. */
    Result run(List<String> cmd, Map<String, String> extra) throws Exception {
        Path tools = tmp.resolve("tools");
        if (!Files.isDirectory(tools)) {
            Files.createDirectories(tools);
            for (String t : List.of("sh", "readlink", "dirname", "cat")) {
                Files.createSymbolicLink(tools.resolve(t), which(t));
            }
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(tmp.toFile());
        pb.environment().clear();
        pb.environment().put("PATH", tools.toString());
        pb.environment().put("HOME", tmp.toString());
        pb.environment().putAll(extra);
        Path out = Files.createTempFile(tmp, "out", ".txt");
        Path err = Files.createTempFile(tmp, "err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "finished: " + cmd);
        return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    static Path which(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(d, tool);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        throw new IllegalStateException(tool + " is not on the PATH");
    }

    @Test
    void launcherRunsTheBundledRuntimeThroughChainsOfLinks() throws Exception {
        Path home = fakeArchive();
        // as Homebrew (bin/deja -> libexec/bin/deja) and krew (kubectl-deja -> bin/kubectl-deja)
        // link it: a relative link to an absolute link to the file
        Path brew = Files.createDirectories(tmp.resolve("brew/bin"));
        Path abs = Files.createSymbolicLink(brew.resolve("deja-abs"), home.resolve("bin/deja"));
        Files.createSymbolicLink(brew.resolve("deja"), Path.of("deja-abs"));
        Path krew = Files.createDirectories(tmp.resolve("krew/bin"));
        Files.createSymbolicLink(krew.resolve("kubectl-deja"), home.resolve("bin/kubectl-deja"));
        assertTrue(Files.isSymbolicLink(abs));
        for (Path launcher : List.of(brew.resolve("deja"), krew.resolve("kubectl-deja"))) {
            Result r =
                    run(
                            List.of(launcher.toString(), "scan", "a b.cfg"),
                            Map.of("DEJA_JAVA_OPTS", "-Xmx1g", "LANG", "C"));
            assertEquals(0, r.code(), r.err());
            List<String> args = r.out().lines().toList();
            int cp = args.indexOf("-cp");
            assertTrue(cp > 0, args.toString());
            assertEquals(
                    List.of(
                            home.resolve("lib/deja.jar").toString(),
                            "dev.deja.Main",
                            "scan",
                            "a b.cfg"),
                    args.subList(cp + 1, args.size()),
                    "the archive's jar, the arguments as given");
            assertTrue(args.contains("-XX:TieredStopAtLevel=1"), args.toString());
            assertTrue(args.contains("-Xmx1g"), "DEJA_JAVA_OPTS: " + args);
        }
    }

    @Test
    void launcherOfAnIncompleteArchiveSaysSoInOneLine() throws Exception {
        Path home = fakeArchive();
        Files.delete(home.resolve("runtime/bin/java"));
        Result r = run(List.of(home.resolve("bin/deja").toString(), "--version"), Map.of());
        assertEquals(4, r.code());
        assertEquals("", r.out());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("runtime/bin/java or lib/deja.jar is missing"), r.err());
    }

    // ---- manifests.sh

    Path archives(List<String> platforms) throws Exception {
        Path dist = Files.createDirectories(tmp.resolve("dist"));
        for (String p : platforms) {
            // distinct contents, so distinct checksums
            Files.writeString(dist.resolve("deja-9.8.7-" + p + ".tar.gz"), "archive of " + p);
            Files.writeString(
                    dist.resolve("deja-9.8.7-" + p + ".cdx.json"), "{\"p\":\"" + p + "\"}");
        }
        // not ours: left alone
        Files.writeString(dist.resolve("deja-1.0.0-linux-amd64.tar.gz"), "another version");
        return dist;
    }

    Result manifests(Path dist, Path packaging) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("sh", "packaging/manifests.sh"));
        cmd.addAll(List.of(dist.toString(), "9.8.7", URL, packaging.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.startsWith("LC_") || k.equals("LANG"));
        Path out = Files.createTempFile(tmp, "out", ".txt");
        Path err = Files.createTempFile(tmp, "err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(2, TimeUnit.MINUTES));
        return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    static String sha256(Path f) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (InputStream in = Files.newInputStream(f)) {
            md.update(in.readAllBytes());
        }
        return HexFormat.of().formatHex(md.digest());
    }

    @Test
    void allFourArchivesGiveAFormulaAndAKrewManifestForAllFour() throws Exception {
        Path dist = archives(PLATFORMS);
        Result r = manifests(dist, Path.of("packaging"));
        assertEquals(0, r.code(), r.err());
        Map<String, String> sums = new LinkedHashMap<>();
        StringBuilder all = new StringBuilder();
        for (String p : PLATFORMS) {
            String tgz = "deja-9.8.7-" + p + ".tar.gz";
            sums.put(p, sha256(dist.resolve(tgz)));
            assertEquals(
                    sums.get(p) + "  " + tgz + "\n",
                    Files.readString(dist.resolve(tgz + ".sha256")),
                    "sha256sum -c format");
        }
        for (String f : new java.util.TreeSet<>(listNames(dist))) {
            if (f.startsWith("deja-9.8.7-") && (f.endsWith(".tar.gz") || f.endsWith(".cdx.json"))) {
                all.append(sha256(dist.resolve(f))).append("  ").append(f).append('\n');
            }
        }
        assertEquals(all.toString(), Files.readString(dist.resolve("SHA256SUMS")));
        assertFalse(Files.readString(dist.resolve("SHA256SUMS")).contains("1.0.0"));

        Map<String, Object> krew = krew(dist);
        List<Map<String, Object>> platforms = ReleaseWorkflowTest.cast(spec(krew).get("platforms"));
        assertEquals(4, platforms.size());
        for (Map<String, Object> p : platforms) {
            Map<String, Object> labels =
                    ReleaseWorkflowTest.cast(
                            ReleaseWorkflowTest.cast(p.get("selector"), "matchLabels"));
            String platform =
                    labels.get("os").toString().replace("darwin", "macos")
                            + "-"
                            + labels.get("arch");
            assertTrue(PLATFORMS.contains(platform), labels.toString());
            assertEquals(URL + "/deja-9.8.7-" + platform + ".tar.gz", p.get("uri"));
            assertEquals(sums.get(platform), p.get("sha256"));
            assertEquals(
                    List.of(Map.of("from", "deja-9.8.7-" + platform + "/*", "to", ".")),
                    p.get("files"));
            assertEquals("bin/kubectl-deja", p.get("bin"));
        }
        Map<String, String[]> brew = brew(dist);
        assertEquals(4, brew.size(), brew.keySet().toString());
        for (String p : PLATFORMS) {
            String[] urlSum = brew.get(p);
            assertEquals(URL + "/deja-9.8.7-" + p + ".tar.gz", urlSum[0]);
            assertEquals(sums.get(p), urlSum[1]);
        }
        assertTrue(Files.readString(dist.resolve("deja.rb")).contains("\n  version \"9.8.7\"\n"));
    }

    @Test
    void oneArchiveGivesManifestsForItsPlatformOnly() throws Exception {
        Path dist = archives(List.of("linux-amd64"));
        // left by an earlier build: its file is gone, so is it afterwards
        Path stale = dist.resolve("deja-9.8.7-macos-arm64.cdx.json.sha256");
        Files.writeString(stale, "0".repeat(64) + "  deja-9.8.7-macos-arm64.cdx.json\n");
        Result r = manifests(dist, Path.of("packaging"));
        assertEquals(0, r.code(), r.err());
        assertFalse(Files.exists(stale), "a stale checksum file is removed");
        assertFalse(Files.readString(dist.resolve("SHA256SUMS")).contains("macos"));
        String sum = sha256(dist.resolve("deja-9.8.7-linux-amd64.tar.gz"));
        List<Map<String, Object>> platforms =
                ReleaseWorkflowTest.cast(spec(krew(dist)).get("platforms"));
        assertEquals(1, platforms.size());
        assertEquals(sum, platforms.get(0).get("sha256"));
        Map<String, String[]> brew = brew(dist);
        assertEquals(List.of("linux-amd64"), new ArrayList<>(brew.keySet()));
        assertEquals(sum, brew.get("linux-amd64")[1]);
    }

    @Test
    void noArchiveOrABrokenTemplateIsAnErrorNamingIt() throws Exception {
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        Result none = manifests(empty, Path.of("packaging"));
        assertNotEquals(0, none.code());
        assertTrue(none.err().contains("no archive deja-9.8.7-OS-ARCH.tar.gz in"), none.err());

        Path pkg = Files.createDirectories(tmp.resolve("pkg"));
        Files.createDirectories(pkg.resolve("homebrew"));
        Files.createDirectories(pkg.resolve("krew"));
        Files.copy(Path.of("packaging/krew/deja.yaml"), pkg.resolve("krew/deja.yaml"));
        // a formula template that lost the block of one platform
        String rb = Files.readString(Path.of("packaging/homebrew/deja.rb"));
        String cut = rb.replaceAll("(?s)    # @platform macos-amd64\\n.*?# @end\\n", "");
        assertNotEquals(rb, cut);
        Files.writeString(pkg.resolve("homebrew/deja.rb"), cut);
        Path dist = archives(List.of("linux-amd64"));
        Result r = manifests(dist, pkg);
        assertNotEquals(0, r.code());
        assertTrue(
                r.err().contains("homebrew/deja.rb")
                        && r.err().contains("no block for macos-amd64"),
                r.err());
        // a placeholder the script does not know
        Files.writeString(pkg.resolve("homebrew/deja.rb"), rb.replace("@VERSION@", "@VERSON@"));
        r = manifests(dist, pkg);
        assertNotEquals(0, r.code());
        assertTrue(r.err().contains("placeholder left: ") && r.err().contains("@VERSON@"), r.err());
    }

    static List<String> listNames(Path dir) throws Exception {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).toList();
        }
    }

    static Map<String, Object> krew(Path dist) throws Exception {
        Map<String, Object> krew =
                ReleaseWorkflowTest.cast(
                        new Yaml(new SafeConstructor(new LoaderOptions()))
                                .load(Files.readString(dist.resolve("deja.yaml"))));
        assertEquals("krew.googlecontainertools.github.com/v1alpha2", krew.get("apiVersion"));
        assertEquals("Plugin", krew.get("kind"));
        assertEquals("deja", ReleaseWorkflowTest.cast(krew.get("metadata"), "name"));
        assertEquals("v9.8.7", spec(krew).get("version"));
        return krew;
    }

    static Map<String, Object> spec(Map<String, Object> krew) {
        return ReleaseWorkflowTest.cast(krew.get("spec"));
    }

    /**
     * The formula's url/sha256 pairs by platform, from its on_macos/on_linux and on_arm/on_intel
     * blocks (no Ruby here: the structure is checked by its indentation).
     */
    static Map<String, String[]> brew(Path dist) throws Exception {
        String rb = Files.readString(dist.resolve("deja.rb"), StandardCharsets.UTF_8);
        assertFalse(rb.contains("@"), "no placeholder left: " + rb);
        Map<String, String[]> pairs = new LinkedHashMap<>();
        Matcher os = Pattern.compile("(?ms)^  on_(macos|linux) do\\n(.*?)^  end\\n").matcher(rb);
        while (os.find()) {
            Matcher cpu =
                    Pattern.compile(
                                    "    on_(arm|intel) do\\n      url \"([^\"]+)\"\\n"
                                            + "      sha256 \"([0-9a-f]{64})\"\\n    end\\n")
                            .matcher(os.group(2));
            while (cpu.find()) {
                String p = os.group(1) + "-" + (cpu.group(1).equals("arm") ? "arm64" : "amd64");
                pairs.put(p, new String[] {cpu.group(2), cpu.group(3)});
            }
        }
        assertTrue(rb.contains("class Deja < Formula\n"), rb);
        assertEquals(
                count(rb, "(?m)^\\s*url "),
                pairs.size(),
                "every url is in an on_OS/on_CPU block: " + rb);
        return pairs;
    }

    static int count(String s, String regex) {
        Matcher m = Pattern.compile(regex).matcher(s);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
