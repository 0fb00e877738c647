package dev.deja.helm;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import dev.deja.engine.InputException;
import dev.deja.source.SourceFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Renders a Helm chart folder as {@code helm template release-name CHART --namespace default}
 * would, with Helm itself (helm-java: Helm's Go code in a native library, through JNA). Only loaded
 * when a chart is scanned (by name, from {@link dev.deja.source.Inputs}), so other scans load
 * neither helm-java nor JNA.
 *
 * <p>The output is split by Helm's {@code # Source: CHART/templates/x.yaml} comments into one file
 * per template, named {@code <chart folder>/templates/x.yaml}, holding that template's documents
 * exactly as Helm printed them (each with its {@code ---} and {@code # Source:} lines): a line
 * number is the line in the output of {@code helm template release-name CHART --show-only
 * templates/x.yaml}, not in the template's source, which Helm's output does not map.
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

    private HelmRenderer() {}

    /**
     * Called by reflection from Inputs: the chart's templates as files, or an input error naming
     * the chart.
     */
    public static List<SourceFile> render(
            Path chart,
            String display,
            List<Path> valuesFiles,
            List<String> sets,
            PrintWriter err) {
        for (Path v : valuesFiles) {
            if (!Files.isRegularFile(v)) {
                throw new InputException("--helm-values " + v + ": no such file");
            }
        }
        String out;
        try {
            out = template(chart, valuesFiles, sets);
        } catch (IllegalStateException e) {
            Matcher m = KUBE_VERSION.matcher(String.valueOf(e.getMessage()));
            if (!m.find()) {
                throw failed(display, e);
            }
            // Helm for the JVM renders as Kubernetes v1.20.0 and cannot be told another version:
            // render a copy
            // without the constraint, and say so
            err.println(
                    "deja: note: "
                            + display
                            + ": the chart requires kubeVersion "
                            + m.group(1)
                            + "; rendered as"
                            + " Kubernetes v1.20.0 without that check (Helm for the JVM cannot render for another version):"
                            + " templates that test .Capabilities.KubeVersion may differ from an install on your cluster");
            Path copy = null;
            try {
                copy = copyWithoutKubeVersion(chart);
                out = template(copy, valuesFiles, sets);
            } catch (IllegalStateException again) {
                throw failed(display, again);
            } catch (IOException io) {
                throw new InputException(
                        display + ": cannot render the Helm chart: " + io.getMessage());
            } finally {
                deleteTree(copy);
            }
        } catch (RuntimeException | LinkageError e) {
            if (e instanceof InputException ie) {
                throw ie;
            }
            throw new InputException(
                    display
                            + ": cannot render the Helm chart: Helm for the JVM is not usable here ("
                            + oneLine(String.valueOf(e.getMessage()))
                            + ")");
        }
        List<SourceFile> files = split(out, display);
        if (files.isEmpty()) {
            throw new InputException(display + ": the Helm chart renders no object");
        }
        return files;
    }

    static String template(Path chart, List<Path> valuesFiles, List<String> sets) {
        TemplateCommand t = new Helm(chart).template().withName(RELEASE).withNamespace(NAMESPACE);
        for (Path v : valuesFiles) {
            t = t.withValuesFile(v);
        }
        for (String s : sets) {
            int eq = s.indexOf('=');
            t = t.set(s.substring(0, eq), s.substring(eq + 1));
        }
        return t.call();
    }

    static InputException failed(String display, Exception e) {
        return new InputException(
                display
                        + ": cannot render the Helm chart: "
                        + oneLine(String.valueOf(e.getMessage())));
    }

    /** Helm's message (several lines, with a hint to use --debug) as one line. */
    static String oneLine(String message) {
        String first =
                message.strip()
                        .lines()
                        .map(String::strip)
                        .filter(l -> !l.isEmpty() && !l.startsWith("Use --debug"))
                        .findFirst()
                        .orElse("unknown error");
        return first.length() > 300 ? first.substring(0, 297) + "..." : first;
    }

    /**
     * One file per template, in the order Helm printed them; each document keeps its own "---" and
     * "# Source:".
     */
    static List<SourceFile> split(String out, String display) {
        Map<String, StringBuilder> byTemplate = new LinkedHashMap<>();
        String base = display.endsWith("/") ? display.substring(0, display.length() - 1) : display;
        StringBuilder doc = new StringBuilder();
        for (String block :
                (out.startsWith("---\n") ? out.substring(4) : out).split("(?m)^---\n", -1)) {
            if (block.isBlank()) {
                continue;
            }
            String first = block.lines().findFirst().orElse("");
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
        }
        List<SourceFile> files = new ArrayList<>();
        byTemplate.forEach((f, text) -> files.add(new SourceFile(f, text.toString())));
        return files;
    }

    static Path copyWithoutKubeVersion(Path chart) throws IOException {
        Path tmp = Files.createTempDirectory("deja-chart");
        Path root = tmp.resolve(chart.toAbsolutePath().normalize().getFileName().toString());
        try (Stream<Path> s = Files.walk(chart)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path target = root.resolve(chart.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        Path chartYaml = root.resolve("Chart.yaml");
        String text = Files.readString(chartYaml);
        Files.writeString(chartYaml, text.replaceAll("(?m)^kubeVersion:.*$", ""));
        return root;
    }

    static void deleteTree(Path root) {
        if (root == null) {
            return;
        }
        Path top = root.getParent();
        try (Stream<Path> s = Files.walk(top)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary copy left behind is not worth failing the scan
        }
    }
}
