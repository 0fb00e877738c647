package dev.deja.collect;

import dev.deja.engine.Coverage;
import dev.deja.engine.InputException;
import dev.deja.engine.SourceFile;
import dev.deja.source.FileKind;
import dev.deja.source.InputFiles;
import dev.deja.source.ListDeadline;
import dev.deja.source.OpenDeadline;
import dev.deja.source.ScanRequest;
import dev.deja.source.helm.HelmRenderer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the paths a user gave into files of each kind. Folders are walked recursively in C-locale
 * (byte) order, hidden entries skipped, as HAProxy does for {@code -f folder}. Files found in
 * folders that are none of deja's formats are listed as skipped in the coverage (never dropped
 * silently); a file named explicitly must be one.
 */
public final class Inputs {

    /** Files by kind in order, plus coverage entries for what was found but not read. */
    public record Collected(Map<FileKind, List<SourceFile>> files, List<Coverage.Entry> skipped) {
        public boolean isEmpty() {
            return files.values().stream().allMatch(List::isEmpty);
        }
    }

    private Inputs() {}

    public static Collected collect(List<String> paths, InputStream stdin) {
        ScanRequest.Builder reqB = ScanRequest.builder();
        reqB.paths = paths;
        reqB.stdin = stdin;
        ScanRequest req = reqB.build();
        return collect(req);
    }

    /**
     * As {@link #collect(List, InputStream)}, with the request's Helm values, environment (PATH for
     * kubectl) and stderr: a folder with {@code Chart.yaml} is a Helm chart, rendered; a folder
     * with a kustomization is built with {@code kubectl kustomize}.
     */
    public static Collected collect(ScanRequest req) {
        List<String> paths = req.paths;
        InputStream stdin = req.stdin;
        long openDeadlineMs =
                OpenDeadline.millis(req.processEnv); // malformed: exit 2 before any read
        helmTimeoutMs(req.processEnv);
        helmMemoryBytes(req.processEnv);
        boolean[] chartSeen = {false};
        Map<FileKind, List<SourceFile>> byKind = new EnumMap<>(FileKind.class);
        List<Coverage.Entry> skipped = new ArrayList<>();
        boolean stdinUsed = false;
        Set<Path> seen =
                new HashSet<>(); // a file named twice (or inside a folder also given) is read once
        for (String p : paths) {
            if (p.equals("-")) {
                if (stdinUsed) {
                    throw new InputException("-: standard input can be read only once");
                }
                stdinUsed = true;
                readStdin(stdin, req, byKind, skipped);
                continue;
            }
            Path path = Path.of(p);
            if (Files.isDirectory(path) && Files.isRegularFile(path.resolve("Chart.yaml"))) {
                chartSeen[0] = true;
                try {
                    byKind.computeIfAbsent(FileKind.KUBERNETES, x -> new ArrayList<>())
                            .addAll(renderChart(path, p, req));
                } catch (InputException e) {
                    skipped.add(InputFiles.failed(req, "kubernetes", p, e));
                }
            } else if (Files.isDirectory(path) && Kustomize.isKustomization(path)) {
                try {
                    byKind.computeIfAbsent(FileKind.KUBERNETES, x -> new ArrayList<>())
                            .add(Kustomize.build(path, p, req.processEnv));
                } catch (InputException e) {
                    skipped.add(InputFiles.failed(req, "kubernetes", p, e));
                }
            } else if (Files.isDirectory(path)) {
                if (walk(path, byKind, skipped, seen, req, chartSeen) == 0) {
                    throw new InputException(
                            p
                                    + ": folder holds no HAProxy configuration (*.cfg), Kubernetes manifest or deja snapshot");
                }
            } else if (Files.exists(path, LinkOption.NOFOLLOW_LINKS) || Files.exists(path)) {
                readFile(path, p, openDeadlineMs, req, byKind, skipped, seen);
            } else {
                throw new InputException(p + ": no such file or folder");
            }
        }
        if (!chartSeen[0] && (!req.helmValues.isEmpty() || !req.helmSet.isEmpty())) {
            throw new InputException(
                    (req.helmValues.isEmpty() ? "--helm-set" : "--helm-values")
                            + ": only with a Helm chart to scan (a folder with Chart.yaml)");
        }
        return new Collected(byKind, skipped);
    }

