package dev.deja.report.sink;

import dev.deja.report.Report;
import java.io.IOException;

/**
 * One destination of a scan's report: a file or stdout in some format ({@code
 * dev.deja.cli.Outputs}), or e.g. a ConfigMap that keeps the latest report ({@code
 * --report-configmap}). Sinks run after the scan, in order; a failing sink does not stop the
 * others.
 */
public interface ReportSink {
    /** For messages: "json to /reports/deja.json", "configmap deja/deja-report". */
    String describe();

    void deliver(Report report) throws IOException;
}
