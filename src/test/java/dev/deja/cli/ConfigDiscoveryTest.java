package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without --config, .deja.yaml or deja.yaml in the working directory or a parent up to the
 * repository root.
 */
class ConfigDiscoveryTest {
    @TempDir Path tmp;

    @Test
    void foundInTheWorkingDirectoryOrAParentUpToTheRepositoryRoot() throws Exception {
        Path repo = Files.createDirectories(tmp.resolve("outer/repo"));
        Files.createDirectories(repo.resolve(".git"));
        Path cwd = Files.createDirectories(repo.resolve("a/b"));
        assertNull(ConfigOptions.discoverConfig(cwd));
        Files.writeString(
                tmp.resolve("outer/deja.yaml"),
                "failOn: none\n"); // above the repository root: not used
        assertNull(ConfigOptions.discoverConfig(cwd));
        Files.writeString(repo.resolve("deja.yaml"), "failOn: none\n");
        assertEquals(Path.of("../../deja.yaml"), ConfigOptions.discoverConfig(cwd));
        Files.writeString(repo.resolve(".deja.yaml"), "failOn: none\n");
        assertEquals(
                Path.of("../../.deja.yaml"), ConfigOptions.discoverConfig(cwd), ".deja.yaml first");
        Files.writeString(cwd.resolve("deja.yaml"), "failOn: none\n");
        assertEquals(
                Path.of("deja.yaml"), ConfigOptions.discoverConfig(cwd), "the nearest folder wins");
        // outside a repository only the working directory is looked at
        Path loose = Files.createDirectories(tmp.resolve("loose/x"));
        Files.writeString(tmp.resolve("loose/deja.yaml"), "failOn: none\n");
        assertNull(ConfigOptions.discoverConfig(loose));
    }

    /**
     * A real process started in a sub-folder of a repository: the config is found, announced, and
     * its paths used.
     */
    @Test
    void aScanInASubFolderUsesAndAnnouncesTheRepositoryConfig() throws Exception {
        Path repo = Files.createDirectories(tmp.resolve("repo"));
        Files.createDirectories(repo.resolve(".git"));
        Files.copy(Path.of("examples/haproxy/il-0264-before.cfg"), repo.resolve("haproxy.cfg"));
        Files.writeString(
                repo.resolve(".deja.yaml"), "sources:\n  paths: [haproxy.cfg]\nfailOn: none\n");
        Path sub = Files.createDirectories(repo.resolve("sub"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p =
                new ProcessBuilder(
                                java,
                                "-cp",
                                System.getProperty("java.class.path"),
                                "dev.deja.Main",
                                "scan")
                        .directory(sub.toFile())
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(2, TimeUnit.MINUTES));
        assertEquals(0, p.exitValue(), err + out);
        assertTrue(
                err.startsWith(
                        "deja: using the config file ../.deja.yaml (found in a parent folder;"),
                err);
        assertTrue(
                out.contains("(../haproxy.cfg:"),
                "paths relative to the config's folder, as seen from here: " + out);
    }
}
