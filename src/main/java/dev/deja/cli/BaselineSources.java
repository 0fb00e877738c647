package dev.deja.cli;

import dev.deja.engine.InputException;
import dev.deja.report.Baseline;
import dev.deja.report.sink.BaselineSource;
import dev.deja.report.sink.ConfigMapBaselineSource;
import dev.deja.source.InputFiles;
import dev.deja.source.ScanRequest;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where {@code --baseline} reads the previous report from: a file, or (in the build that has the
 * Kubernetes source) {@code configmap:NAMESPACE/NAME}.
 *
 * <p>{@code configmap:NS/NAME} is served by {@link ConfigMapBaselineSource} (the request carries
 * --kubeconfig/--context); its class, and Fabric8's with it, is loaded only when a baseline comes
 * from a ConfigMap.
 */
public final class BaselineSources {
    private BaselineSources() {}

    public static BaselineSource open(String spec, ScanRequest request) {
        if (spec.startsWith("configmap:")) {
            String ref = spec.substring("configmap:".length());
            int slash = ref.indexOf('/');
            if (slash <= 0 || slash == ref.length() - 1 || ref.indexOf('/', slash + 1) >= 0) {
                throw new InputException(
                        "--baseline " + spec + ": expected configmap:NAMESPACE/NAME");
            }
            return new ConfigMapBaselineSource(
                    ref.substring(0, slash), ref.substring(slash + 1), request);
        }
        return new FileSource(Path.of(spec));
    }

    /**
     * Reads the baseline; a missing one is absent (with a warning), a malformed one is an input
     * error.
     */
    public static Baseline load(BaselineSource source, PrintWriter err) {
        Optional<String> text;
        try {
            text = source.read();
        } catch (IOException e) {
            throw new InputException(
                    source.describe() + ": cannot read baseline: " + e.getMessage());
        }
        if (text.isEmpty()) {
            err.println(
                    "deja: baseline "
                            + source.describe()
                            + " "
                            + source.absence()
                            + ": every finding counts as new");
            return Baseline.absent(source.describe());
        }
        return Baseline.parse(text.get(), source.describe());
    }

    record FileSource(Path file) implements BaselineSource {
        @Override
        public String describe() {
            return file.toString();
        }

        @Override
        public Optional<String> read() throws IOException {
            try {
                return Optional.of(InputFiles.readText(file));
            } catch (NoSuchFileException e) {
                return Optional.empty();
            }
        }
    }
}
