package dev.deja.cli;

import dev.deja.engine.InputException;
import dev.deja.source.kube.KubeconfigRefs;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * An output never replaces an input: before any work, every file a scan writes ({@code -o}, {@code
 * --output}, {@code --snapshot-out}) is resolved to its real path (symlinks followed, also for a
 * file that does not exist yet behind a symlink) and compared with every file the scan reads or was
 * given: files named, every file found in a folder given (read or listed as skipped), kubeconfig
 * files ({@code --kubeconfig}, each file of {@code KUBECONFIG}, {@code ~/.kube/config}) and, when
 * the run connects to a cluster, the files they name (certificate authority, client certificate and
 * key, token file, a plugin given by path: {@link dev.deja.source.kube.KubeconfigRefs}), the AWS
 * shared config, credentials and web identity token files, {@code --ignore-file}, {@code --config}
 * and the {@code --baseline} file. A match is a usage error (exit 2) naming both.
 */
final class NoOverwrite {
    /** An input: what the user calls it and its real path. */
    private record Input(String role, Path real) {}

    private NoOverwrite() {}

    /**
     * @param outputs written files by the option as given (e.g. "-o report.json"), nulls and "-"
     *     ignored
     * @param paths scan paths as given ("-" is stdin)
     * @param named other input files by role (e.g. "--ignore-file"), nulls ignored
     * @param env the process environment (KUBECONFIG, HOME, AWS_* files)
     * @param connects whether the run connects to a cluster through its kubeconfig (--cluster, a
     *     ConfigMap report or baseline): then the files its kubeconfigs name are read too and
     *     protected; otherwise they are not parsed (a cold YAML parse costs a file scan tens of
     *     milliseconds)
     */
    static void check(
            Map<String, Path> outputs,
            List<String> paths,
            Map<String, Path> named,
            Map<String, String> env,
            boolean connects) {
        Map<Path, String> outs = outputs(outputs);
        if (outs.isEmpty()) {
            return;
        }
        List<Input> inputs = new ArrayList<>();
        for (Map.Entry<String, Path> n : named.entrySet()) {
            if (n.getValue() != null) {
                inputs.add(new Input(n.getKey() + " " + n.getValue(), real(n.getValue())));
            }
        }
        configFiles(named, env, connects, inputs);
        pathInputs(paths, inputs);
        for (Input in : inputs) {
            String out = outs.get(in.real());
            if (out != null) {
                throw new InputException(
                        out
                                + ": would overwrite "
                                + in.role()
                                + ", which this scan reads"
                                + (in.real().toString().equals(in.role())
                                        ? ""
                                        : " (" + in.real() + ")")
                                + "; write reports and snapshots elsewhere");
            }
        }
    }

    /** The outputs by real path, each with its option; two options on one file are an error. */
    private static Map<Path, String> outputs(Map<String, Path> outputs) {
        Map<Path, String> outs = new LinkedHashMap<>();
        for (Map.Entry<String, Path> o : outputs.entrySet()) {
            if (o.getValue() != null && !o.getValue().toString().equals("-")) {
                Path real = real(o.getValue());
                String before = outs.putIfAbsent(real, o.getKey());
                if (before != null) {
                    throw new InputException(
                            o.getKey()
                                    + ": the same file as "
                                    + before
                                    + " (each output needs its own file)");
                }
            }
        }
        return outs;
    }

    /**
     * Adds the kubeconfig and AWS files the run may read, and (when it connects) the files its
     * kubeconfigs name.
     */
    private static void configFiles(
            Map<String, Path> named,
            Map<String, String> env,
            boolean connects,
            List<Input> inputs) {
        String home = env.getOrDefault("HOME", System.getProperty("user.home"));
        List<Path> kubeconfigs = new ArrayList<>();
        if (named.get("--kubeconfig") != null) {
            kubeconfigs.add(named.get("--kubeconfig"));
        }
        String kc = env.get("KUBECONFIG");
        if (kc != null) {
            for (String p : kc.split(File.pathSeparator)) {
                if (!p.isBlank()) {
                    inputs.add(new Input("kubeconfig " + p + " (KUBECONFIG)", real(Path.of(p))));
                    kubeconfigs.add(Path.of(p));
                }
            }
        }
        if (home != null) {
            inputs.add(
                    new Input(
                            "kubeconfig " + Path.of(home, ".kube", "config"),
                            real(Path.of(home, ".kube", "config"))));
            kubeconfigs.add(Path.of(home, ".kube", "config"));
            inputs.add(
                    new Input(
                            "AWS config " + Path.of(home, ".aws", "config"),
                            real(Path.of(home, ".aws", "config"))));
            inputs.add(
                    new Input(
                            "AWS credentials " + Path.of(home, ".aws", "credentials"),
                            real(Path.of(home, ".aws", "credentials"))));
        }
        for (Path k :
                connects
                        ? kubeconfigs
                        : List.<Path>of()) { // the certificates, keys, tokens, plugins named
            if (Files.isRegularFile(k)) {
                for (KubeconfigRefs.Ref ref : KubeconfigRefs.of(k)) {
                    inputs.add(new Input(ref.role(), real(ref.path())));
                }
            }
        }
        for (String v :
                List.of(
                        "AWS_CONFIG_FILE",
                        "AWS_SHARED_CREDENTIALS_FILE",
                        "AWS_WEB_IDENTITY_TOKEN_FILE")) {
            String p = env.get(v);
            if (p != null && !p.isBlank()) {
                inputs.add(new Input(v + "=" + p, real(Path.of(p))));
            }
        }
    }

    /** Adds the scan paths: each file named, every file found in a folder given. */
    private static void pathInputs(List<String> paths, List<Input> inputs) {
        for (String p : paths) {
            if (p.equals("-")) {
                continue;
            }
            Path path = Path.of(p);
            if (Files.isDirectory(path)) {
                try (Stream<Path> s = Files.walk(path)) {
                    s.filter(x -> !Files.isDirectory(x))
                            .forEach(
                                    x ->
                                            inputs.add(
                                                    new Input(
                                                            x + " (found in " + p + ")", real(x))));
                } catch (IOException | UncheckedIOException e) {
                    // an unreadable folder is reported by the scan itself; what could be listed is
                    // checked
                }
            } else {
                inputs.add(new Input(p, real(path)));
            }
        }
    }

    /**
     * The file a path designates, symlinks resolved: the real path when it exists; else the target
     * of a dangling symlink, or the real path of its folder joined with its name (a file about to
     * be created).
     */
    static Path real(Path p) {
        Path cur = p.toAbsolutePath().normalize();
        for (int hops = 0; hops < 40; hops++) {
            try {
                return cur.toRealPath();
            } catch (IOException e) {
                // does not exist (yet), or a dangling link, or a link loop
            }
            if (Files.isSymbolicLink(cur)) {
                try {
                    Path target = Files.readSymbolicLink(cur);
                    Path parent = cur.getParent();
                    cur =
                            (parent == null ? target : parent.resolve(target))
                                    .toAbsolutePath()
                                    .normalize();
                    continue;
                } catch (IOException e) {
                    return cur;
                }
            }
            Path parent = cur.getParent();
            if (parent == null || cur.getFileName() == null) {
                return cur;
            }
            Path rp = real(parent);
            Path joined = rp.resolve(cur.getFileName());
            if (Files.exists(joined, LinkOption.NOFOLLOW_LINKS) && !joined.equals(cur)) {
                cur = joined;
                continue;
            }
            return joined;
        }
        return cur;
    }
}
