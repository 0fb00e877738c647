package dev.deja.prove;

import dev.deja.engine.InputException;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real haproxy binary: found on PATH or given with --haproxy; version, {@code -c} check,
 * foreground start.
 */
final class HaproxyBinary {
    static final String INSTALL_HINT =
            "install it (Debian/Ubuntu: apt-get install haproxy; Fedora: dnf install haproxy;"
                    + " macOS: brew install haproxy) or give its path with --haproxy PATH";
    private final Path path;

    private HaproxyBinary(Path path) {
        this.path = path;
    }

    Path path() {
        return path;
    }

    /**
     * --haproxy PATH, else the first haproxy on PATH; exit 2 with the install hint when there is
     * none.
     */
    static HaproxyBinary locate(String explicit, Map<String, String> env) {
        if (explicit != null) {
            Path p = Path.of(explicit);
            if (!Files.isRegularFile(p) || !Files.isExecutable(p)) {
                throw new InputException(
                        "--haproxy " + explicit + ": not an executable file; " + INSTALL_HINT);
            }
            return new HaproxyBinary(p);
        }
        String pathVar = env.getOrDefault("PATH", "");
        for (String dir : pathVar.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, "haproxy");
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return new HaproxyBinary(p);
            }
        }
        throw new InputException(
                "haproxy is not on PATH: deja prove runs your configuration on the real haproxy; "
                        + INSTALL_HINT);
    }

    /** "2.6.12-1+deb12u4" from {@code haproxy -v}, or "unknown". */
    String version() {
        try {
            Result r = exec(List.of(path.toString(), "-v"), 10);
            for (String line : r.output().split("\n")) {
                int i = line.indexOf("version ");
                if (line.startsWith("HAProxy version") || line.startsWith("HA-Proxy version")) {
                    String v = line.substring(i + 8).strip();
                    int sp = v.indexOf(' ');
                    return sp > 0 ? v.substring(0, sp) : v;
                }
            }
        } catch (IOException e) {
            // below
        }
        return "unknown";
    }

    record Result(int exit, String output) {}

    /** The release as {@code .if version_atleast()} compares it: "2.6.12", or null. */
    String release() {
        String v = version();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^\\d+(\\.\\d+)*").matcher(v);
        return m.find() ? m.group() : null;
    }

    /**
     * {@code haproxy -c -f cfg} in the sandbox folder, isolated like a run: exit 0 when the
     * configuration is valid.
     */
    Result check(Path cfg, Isolation isolation) throws IOException {
        return exec(
                isolation.command(path, List.of("-c", "-f", cfg.toString()), cfg.getParent()),
                cfg.getParent(),
                20);
    }

    /**
     * haproxy in the foreground ({@code -db}) in the sandbox folder, with no environment, its
     * output to {@code log}, isolated by {@code isolation} and started from a thread that lives as
     * long as deja, so that the parent-death signal fires only when deja itself dies.
     */
    Process start(Path cfg, Path log, Isolation isolation) throws IOException {
        ProcessBuilder pb =
                new ProcessBuilder(
                        isolation.command(
                                path, List.of("-db", "-f", cfg.toString()), cfg.getParent()));
        pb.environment().clear();
        pb.directory(cfg.getParent().toFile());
        pb.redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        return Launcher.start(pb);
    }

    private static Result exec(List<String> cmd, int timeoutSeconds) throws IOException {
        return exec(cmd, null, timeoutSeconds);
    }

    private static Result exec(List<String> cmd, Path cwd, int timeoutSeconds) throws IOException {
        Path out = Files.createTempFile("deja-haproxy", ".out");
        try {
            ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(cmd));
            pb.environment().clear();
            if (cwd != null) {
                pb.directory(cwd.toFile());
            }
            pb.redirectErrorStream(true);
            pb.redirectOutput(out.toFile());
            pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            Process p = Launcher.start(pb);
            boolean done;
            try {
                done = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted");
            }
            if (!done) {
                p.destroyForcibly();
                return new Result(-1, "haproxy did not answer within " + timeoutSeconds + " s");
            }
            return new Result(p.exitValue(), readBounded(out));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** At most 1 MiB of a process's output. */
    private static String readBounded(Path out) throws IOException {
        try (var in = Files.newInputStream(out)) {
            return new String(in.readNBytes(1 << 20), StandardCharsets.UTF_8);
        }
    }
}
