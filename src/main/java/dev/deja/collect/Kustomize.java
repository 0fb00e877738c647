package dev.deja.collect;

import dev.deja.engine.InputException;
import dev.deja.engine.SourceFile;
import dev.deja.source.Executables;
import dev.deja.source.InputFiles;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A folder with a kustomization ({@code kustomization.yaml}, {@code kustomization.yml} or {@code
 * Kustomization}) is built with {@code kubectl kustomize FOLDER}, as {@code kubectl apply -k}
 * would, when kubectl is on the PATH. The output is one pseudo-file {@code <kustomize FOLDER>}: a
 * line number is the line in the output of {@code kubectl kustomize FOLDER} (kustomize keeps no
 * trace of the file each object came from).
 */
final class Kustomize {
    static final List<String> FILES =
            List.of("kustomization.yaml", "kustomization.yml", "Kustomization");

    /** How long a build may take (remote bases are fetched by kustomize itself). */
    static final long TIMEOUT_SECONDS = 120;

    private Kustomize() {}

    static boolean isKustomization(Path dir) {
        return FILES.stream().anyMatch(f -> Files.isRegularFile(dir.resolve(f)));
    }

    static SourceFile build(Path dir, String display, Map<String, String> env) {
        Path kubectl = Executables.onPath("kubectl", env.get("PATH"));
        if (kubectl == null) {
            throw new InputException(
                    display
                            + ": a kustomization; building it needs kubectl on the PATH (or scan"
                            + " 'kubectl kustomize "
                            + display
                            + " | deja scan -')");
        }
        Process p;
        try {
            p =
                    new ProcessBuilder(kubectl.toString(), "kustomize", dir.toString())
                            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                            .start();
        } catch (IOException e) {
            throw new InputException(display + ": cannot run " + kubectl + ": " + e.getMessage());
        }
        CompletableFuture<byte[]> out =
                CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()));
        CompletableFuture<byte[]> errOut =
                CompletableFuture.supplyAsync(() -> readAll(p.getErrorStream()));
        try {
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new InputException(
                        display
                                + ": kubectl kustomize did not finish within "
                                + TIMEOUT_SECONDS
                                + " s");
            }
            String stderr = new String(errOut.get(), StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                String first = reason(stderr, p.exitValue());
                throw new InputException(display + ": kubectl kustomize failed: " + first);
            }
            String name = "<kustomize " + display + ">";
            String text = InputFiles.decode(name, out.get());
            if (text.isBlank()) {
                throw new InputException(display + ": the kustomization builds no object");
            }
            return new SourceFile(name, text);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new InputException(display + ": interrupted while kubectl kustomize ran");
        } catch (ExecutionException e) {
            throw new InputException(
                    display
                            + ": cannot read kubectl kustomize's output: "
                            + e.getCause().getMessage());
        }
    }

    /**
     * kubectl's error as one line: its first line, and when that is klog's {@code "command failed"
     * err=<} the reason on the lines after it (up to the closing {@code >}), joined.
     */
    static String reason(String stderr, int exit) {
        List<String> lines =
                stderr.lines().map(String::strip).filter(l -> !l.isEmpty()).limit(200).toList();
        if (lines.isEmpty()) {
            return "exit " + exit;
        }
        String first = lines.get(0);
        if (first.endsWith("err=<")) {
            StringBuilder why =
                    new StringBuilder(
                            first.substring(0, first.length() - "err=<".length()).strip());
            String sep = ": ";
            for (String l : lines.subList(1, lines.size())) {
                if (l.equals(">")) {
                    break;
                }
                why.append(sep).append(l);
                sep = " ";
            }
            first = why.toString();
        }
        return first.length() > 500 ? first.substring(0, 497) + "..." : first;
    }

    private static byte[] readAll(InputStream in) {
        try (in) {
            return in.readNBytes((int) InputFiles.MAX_FILE_BYTES + 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
