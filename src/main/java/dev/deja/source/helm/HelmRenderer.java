package dev.deja.source.helm;

import dev.deja.engine.InputException;
import dev.deja.engine.LineMap;
import dev.deja.engine.SourceFile;
import dev.deja.source.Executables;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Renders a Helm chart folder as {@code helm template release-name CHART --namespace default}
 * would, in a child process that is bounded in time, memory and output ({@link BoundedProcess}):
 * {@code helm} itself when it is on the PATH (as kustomizations use kubectl), else Helm for the JVM
 * (helm-java, Helm's Go code as a native library for the platform deja was built on) in a child JVM
 * ({@link RenderMain}). Either reads a private copy of the chart without the links that leave it
 * ({@link ChartCopy}), with an environment of its own (no kubeconfig, Helm folders, plugins or
 * proxies of the user's) and, where Linux lets an unprivileged process have one ({@code unshare
 * -rn}), a network namespace with no network: a chart cannot make deja connect anywhere. Only
 * loaded when a chart is scanned (by name, from {@link dev.deja.collect.Inputs}).
 *
 * <p>The output is split by Helm's {@code # Source: CHART/templates/x.yaml} comments into one file
 * per template, named {@code <chart folder>/templates/x.yaml}, holding that template's documents
 * exactly as Helm printed them (each with its {@code ---} and {@code # Source:} lines).
 */
public final class HelmRenderer {
    static final Pattern SOURCE = Pattern.compile("^# Source: ([^/\\n]+)/(.+)$");
    static final Pattern KUBE_VERSION = Pattern.compile("chart requires kubeVersion: (\\S+)");

    /** The release name of {@code helm template} without one. */
    static final String RELEASE = "release-name";

    /**
     * The namespace {@code helm template} renders into outside any kubeconfig context ({@code
     * .Release.Namespace}).
     */
    static final String NAMESPACE = "default";

    /** The environment variables that set the bounds. */
    public static final String TIMEOUT_ENV = "DEJA_HELM_TIMEOUT";

    public static final String MEMORY_ENV = "DEJA_HELM_MEMORY";

    /** Largest rendered output read, as for a file. */
    static final long MAX_OUTPUT = 64L * 1024 * 1024;

    private static volatile Boolean unshareWorks;

    private HelmRenderer() {}

    /**
     * Called by the collector ({@code Inputs}): the chart's templates as files, or an input error
     * naming the chart.
     *
     * @param env the process environment (PATH: where helm is looked for)
     * @param timeoutMs how long a render may take
     * @param maxMemoryBytes how much resident memory the renderer may use
     */
    public static List<SourceFile> render(
            Path chart,
            String display,
            List<Path> valuesFiles,
            List<String> sets,
            Map<String, String> env,
            long timeoutMs,
            long maxMemoryBytes,
            PrintWriter err) {
        for (Path v : valuesFiles) {
            if (!Files.isRegularFile(v)) {
                throw new InputException("--helm-values " + v + ": no such file");
            }
        }
        Path work = null;
        try {
            work = Files.createTempDirectory("deja-helm");
            Path copyRoot =
                    work.resolve("chart")
                            .resolve(chart.toAbsolutePath().normalize().getFileName().toString());
            ChartCopy copy = ChartCopy.of(chart, copyRoot, display);
            for (String n : copy.notes) {
                err.println("deja: note: " + n);
            }
            Path helm = Executables.onPath("helm", env.get("PATH"));
            Renderer r = new Renderer(helm, work, display, copyRoot, timeoutMs, maxMemoryBytes);
            Path cache = helm == null ? cacheDir(env, work) : null;
            if (cache != null) {
                r.cache = cache.toString();
            }
            String out;
            try {
                out = r.template(copyRoot, valuesFiles, sets);
            } catch (KubeVersion kv) {
                // Helm for the JVM renders as Kubernetes v1.20.0 and cannot be told another
                // version: render the copy without the constraint, and say so
                err.println(
                        "deja: note: "
                                + display
                                + ": the chart requires kubeVersion "
                                + kv.getMessage()
                                + "; rendered as Kubernetes v1.20.0 without that check (Helm for the"
                                + " JVM cannot render for another version; helm on the PATH can):"
                                + " templates that test .Capabilities.KubeVersion may differ from an"
                                + " install on your cluster");
                Path chartYaml = copyRoot.resolve("Chart.yaml");
                String text = Files.readString(chartYaml);
                Files.writeString(chartYaml, text.replaceAll("(?m)^kubeVersion:.*$", ""));
                try {
                    out = r.template(copyRoot, valuesFiles, sets);
                } catch (KubeVersion again) {
                    throw new InputException(
                            display + ": cannot render the Helm chart: " + again.getMessage());
                }
            }
            List<SourceFile> files = split(out, display, copyRoot);
            if (files.isEmpty()) {
                throw new InputException(display + ": the Helm chart renders no object");
            }
            return files;
        } catch (IOException e) {
            throw new InputException(display + ": cannot render the Helm chart: " + e.getMessage());
        } finally {
            deleteTree(work);
        }
    }

    /** Helm for the JVM refused the chart's kubeVersion (the message is the constraint). */
    static final class KubeVersion extends Exception {
        private static final long serialVersionUID = 1L;

        KubeVersion(String constraint) {
            super(constraint);
        }
    }

    /** One way to run Helm in a child process. */
    static final class Renderer {
        final Path helm;
        final Path work;
        final String display;
        final Path copyRoot;
        final long timeoutMs;
        final long maxMemoryBytes;
        String cache = "";

        Renderer(
                Path helm,
                Path work,
                String display,
                Path copyRoot,
                long timeoutMs,
                long maxMemoryBytes) {
            this.helm = helm;
            this.work = work;
            this.display = display;
            this.copyRoot = copyRoot;
            this.timeoutMs = timeoutMs;
            this.maxMemoryBytes = maxMemoryBytes;
        }

        String template(Path chart, List<Path> valuesFiles, List<String> sets)
                throws IOException, KubeVersion {
            List<String> cmd = command(chart, valuesFiles, sets);
            BoundedProcess.Result res;
            try {
                res =
                        BoundedProcess.run(
                                cmd,
                                environment(work),
                                work,
                                timeoutMs,
                                maxMemoryBytes,
                                MAX_OUTPUT,
                                TIMEOUT_ENV,
                                MEMORY_ENV);
            } catch (BoundedProcess.Bound b) {
                throw new InputException(
                        display + ": rendering the Helm chart was stopped: " + b.getMessage());
            }
            if (res.exit() != 0) {
                throw failed(res);
            }
            return new String(res.out(), StandardCharsets.UTF_8);
        }

        /** The child's command line: helm template, or Helm for the JVM in a child JVM. */
        private List<String> command(Path chart, List<Path> valuesFiles, List<String> sets) {
            List<String> cmd = new ArrayList<>();
            if (unshare()) {
                cmd.addAll(List.of("unshare", "--user", "--map-root-user", "--net"));
            }
            if (helm != null) {
                cmd.addAll(
                        List.of(
                                helm.toString(),
                                "template",
                                RELEASE,
                                chart.toString(),
                                "--namespace",
                                NAMESPACE));
                for (Path v : valuesFiles) {
                    cmd.add("--values");
                    cmd.add(v.toAbsolutePath().toString());
                }
                for (String s : sets) {
                    cmd.add("--set");
                    cmd.add(s);
                }
            } else {
                cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                cmd.addAll(
                        List.of(
                                "-Xmx256m",
                                "-Xss1m",
                                "-XX:TieredStopAtLevel=1",
                                "-XX:+UseSerialGC",
                                "-Xshare:auto",
                                "-Djava.io.tmpdir=" + work.resolve("tmp"),
                                "-D" + RenderMain.CACHE_PROPERTY + "=" + cache,
                                "-cp",
                                childClassPath(System.getProperty("java.class.path")),
                                RenderMain.class.getName(),
                                chart.toString(),
                                Integer.toString(valuesFiles.size())));
                for (Path v : valuesFiles) {
                    cmd.add(v.toAbsolutePath().toString());
                }
                cmd.addAll(sets);
            }
            return cmd;
        }

        /**
         * A render that exited non-zero: the chart's kubeVersion refused by Helm for the JVM (to
         * render again without it), else the error to stop the scan with, naming the chart.
         */
        private InputException failed(BoundedProcess.Result res) throws KubeVersion {
            String stderr = res.err().replace(copyRoot.toString(), display);
            Matcher m = KUBE_VERSION.matcher(stderr);
            if (helm == null && m.find()) {
                throw new KubeVersion(m.group(1));
            }
            String why = oneLine(stderr);
            if (why.startsWith("Error: ")) {
                why = why.substring(7);
            }
            if (helm == null && stderr.contains("error calling lookup")) {
                why =
                        "the chart calls lookup, which Helm for the JVM (used when helm is not on"
                                + " the PATH) cannot render without asking a cluster, which deja"
                                + " never does; put helm on the PATH, which renders lookup as an"
                                + " empty map as helm template does ("
                                + why
                                + ")";
                why = why.length() > 400 ? why.substring(0, 397) + "...)" : why;
            } else if (res.exit() > 1 && helm == null) {
                why = "Helm for the JVM is not usable here (" + why + ")";
            }
            return new InputException(display + ": cannot render the Helm chart: " + why);
        }
    }

    /**
     * The renderer's whole environment: its own home, Helm folders, temporary folder and an empty
     * kubeconfig; nothing of the user's (no kubeconfig, in-cluster service account, proxy, plugin
     * or repository settings).
     */
    static Map<String, String> environment(Path work) throws IOException {
        Path home = Files.createDirectories(work.resolve("home"));
        Files.createDirectories(work.resolve("tmp"));
        Path kubeconfig = work.resolve("kubeconfig");
        Files.writeString(kubeconfig, "apiVersion: v1\nkind: Config\n");
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", home.toString());
        env.put("TMPDIR", work.resolve("tmp").toString());
        env.put("KUBECONFIG", kubeconfig.toString());
        for (String h : List.of("HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME")) {
            env.put(
                    h,
                    Files.createDirectories(home.resolve(h.toLowerCase(Locale.ROOT))).toString());
        }
        env.put("HELM_PLUGINS", Files.createDirectories(home.resolve("plugins")).toString());
        env.put("LANG", "C.UTF-8");
        env.put("PATH", "/usr/bin:/bin");
        return env;
    }

    /** The folder beside deja's jar that holds Helm for the JVM's native library jar. */
    static final String NATIVE_DIR = "helm-java";

    /** At most this many jars are taken from a {@link #NATIVE_DIR} folder. */
    private static final int MAX_NATIVE_JARS = 8;

    /**
     * The child JVM's class path: this JVM's, and the jars of a {@code helm-java} folder beside
     * each jar on it. The native library is not inside {@code deja.jar} (94.5 MB); the build puts
     * its platform's jar in {@code target/helm-java/}, a release archive beside its {@code
     * deja.jar}. Under Maven's test class path the library's jar is on the class path already.
     */
    static String childClassPath(String classPath) {
        StringBuilder cp = new StringBuilder();
        if (classPath == null) {
            return "";
        }
        List<Path> jars = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator, -1)) {
            if (entry.isEmpty()) {
                continue;
            }
            // absolute: the child runs in its own working folder
            Path abs = Path.of(entry).toAbsolutePath();
            cp.append(cp.length() == 0 ? "" : File.pathSeparator).append(abs);
            if (entry.endsWith(".jar")) {
                jars.add(abs);
            }
        }
        for (Path jar : jars) {
            Path dir = jar.resolveSibling(NATIVE_DIR);
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (Stream<Path> s = Files.list(dir)) {
                s.filter(p -> p.getFileName().toString().endsWith(".jar") && Files.isRegularFile(p))
                        .sorted()
                        .limit(MAX_NATIVE_JARS)
                        .forEach(p -> cp.append(File.pathSeparator).append(p));
            } catch (IOException e) {
                // an unreadable folder: the child says that no Helm library was found
            }
        }
        return cp.toString();
    }

    /**
     * Where Helm for the JVM's native library is kept once extracted, so a chart scan does not
     * inflate 94.5 MB each time: {@code $XDG_CACHE_HOME/deja} or {@code ~/.cache/deja}, created
     * readable by its owner only; null (extract each time) when there is no such folder of the
     * user's own ({@code mine}: a file this process made), or others may write to it.
     */
    static Path cacheDir(Map<String, String> env, Path mine) {
        String xdg = env.get("XDG_CACHE_HOME");
        String home = env.get("HOME");
        Path base =
                xdg != null && xdg.startsWith("/")
                        ? Path.of(xdg)
                        : home != null && home.startsWith("/") ? Path.of(home, ".cache") : null;
        if (base == null) {
            return null;
        }
        Path dir = base.resolve("deja");
        try {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(base);
                Files.createDirectory(
                        dir,
                        PosixFilePermissions.asFileAttribute(
                                PosixFilePermissions.fromString("rwx------")));
            }
            Set<PosixFilePermission> perms =
                    Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
            UserPrincipal owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS);
            UserPrincipal me = Files.getOwner(mine);
            return owner.equals(me)
                            && !perms.contains(PosixFilePermission.GROUP_WRITE)
                            && !perms.contains(PosixFilePermission.OTHERS_WRITE)
                    ? dir
                    : null;
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    /**
     * Whether {@code unshare --user --map-root-user --net} runs here (Linux with unprivileged user
     * namespaces), asked once.
     */
    static boolean unshare() {
        Boolean u = unshareWorks;
        if (u == null) {
            u = false;
            for (String dir : List.of("/usr/bin", "/bin")) {
                Path p = Path.of(dir, "unshare");
                if (Files.isExecutable(p)) {
                    try {
                        Process pr =
                                new ProcessBuilder(
                                                p.toString(),
                                                "--user",
                                                "--map-root-user",
                                                "--net",
                                                "true")
                                        .redirectErrorStream(true)
                                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                                        .start();
                        u = pr.waitFor(10, TimeUnit.SECONDS) && pr.exitValue() == 0;
                        if (pr.isAlive()) {
                            pr.destroyForcibly();
                        }
                    } catch (IOException e) {
                        u = false;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    break;
                }
            }
            unshareWorks = u;
        }
        return u;
    }

    /** Helm's message (several lines, with a hint to use --debug) as one line. */
    static String oneLine(String message) {
        String first =
                message.strip()
                        .lines()
                        .map(String::strip)
                        .filter(
                                l ->
                                        !l.isEmpty()
                                                && !l.startsWith("Use --debug")
                                                && !l.matches(
                                                        "^\\d{4}/\\d\\d/\\d\\d \\d\\d:\\d\\d:\\d\\d .*"))
                        .findFirst()
                        .orElse("unknown error");
        return first.length() > 300 ? first.substring(0, 297) + "..." : first;
    }

    /**
     * One file per template, in the order Helm printed them; each document keeps its own "---" and
     * "# Source:".
     */
    static List<SourceFile> split(String out, String display) {
        return split(out, display, null);
    }

    /**
     * As {@link #split(String, String)}; with the chart folder Helm read ({@code chartRoot}), each
     * file gets a {@link LineMap}: the lines of a document that is a verbatim copy of one place in
     * its template (no template logic changed it; Helm only trims it) map to the template's lines;
     * every other line (the {@code ---} and {@code # Source:} lines Helm adds, the documents made
     * by template logic) maps to none, so a finding there names the template without a line.
     */
    static List<SourceFile> split(String out, String display, Path chartRoot) {
        Map<String, StringBuilder> byTemplate = new LinkedHashMap<>();
        Map<String, List<Integer>> lines = new LinkedHashMap<>();
        Map<String, List<String>> templates = new HashMap<>();
        String base = display.endsWith("/") ? display.substring(0, display.length() - 1) : display;
        StringBuilder doc = new StringBuilder();
        for (String block :
                (out.startsWith("---\n") ? out.substring(4) : out).split("(?m)^---\n", -1)) {
            if (block.isBlank()) {
                continue;
            }
            List<String> blockLines = block.lines().toList();
            String first = blockLines.isEmpty() ? "" : blockLines.get(0);
            Matcher m = SOURCE.matcher(first);
            // a document without a Source comment (none in Helm 3's output) is kept under the
            // chart's name
            String file = m.matches() ? base + "/" + m.group(2) : base;
            doc.setLength(0);
            doc.append("---\n").append(block);
            if (!block.endsWith("\n")) {
                doc.append('\n');
            }
            byTemplate.computeIfAbsent(file, k -> new StringBuilder()).append(doc);
            List<Integer> map = lines.computeIfAbsent(file, k -> new ArrayList<>());
            map.add(0); // ---
            if (!m.matches() || chartRoot == null) {
                blockLines.forEach(l -> map.add(0));
                continue;
            }
            map.add(0); // # Source:
            List<String> body = blockLines.subList(1, blockLines.size());
            List<String> template =
                    templates.computeIfAbsent(m.group(2), t -> templateLines(chartRoot, t));
            int at = uniqueCopy(template, body);
            for (int i = 0; i < body.size(); i++) {
                map.add(at < 0 ? 0 : at + i + 1);
            }
        }
        List<SourceFile> files = new ArrayList<>();
        byTemplate.forEach(
                (f, text) -> {
                    int[] map = lines.get(f).stream().mapToInt(Integer::intValue).toArray();
                    files.add(
                            new SourceFile(
                                    f,
                                    text.toString(),
                                    chartRoot == null ? null : new LineMap(map)));
                });
        return files;
    }

    /** Largest template read to map lines (a larger one gets no lines). */
    static final long MAX_TEMPLATE_BYTES = 4L * 1024 * 1024;

    /**
     * The template's lines (from the chart copy Helm read), or none when it is not a plain file
     * inside it.
     */
    static List<String> templateLines(Path chartRoot, String template) {
        Path p = chartRoot.resolve(template).normalize();
        try {
            if (!p.startsWith(chartRoot)
                    || !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
                    || Files.size(p) > MAX_TEMPLATE_BYTES) {
                return List.of();
            }
            return Files.readString(p).lines().toList();
        } catch (IOException | UncheckedIOException e) {
            return List.of();
        }
    }

    /**
     * Where (0-based) the document's lines are a copy of the template's, when at exactly one place;
     * else -1. Lines compare without trailing blanks, the first also without leading ones (Helm
     * trims each document).
     */
    static int uniqueCopy(List<String> template, List<String> body) {
        if (body.isEmpty() || template.size() < body.size()) {
            return -1;
        }
        int found = -1;
        String head = body.get(0).strip();
        for (int s = 0; s + body.size() <= template.size(); s++) {
            if (!template.get(s).strip().equals(head)) {
                continue;
            }
            boolean same = true;
            for (int i = 1; i < body.size() && same; i++) {
                same = template.get(s + i).stripTrailing().equals(body.get(i).stripTrailing());
            }
            if (same) {
                if (found >= 0) {
                    return -1; // twice: which one is not known
                }
                found = s;
            }
        }
        return found;
    }

    static void deleteTree(Path root) {
        if (root == null) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary copy left behind is not worth failing the scan
        }
    }
}