    /** Reads standard input ("-") into byKind, or its coverage entry into skipped. */
    private static void readStdin(
            InputStream stdin,
            ScanRequest req,
            Map<FileKind, List<SourceFile>> byKind,
            List<Coverage.Entry> skipped) {
        String text;
        FileKind k;
        try {
            try {
                text = InputFiles.decode("<stdin>", InputFiles.readBounded(stdin, "<stdin>"));
            } catch (IOException e) {
                throw new InputException("<stdin>: cannot read: " + e.getMessage());
            }
            k = FileKind.recognize("<stdin>", text);
            if (k == null) {
                throw FileKind.unrecognized("<stdin>", text);
            }
        } catch (InputException e) {
            skipped.add(InputFiles.failed(req, "files", "<stdin>", e));
            return;
        }
        byKind.computeIfAbsent(k, x -> new ArrayList<>()).add(new SourceFile("<stdin>", text));
    }

    /**
     * Reads a file named on the command line into byKind (once, however often named), or its
     * coverage entry into skipped.
     */
    private static void readFile(
            Path path,
            String p,
            long openDeadlineMs,
            ScanRequest req,
            Map<FileKind, List<SourceFile>> byKind,
            List<Coverage.Entry> skipped,
            Set<Path> seen) {
        if (!seen.add(key(path))) {
            skipped.add(duplicate(p));
            return;
        }
        SourceFile f;
        FileKind k;
        try {
            Path chart = chartOfTemplate(path);
            if (chart != null) {
                throw new InputException(
                        p
                                + ": a Helm template (Go template, not a manifest): scan its chart,"
                                + " 'deja scan "
                                + chart
                                + "', which renders it");
            }
            f = InputFiles.read(path, p, openDeadlineMs);
            k = FileKind.recognize(path.getFileName().toString(), f.text());
            if (k == null) {
                throw FileKind.unrecognized(p, f.text());
            }
        } catch (InputException e) {
            skipped.add(InputFiles.failed(req, "files", p, e));
            return;
        }
        byKind.computeIfAbsent(k, x -> new ArrayList<>()).add(f);
    }

    /** How long a chart may take to render: {@code DEJA_HELM_TIMEOUT=SECONDS}, default 120. */
    static final String HELM_TIMEOUT_ENV = "DEJA_HELM_TIMEOUT";

    /** How much memory its renderer may hold: {@code DEJA_HELM_MEMORY=MiB}, default 2048. */
    static final String HELM_MEMORY_ENV = "DEJA_HELM_MEMORY";

    static long helmTimeoutMs(Map<String, String> env) {
        return ListDeadline.secondsMillis(env, HELM_TIMEOUT_ENV, 120);
    }

