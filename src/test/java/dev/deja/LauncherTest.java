package dev.deja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./deja} launcher's first run, with stand-ins for {@code mvn} and {@code java} on the
 * PATH: while Maven builds it says how long it has been building and which Maven step is running (a
 * real first build takes minutes and used to print only "building..."); a failed build shows
 * Maven's errors and exits 4. The fake Maven waits until the test has seen a progress line, so
 * nothing depends on how fast the machine is.
 */
class LauncherTest {
    @TempDir Path tmp;

    private Path repo;
    private Path bin;

    private void layout(String mvnBody) throws IOException {
        repo = Files.createDirectories(tmp.resolve("repo"));
        Files.copy(Path.of("deja"), repo.resolve("deja"));
        Files.createDirectories(repo.resolve("src/main"));
        Files.createDirectories(repo.resolve("rules"));
        Files.writeString(repo.resolve("pom.xml"), "<project/>");
        bin = Files.createDirectories(tmp.resolve("bin"));
        script(bin.resolve("mvn"), mvnBody);
        script(bin.resolve("java"), "echo \"java $*\"\n");
    }

    private static void script(Path p, String body) throws IOException {
        Files.writeString(p, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private record Result(int code, String out, List<String> err) {}

    /** Runs the launcher; {@code onLine} sees every stderr line as it comes. */
    private Result launch(Consumer<String> onLine) throws Exception {
        return launch(onLine, Map.of());
    }

    private Result launch(Consumer<String> onLine, Map<String, String> locale) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("sh", repo.resolve("deja").toString(), "--version");
        pb.environment().keySet().removeIf(k -> k.equals("LANG") || k.startsWith("LC_"));
        pb.environment().putAll(locale);
        pb.environment().put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
        pb.environment().put("DEJA_BUILD_PROGRESS_SECONDS", "1");
        pb.environment().put("RELEASE", tmp.resolve("release").toString());
        Process p = pb.start();
        List<String> err = new CopyOnWriteArrayList<>();
        Thread reader =
                new Thread(
                        () -> {
                            try (BufferedReader r =
                                    new BufferedReader(
                                            new InputStreamReader(
                                                    p.getErrorStream(), StandardCharsets.UTF_8))) {
                                for (String line; (line = r.readLine()) != null; ) {
                                    err.add(line);
                                    onLine.accept(line);
                                }
                            } catch (IOException ignored) {
                                // the process ended
                            }
                        });
        reader.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the launcher did not finish");
        reader.join(60_000);
        return new Result(p.exitValue(), out, err);
    }

    @Test
    void firstBuildShowsElapsedTimeAndTheMavenStep() throws Exception {
        layout(
                """
                echo "[INFO] Scanning for projects..."
                echo "[INFO] --- compiler:3.13.0:compile (default-compile) @ deja ---"
                i=0
                while [ ! -f "$RELEASE" ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i+1)); done
                mkdir -p target && echo jar > target/deja.jar
                echo "[INFO] BUILD SUCCESS"
                """);
        Result r =
                launch(
                        line -> {
                            if (line.matches(
                                    "deja: building\\.\\.\\. \\d+s, maven: compiler:3\\.13\\.0:compile")) {
                                try {
                                    Files.writeString(tmp.resolve("release"), "go");
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            }
                        });
        assertEquals(0, r.code(), String.join("\n", r.err()));
        assertTrue(
                r.err().get(0).startsWith("deja: building " + repo.resolve("target/deja.jar")),
                r.err().toString());
        assertTrue(
                r.err().stream()
                        .anyMatch(
                                l ->
                                        l.matches(
                                                "deja: building\\.\\.\\. \\d+s, maven: compiler:3\\.13\\.0:compile")),
                r.err().toString());
        assertTrue(
                r.err().stream().anyMatch(l -> l.matches("deja: built in \\d+s")),
                r.err().toString());
        assertTrue(
                r.out()
                        .contains(
                                "-cp "
                                        + repo.resolve("target/deja.jar")
                                        + " dev.deja.Main --version"),
                r.out());
    }

    @Test
    void theCOrPosixLocaleIsCoercedToCUtf8ForTheJvmOthersAreKept() throws Exception {
        layout("mkdir -p target && echo jar > target/deja.jar\n");
        script(bin.resolve("java"), "echo \"LC_ALL=$LC_ALL java $*\"\n");
        for (Map<String, String> env :
                List.of(Map.of("LC_ALL", "C"), Map.of("LANG", "POSIX"), Map.<String, String>of())) {
            Result r = launch(line -> {}, env);
            assertEquals(0, r.code(), String.join("\n", r.err()));
            assertTrue(r.out().contains("LC_ALL=C.UTF-8 java"), env + ": " + r.out());
        }
        Result kept = launch(line -> {}, Map.of("LANG", "de_DE.UTF-8"));
        assertTrue(kept.out().contains("LC_ALL= java"), kept.out());
    }

    @Test
    void aFailedBuildShowsMavensErrorsAndExits4() throws Exception {
        layout(
                """
                echo "[INFO] --- compiler:3.13.0:compile (default-compile) @ deja ---"
                echo "[ERROR] /src/main/java/X.java:[3,1] class, interface, enum, or record expected"
                exit 1
                """);
        Result r = launch(line -> {});
        assertEquals(4, r.code(), String.join("\n", r.err()));
        assertTrue(
                r.err()
                        .contains(
                                "[ERROR] /src/main/java/X.java:[3,1] class, interface, enum, or record expected"),
                r.err().toString());
        assertTrue(
                r.err().get(r.err().size() - 1).startsWith("deja: build failed"),
                r.err().toString());
    }

    /** Runs the launcher with these arguments in {@code cwd}; stdout is the fake java's. */
    private String launchIn(Path cwd, String... args) throws Exception {
        List<String> cmd =
                new java.util.ArrayList<>(List.of("sh", repo.resolve("deja").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile());
        pb.environment().put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the launcher did not finish");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void scansOfFilesAloneGetTheSmallerArchiveClusterAwsAndConfigsThatMayTurnThemOnTheFullOne()
            throws Exception {
        layout("mkdir -p target && echo jar > target/deja.jar\n");
        Files.createDirectories(repo.resolve("examples"));
        Files.writeString(repo.resolve("calls"), "");
        // a stand-in java that makes the archive a training run asks for, and logs every call
        script(
                bin.resolve("java"),
                "echo \"java $*\" >> \""
                        + repo.resolve("calls")
                        + "\"\n"
                        + "for a in \"$@\"; do case \"$a\" in -XX:ArchiveClassesAtExit=*)"
                        + " sleep 1; echo jsa > \"${a#-XX:ArchiveClassesAtExit=}\" ;; esac; done\n"
                        + "echo \"java $*\"\n");
        Path wd = Files.createDirectories(tmp.resolve("wd"));
        String first = launchIn(wd, "scan", "haproxy.cfg");
        List<String> training =
                Files.readAllLines(repo.resolve("calls")).stream()
                        .filter(l -> l.contains("ArchiveClassesAtExit"))
                        .toList();
        assertEquals(2, training.size(), training.toString());
        assertTrue(
                training.get(0).contains("deja.jsa")
                        && training.get(0)
                                .endsWith("dev.deja.cli.CdsTraining " + repo.resolve("examples")),
                training.get(0));
        assertTrue(
                training.get(1).contains("deja-files.jsa")
                        && training.get(1)
                                .endsWith(
                                        "dev.deja.cli.CdsTraining --files "
                                                + repo.resolve("examples")),
                training.get(1));
        String files = "-XX:SharedArchiveFile=" + repo.resolve("target/deja-files.jsa") + " ";
        String full = "-XX:SharedArchiveFile=" + repo.resolve("target/deja.jsa") + " ";
        assertTrue(first.contains(files), first);
        assertTrue(launchIn(wd, "scan", "manifests/").contains(files));
        for (List<String> args :
                List.of(
                        List.of("scan", "--cluster"),
                        List.of("scan", "--context", "prod"),
                        List.of("scan", "--aws-region=eu-west-1", "--aws"),
                        List.of("scan", "x.cfg", "--output", "json=s3://b/k.json"),
                        List.of("report", "merge", "a.json"))) {
            String out = launchIn(wd, args.toArray(String[]::new));
            assertTrue(out.contains(full), args + ": " + out);
        }
        assertTrue(launchIn(wd, "scan", "--rules-dir", "r", "x.cfg").contains(full));
        // a deja.yaml here or in a parent folder, or one given, may turn the cluster on; one that
        // names no source of the full archive (rules, severities, suppressions) does not
        Path sub = Files.createDirectories(wd.resolve("a/b"));
        Files.writeString(wd.resolve("deja.yaml"), "sources: {}\n");
        assertTrue(launchIn(sub, "scan", "haproxy.cfg").contains(files));
        for (String yaml :
                List.of(
                        "sources: {cluster: {}}\n",
                        "sources:\n  AWS: {regions: [eu-west-1]}\n",
                        "sources: {prometheus: {url: 'http://p'}}\n",
                        "rulesDirs: [mine]\n",
                        "reportConfigMap: {name: r}\n",
                        "baseline: configmap:ns/b\n",
                        "outputs: {json: 's3://b/k.json'}\n",
                        "notify: https://hooks.example/x\n",
                        "pushgateway: http://pg:9091\n")) {
            Files.writeString(wd.resolve("deja.yaml"), yaml);
            assertTrue(launchIn(sub, "scan", "haproxy.cfg").contains(full), yaml);
            assertTrue(launchIn(sub, "scan", "--no-config", "haproxy.cfg").contains(files), yaml);
        }
        Files.writeString(
                wd.resolve("other.yaml"),
                "rules: {disabled: [haproxy-no-saturation-visibility]}\nsuppressions: []\n");
        assertTrue(launchIn(sub, "scan", "--config", "../../other.yaml", "x.cfg").contains(files));
        assertTrue(launchIn(sub, "scan", "--config=../../other.yaml", "x.cfg").contains(files));
        assertTrue(launchIn(sub, "scan", "--config", "../../deja.yaml", "x.cfg").contains(full));
        // a config file the launcher cannot read, or standard input: the full archive
        assertTrue(launchIn(sub, "scan", "--config", "missing.yaml", "x.cfg").contains(full));
        assertTrue(launchIn(sub, "scan", "--config", "-", "x.cfg").contains(full));
        // no second training while the archives are newer than the jar
        assertEquals(
                2,
                Files.readAllLines(repo.resolve("calls")).stream()
                        .filter(l -> l.contains("ArchiveClassesAtExit"))
                        .count());
    }
}
