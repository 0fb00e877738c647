package dev.deja.prove;

import dev.deja.source.Executables;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The second wall around haproxy in {@code deja prove} (the first is the configuration deja writes
 * itself, {@link Sandbox}, which must hold without this one):
 *
 * <ul>
 *   <li>{@code bubblewrap} when it is installed and works here: haproxy sees only {@code /usr} (and
 *       the lib/bin links into it), its own binary and the sandbox folder, in its own PID, IPC and
 *       UTS namespaces, with no environment, and dies with deja ({@code --die-with-parent}). The
 *       network is the host's: the load generator reaches haproxy on loopback from 127.0.0.2 and
 *       127.1.0.x, which a private network namespace would not let it do.
 *   <li>else {@code setpriv --pdeathsig KILL} (util-linux): haproxy dies with deja;
 *   <li>else nothing more (e.g. macOS): deja's shutdown hook stops haproxy on SIGINT and SIGTERM,
 *       not on SIGKILL.
 * </ul>
 *
 * {@code DEJA_PROVE_ISOLATION=bwrap|setpriv|none} chooses one (bwrap when asked for and broken is
 * an error).
 */
record Isolation(String kind, Path tool, String description) {

    static final String ENV = "DEJA_PROVE_ISOLATION";

    /** The isolation to use for this binary, probed once per proof. */
    static Isolation choose(Map<String, String> env, HaproxyBinary haproxy) {
        String want = env.getOrDefault(ENV, "auto").strip();
        Path bwrap = onPath(env, "bwrap");
        Path setpriv = onPath(env, "setpriv");
        if (!List.of("auto", "bwrap", "setpriv", "none").contains(want)) {
            throw new dev.deja.engine.InputException(
                    ENV + "=" + want + ": expected auto, bwrap, setpriv or none");
        }
        if (want.equals("auto") || want.equals("bwrap")) {
            if (bwrap != null) {
                Isolation b =
                        new Isolation(
                                "bwrap",
                                bwrap,
                                "bubblewrap "
                                        + bwrap
                                        + ": haproxy sees only /usr, its binary and the sandbox folder"
                                        + " (private mount view), runs in its own PID, IPC and UTS"
                                        + " namespaces with no environment, and dies with deja; network:"
                                        + " the host's loopback, which the load generator needs");
                String why = b.probe(haproxy);
                if (why == null) {
                    return b;
                }
                if (want.equals("bwrap")) {
                    throw new dev.deja.engine.InputException(ENV + "=bwrap: " + why);
                }
            } else if (want.equals("bwrap")) {
                throw new dev.deja.engine.InputException(
                        ENV
                                + "=bwrap: bwrap is not on PATH (Debian/Ubuntu: apt-get install bubblewrap)");
            }
        }
        if (!want.equals("none") && setpriv != null) {
            return new Isolation(
                    "setpriv",
                    setpriv,
                    "setpriv --pdeathsig KILL: haproxy runs with no environment and dies with deja"
                            + (want.equals("auto")
                                    ? " (bubblewrap not available: no private mount view)"
                                    : ""));
        }
        return new Isolation(
                "none",
                null,
                "haproxy runs with no environment; no second wall here (bubblewrap and setpriv not"
                        + " available): it is stopped when deja exits or is interrupted, not when deja is"
                        + " killed");
    }

    /** The command line that runs haproxy with {@code args} in {@code dir} under this isolation. */
    List<String> command(Path haproxy, List<String> args, Path dir) {
        List<String> c = new ArrayList<>();
        switch (kind) {
            case "bwrap" -> {
                c.add(tool.toString());
                c.addAll(
                        List.of(
                                "--die-with-parent",
                                "--unshare-pid",
                                "--unshare-ipc",
                                "--unshare-uts",
                                "--unshare-cgroup-try",
                                "--new-session",
                                "--clearenv",
                                "--ro-bind",
                                "/usr",
                                "/usr"));
                for (String d : List.of("/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin")) {
                    Path p = Path.of(d);
                    try {
                        if (Files.isSymbolicLink(p)) {
                            c.addAll(List.of("--symlink", Files.readSymbolicLink(p).toString(), d));
                        } else if (Files.isDirectory(p)) {
                            c.addAll(List.of("--ro-bind", d, d));
                        }
                    } catch (IOException e) {
                        // not there: nothing to show
                    }
                }
                Path real = real(haproxy);
                if (!real.startsWith("/usr/")) {
                    c.addAll(List.of("--ro-bind", real.toString(), real.toString()));
                }
                c.addAll(
                        List.of(
                                "--dev",
                                "/dev",
                                "--proc",
                                "/proc",
                                "--bind",
                                dir.toString(),
                                dir.toString(),
                                "--chdir",
                                dir.toString(),
                                "--"));
                c.add(real.toString());
            }
            case "setpriv" -> {
                c.addAll(List.of(tool.toString(), "--pdeathsig", "KILL", "--"));
                c.add(haproxy.toString());
            }
            default -> c.add(haproxy.toString());
        }
        c.addAll(args);
        return c;
    }

    /** Null when haproxy -v runs under this isolation here, else why not. */
    private String probe(HaproxyBinary haproxy) {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("deja-prove-probe-");
            ProcessBuilder pb = new ProcessBuilder(command(haproxy.path(), List.of("-v"), dir));
            pb.environment().clear();
            pb.redirectErrorStream(true);
            Path out = dir.resolve("out");
            pb.redirectOutput(out.toFile());
            pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            Process p = Launcher.start(pb);
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "bwrap did not start haproxy within 20 s";
            }
            String text;
            try (var in = Files.newInputStream(out)) {
                text = new String(in.readNBytes(4096), java.nio.charset.StandardCharsets.UTF_8);
            }
            if (p.exitValue() != 0 || !text.contains("version")) {
                String first = text.strip().isEmpty() ? "no output" : text.strip().split("\n")[0];
                return "bwrap cannot run haproxy here (exit " + p.exitValue() + ": " + first + ")";
            }
            return null;
        } catch (IOException e) {
            return "bwrap cannot run here: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } finally {
            if (dir != null) {
                Cleanup.delete(dir);
            }
        }
    }

    private static Path real(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p.toAbsolutePath();
        }
    }

    static Path onPath(Map<String, String> env, String name) {
        return Executables.onPath(name, env.getOrDefault("PATH", "/usr/bin:/bin"));
    }
}