    static long helmMemoryBytes(Map<String, String> env) {
        String v = env == null ? null : env.get(HELM_MEMORY_ENV);
        if (v == null || v.isBlank()) {
            return 2048L << 20;
        }
        try {
            long mib = Long.parseLong(v.strip());
            if (mib >= 16 && mib <= 1 << 20) {
                return mib << 20;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new InputException(
                HELM_MEMORY_ENV + "=" + v + ": expected a number of MiB from 16 to 1048576");
    }

    /**
     * The chart folder when the file is under its templates/ folder (CHART/templates/.../x.yaml),
     * else null.
     */
    static Path chartOfTemplate(Path file) {
        Path abs = file.toAbsolutePath().normalize();
        for (Path dir = abs.getParent();
                dir != null && dir.getParent() != null;
                dir = dir.getParent()) {
            if (dir.getFileName().toString().equals("templates")
                    && Files.isRegularFile(dir.getParent().resolve("Chart.yaml"))) {
                Path rel = Path.of("").toAbsolutePath().relativize(dir.getParent());
                return rel.toString().isEmpty() ? Path.of(".") : rel;
            }
        }
        return null;
    }

    /**
     * The chart's templates rendered by Helm, one file per template ({@link HelmRenderer} and
     * Helm's classes are loaded only by chart scans).
     */
    static List<SourceFile> renderChart(Path chart, String display, ScanRequest req) {
        try {
            return HelmRenderer.render(
                    chart,
                    display,
                    req.helmValues,
                    req.helmSet,
                    req.processEnv,
                    helmTimeoutMs(req.processEnv),
                    helmMemoryBytes(req.processEnv),
                    req.err);
        } catch (LinkageError e) {
            throw new InputException(
                    display
                            + ": a Helm chart; this build of deja cannot render charts (scan"
                            + " 'helm template "
                            + display
                            + " | deja scan -')");
        }
    }

    /**
     * One line naming the entry that could not be read (a subfolder without permission), not the
     * exception class.
     */
    static InputException folderError(Path dir, Exception e) {
        Throwable c =
                e instanceof UncheckedIOException u && u.getCause() != null ? u.getCause() : e;
        if (c instanceof AccessDeniedException a) {
            return new InputException(
                    (a.getFile() != null ? a.getFile() : dir.toString()) + ": permission denied");
        }
        return new InputException(dir + ": cannot read folder: " + c.getMessage());
    }

    private static Path key(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p.toAbsolutePath().normalize();
        }
    }

    private static Coverage.Entry duplicate(String display) {
        return new Coverage.Entry(
                "files", display, Coverage.Status.SKIPPED, "given more than once; read once", -1);
    }

    /**
     * Reads the folder's files into byKind; returns how many it recognised (those already read
     * included).
     */
    private static int walk(
            Path dir,
            Map<FileKind, List<SourceFile>> byKind,
            List<Coverage.Entry> skipped,
            Set<Path> seen,
            ScanRequest req,
            boolean[] chartSeen) {
        int found = 0;
        FolderWalk w = new FolderWalk(dir, req);
        try {
            Files.walkFileTree(dir, w);
        } catch (IOException | UncheckedIOException e) {
            throw folderError(dir, e);
        }
        List<Path> files = w.files;
        List<String> special = w.special;
        skipped.addAll(w.unopened);
        found += w.unopened.size();
        // a Helm chart inside the folder: its templates are Go templates, not manifests; it is
        // rendered like a chart named on the command line (its subcharts with it)
        found += renderCharts(files, byKind, skipped, req, chartSeen);
        special(special, skipped);
        // C-locale order of the relative path: byte order, as HAProxy sorts a -f folder
        files.sort(
                (a, b) -> compareBytes(dir.relativize(a).toString(), dir.relativize(b).toString()));
        List<String> others = new ArrayList<>();
        for (Path f : files) {
            String display = f.toString();
            if (!FileKind.candidateName(f.getFileName().toString())) {
                others.add(display);
                continue;
            }
            if (!seen.add(key(f))) {
                skipped.add(duplicate(display));
                found++;
                continue;
            }
            SourceFile sf;
            try {
                sf = InputFiles.read(f, display);
            } catch (InputException e) {
                skipped.add(InputFiles.failed(req, "files", display, e));
                found++;
                continue;
            }
            FileKind k = FileKind.recognize(f.getFileName().toString(), sf.text());
            if (k == null) {
                skipped.add(
                        new Coverage.Entry(
                                "files",
                                display,
                                Coverage.Status.SKIPPED,
                                "not a HAProxy configuration, Kubernetes manifest or deja snapshot",
                                -1));
                continue;
            }
            byKind.computeIfAbsent(k, x -> new ArrayList<>()).add(sf);
            found++;
        }
        others(dir, others, skipped);
        return found;
    }

    /**
     * Renders the outermost Helm charts found in a folder (their subcharts with them) into byKind
     * and takes every file under a chart off files; returns how many charts were rendered or
     * failed.
     */
    private static int renderCharts(
            List<Path> files,
            Map<FileKind, List<SourceFile>> byKind,
            List<Coverage.Entry> skipped,
            ScanRequest req,
            boolean[] chartSeen) {
        int rendered = 0;
        List<Path> charts =
                files.stream()
                        .filter(f -> f.getFileName().toString().equals("Chart.yaml"))
                        .map(Path::getParent)
                        .sorted((a, b) -> compareBytes(a.toString(), b.toString()))
                        .toList();
        if (!charts.isEmpty()) {
            files.removeIf(f -> charts.stream().anyMatch(f::startsWith));
            for (Path c : charts) {
                if (charts.stream().noneMatch(o -> o != c && c.startsWith(o))) {
                    chartSeen[0] = true;
                    rendered++;
                    try {
                        byKind.computeIfAbsent(FileKind.KUBERNETES, x -> new ArrayList<>())
                                .addAll(renderChart(c, c.toString(), req));
                    } catch (InputException e) {
                        skipped.add(InputFiles.failed(req, "kubernetes", c.toString(), e));
                    }
                }
            }
        }
        return rendered;
    }

    /** The special files of a folder (pipes, devices, sockets), skipped in byte order. */
    private static void special(List<String> special, List<Coverage.Entry> skipped) {
        special.sort(Inputs::compareBytes);
        for (String sp : special) {
            skipped.add(
                    new Coverage.Entry(
                            "files",
                            sp,
                            Coverage.Status.SKIPPED,
                            "not a regular file: a pipe, device or socket",
                            -1));
        }
    }

    /**
     * The files whose names deja does not read: named when few (a haproxy.conf left out should be
     * seen), else counted.
     */
    private static void others(Path dir, List<String> others, List<Coverage.Entry> skipped) {
        if (!others.isEmpty()) {
            String scope =
                    others.size() <= 5
                            ? String.join(", ", others)
                            : dir + " (" + others.size() + " other files)";
            skipped.add(
                    new Coverage.Entry(
                            "files",
                            scope,
                            Coverage.Status.SKIPPED,
                            "names not ending in .cfg, .yaml, .yml or .json",
                            -1));
        }
    }

    /**
     * What a folder holds, hidden entries left out: regular files (or links to them), special files
     * (FIFOs, devices, sockets, or links to them: never opened), and the subfolders that could not
     * be opened (no permission). Without {@code --allow-partial} such a subfolder stops the scan
     * (exit 2, one line naming it); with it, it is a coverage entry "failed" and the rest of the
     * folder is read.
     */
    static final class FolderWalk extends SimpleFileVisitor<Path> {
        private final Path root;
        private final ScanRequest req;
        final List<Path> files = new ArrayList<>();
        final List<String> special = new ArrayList<>();
        final List<Coverage.Entry> unopened = new ArrayList<>();

        FolderWalk(Path root, ScanRequest req) {
            this.root = root;
            this.req = req;
        }

        @Override
        public FileVisitResult preVisitDirectory(Path x, BasicFileAttributes attrs) {
            return hidden(root, x) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path x, BasicFileAttributes attrs) {
            if (hidden(root, x)) {
                return FileVisitResult.CONTINUE;
            }
            if (Files.isRegularFile(x)) {
                files.add(x);
            } else if (!Files.isDirectory(x) && Files.exists(x)) {
                special.add(x.toString());
            }
            return FileVisitResult.CONTINUE;
        }

        /** A folder (or an entry) that could not be opened. */
        @Override
        public FileVisitResult visitFileFailed(Path x, IOException e) {
            if (!hidden(root, x)) {
                unopened.add(InputFiles.failed(req, "files", x.toString(), folderError(x, e)));
            }
            return FileVisitResult.CONTINUE;
        }
    }

    private static boolean hidden(Path root, Path p) {
        Path rel = root.relativize(p);
        for (Path part : rel) {
            if (part.toString().startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    static int compareBytes(String a, String b) {
        byte[] x = a.getBytes(StandardCharsets.UTF_8);
        byte[] y = b.getBytes(StandardCharsets.UTF_8);
        return Arrays.compareUnsigned(x, y);
    }
}
