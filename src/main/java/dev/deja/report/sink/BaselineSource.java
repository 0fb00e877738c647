package dev.deja.report.sink;

import java.io.IOException;
import java.util.Optional;

/**
 * Where {@code --baseline} reads a previous JSON report from: a file ({@code
 * dev.deja.cli.BaselineSources}), or a ConfigMap ({@code configmap:NAMESPACE/NAME}, served by
 * {@code dev.deja.report.sink.ConfigMapBaselineSource}).
 */
public interface BaselineSource {
    /**
     * "baseline.json", "configmap:deja/deja-report": names the baseline in messages and in the
     * report.
     */
    String describe();

    /** The report's JSON text; empty when there is none yet (a first run: every finding is new). */
    Optional<String> read() throws IOException;

    /**
     * After {@link #read()} came back empty: why, for the warning ("not found", "holds no report
     * yet").
     */
    default String absence() {
        return "not found";
    }
}
