package dev.deja.source.helm;

import dev.deja.engine.InputException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * The chart folder as the renderer sees it: a private copy holding only the chart's own files.
 * Helm's loader follows symbolic links wherever they lead, so {@code .Files.Get} and {@code
 * .Files.Glob} would read a file outside the chart through a link; like kustomize's load
 * restrictor, a link that leaves the chart (or a loop of links) is not copied, and each such link
 * is named in a note. Links that stay inside the chart are copied as what they point at, as Helm
 * reads them. Pipes, devices and sockets are never opened (a FIFO would block Helm's loader). The
 * renderer reads the copy only, so a link changed after this check changes nothing. Bounded: at
 * most {@link #MAX_ENTRIES} entries, {@link #MAX_BYTES} in all, 64 levels deep.
 */
final class ChartCopy {
    static final int MAX_ENTRIES = 20_000;
    static final long MAX_BYTES = 100L * 1024 * 1024;
    static final int MAX_DEPTH = 64;

    final Path root;
    final List<String> notes = new ArrayList<>();

    private ChartCopy(Path root) {
        this.root = root;
    }

    /**
     * Copies {@code chart} into {@code into} (created); {@code display} names the chart in
     * messages.
     */
    static ChartCopy of(Path chart, Path into, String display) {
        ChartCopy c = new ChartCopy(into);
        Path real;
        try {
            real = chart.toRealPath();
        } catch (IOException e) {
            throw new InputException(display + ": cannot read the chart: " + e.getMessage());
        }
        try {
            Files.walkFileTree(
                    chart,
                    EnumSet.of(FileVisitOption.FOLLOW_LINKS),
                    MAX_DEPTH,
                    new Copier(c, chart, real, display));
        } catch (IOException e) {
            throw new InputException(display + ": cannot read the chart: " + e.getMessage());
        }
        return c;
    }

    /** The walk of {@link #of}: copies what the chart may read, notes what it may not. */
    private static final class Copier extends SimpleFileVisitor<Path> {
        private final ChartCopy c;
        private final Path chart;
        private final Path real;
        private final Path into;
        private final String display;
        private final String base;
        private final long[] entries = {0};
        private final long[] bytes = {0};

        Copier(ChartCopy c, Path chart, Path real, String display) {
            this.c = c;
            this.chart = chart;
            this.real = real;
            this.into = c.root;
            this.display = display;
            this.base =
                    display.endsWith("/") ? display.substring(0, display.length() - 1) : display;
        }

        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
                throws IOException {
            String rel = chart.relativize(dir).toString();
            if (!dir.toRealPath().startsWith(real)) {
                c.notes.add(
                        base
                                + "/"
                                + rel
                                + ": a symbolic link to a folder outside the chart: not"
                                + " given to Helm (a chart may read only its own files)");
                return FileVisitResult.SKIP_SUBTREE;
            }
            if (dir.getFileName() != null
                    && dir.getFileName().toString().equals(".git")
                    && !rel.isEmpty()) {
                return FileVisitResult.SKIP_SUBTREE; // version control, not chart
            }
            count(entries);
            Files.createDirectories(into.resolve(rel));
            return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
            String rel = chart.relativize(file).toString();
            if (attrs.isDirectory()) {
                // a folder at the depth limit
                throw new InputException(
                        display + ": the chart is nested deeper than " + MAX_DEPTH + " folders");
            }
            if (attrs.isSymbolicLink()) { // a link to nothing
                c.notes.add(danglingLink(base, rel));
                return FileVisitResult.CONTINUE;
            }
            if (!file.toRealPath().startsWith(real)) {
                c.notes.add(
                        base
                                + "/"
                                + rel
                                + ": a symbolic link to a file outside the chart: not"
                                + " given to Helm (a chart may read only its own files)");
                return FileVisitResult.CONTINUE;
            }
            if (!attrs.isRegularFile()) {
                c.notes.add(
                        base
                                + "/"
                                + rel
                                + ": not a regular file (a pipe, device or socket): not"
                                + " given to Helm");
                return FileVisitResult.CONTINUE;
            }
            count(entries);
            copyBounded(file, into.resolve(rel), bytes, display);
            return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
            String rel = chart.relativize(file).toString();
            if (e instanceof FileSystemLoopException) {
                c.notes.add(base + "/" + rel + ": a symbolic link that loops: not given to Helm");
                return FileVisitResult.CONTINUE;
            }
            if (Files.isSymbolicLink(file) && !Files.exists(file)) {
                c.notes.add(danglingLink(base, rel));
                return FileVisitResult.CONTINUE;
            }
            if (e instanceof AccessDeniedException) {
                throw new InputException(base + "/" + rel + ": permission denied");
            }
            throw new InputException(base + "/" + rel + ": cannot read: " + e.getMessage());
        }

        private void count(long[] n) {
            if (++n[0] > MAX_ENTRIES) {
                throw new InputException(
                        display
                                + ": the chart holds more than "
                                + MAX_ENTRIES
                                + " files and folders");
            }
        }
    }

    /** The note on a symbolic link to nothing in the chart, which Helm is not given. */
    private static String danglingLink(String base, String rel) {
        return base + "/" + rel + ": a symbolic link to nothing: not given to Helm";
    }

    /** Copies at most what is left of {@link #MAX_BYTES}, counted in bytes read. */
    static void copyBounded(Path from, Path to, long[] bytes, String display) throws IOException {
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = Files.newInputStream(from);
                OutputStream out = Files.newOutputStream(to)) {
            int n;
            while ((n = in.read(buf)) > 0) {
                bytes[0] += n;
                if (bytes[0] > MAX_BYTES) {
                    throw new InputException(
                            display + ": the chart is larger than " + (MAX_BYTES >> 20) + " MiB");
                }
                out.write(buf, 0, n);
            }
        }
    }
}
