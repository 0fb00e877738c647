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
                r.out().contains("-jar " + repo.resolve("target/deja.jar") + " --version"),
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
}
