package dev.deja.cli;

import dev.deja.engine.InputException;
import dev.deja.report.Report;
import dev.deja.report.Reporter;
import dev.deja.report.ReportSink;
import dev.deja.report.Reporters;
import dev.deja.source.ScanRequest;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Where a scan's report goes: the primary output ({@code --format}, {@code -o}, stdout by default) plus any number of
 * {@code --output FORMAT=PATH} (one run writes JSON for machines, HTML for people and metrics for Prometheus). Every
 * format is checked before the scan starts; every output is written even when another fails.
 *
 * <p>Extension point: more destinations (e.g. {@code --report-configmap NAMESPACE/NAME}) implement
 * {@link ReportSink} and are added with {@link #add(ReportSink)}; they run after the files, and their failures are
 * reported like these.
 */
public final class Outputs {
    /** A format written to a file, or to stdout when {@code path} is null. */
    record FileSink(String format, Path path, boolean primary, Cli.Io io) implements ReportSink {
        @Override
        public String describe() {
            return format + " to " + (path == null ? "stdout" : path.toString());
        }

        @Override
        public void deliver(Report report) throws IOException {
            Reporter reporter = Reporters.forName(format);
            boolean color = primary && path == null && io.tty() && "text".equals(format);
            StringWriter buf = new StringWriter();
            reporter.write(report.withColor(color), buf);
            if (path == null) {
                io.out().write(buf.toString());
                io.out().flush();
                return;
            }
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(path, buf.toString());
        }
    }

    private final List<ReportSink> sinks = new ArrayList<>();

    private Outputs() {
    }

    /**
     * @param format primary format (--format)
     * @param file   primary file (-o), null for stdout
     * @param extra  --output FORMAT=PATH values; PATH "-" is stdout
     * @param io     stdout for outputs without a file; colour for the primary text output on a terminal
     */
    public static Outputs plan(String format, Path file, List<String> extra, Cli.Io io) {
        Outputs o = new Outputs();
        try {
            Reporters.forName(format); // unknown format: exit 2 before any work
        } catch (InputException e) {
            throw new InputException("--format: " + e.getMessage());
        }
        if (file != null && file.toString().equals("-")) {
            file = null; // -o -: stdout, as --output FORMAT=- is
        }
        o.sinks.add(new FileSink(format, file, true, io));
        Set<String> seen = new HashSet<>();
        seen.add(file == null ? "-" : file.toAbsolutePath().normalize().toString());
        for (String spec : extra) {
            int eq = spec.indexOf('=');
            if (eq <= 0 || eq == spec.length() - 1) {
                throw new InputException("--output " + spec + ": expected FORMAT=PATH, e.g. --output html=/reports/deja.html");
            }
            String fmt = spec.substring(0, eq).strip();
            String p = spec.substring(eq + 1).strip();
            try {
                Reporters.forName(fmt);
            } catch (InputException e) {
                throw new InputException("--output " + spec + ": " + e.getMessage());
            }
            Path path = p.equals("-") ? null : Path.of(p);
            String key = path == null ? "-" : path.toAbsolutePath().normalize().toString();
            if (!seen.add(key)) {
                throw new InputException("--output " + spec + ": " + (path == null ? "stdout" : p)
                        + " is already an output (each output needs its own file)");
            }
            o.sinks.add(new FileSink(fmt, path, false, io));
        }
        o.files.addAll(seen);
        return o;
    }

    /** The absolute paths of the files this plan writes ("-" for stdout). */
    final Set<String> files = new java.util.LinkedHashSet<>();

    static final String CONFIGMAP_SINK = "dev.deja.kube.ConfigMapReportSink";

    /**
     * {@code --report-configmap NAMESPACE/NAME}: served by {@value #CONFIGMAP_SINK} (constructor
     * {@code (String namespace, String name, ScanRequest request)}), loaded by name so that only runs using the option
     * load Fabric8's client.
     */
    public static ReportSink configMap(String spec, ScanRequest request) {
        String v = spec.strip();
        if (!v.matches(DNS_NAME + "/" + DNS_NAME)) {
            throw new InputException("--report-configmap " + spec + ": expected NAMESPACE/NAME, e.g. deja/deja-report");
        }
        int slash = v.indexOf('/');
        try {
            return (ReportSink) Class.forName(CONFIGMAP_SINK)
                    .getConstructor(String.class, String.class, ScanRequest.class)
                    .newInstance(v.substring(0, slash), v.substring(slash + 1), request);
        } catch (ClassNotFoundException e) {
            throw new InputException("--report-configmap " + spec + ": this build of deja cannot write ConfigMaps");
        } catch (ReflectiveOperationException e) {
            Throwable c = e.getCause() != null ? e.getCause() : e;
            if (c instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(c);
        }
    }

    /** A Kubernetes object name (RFC 1123 subdomain). */
    static final String DNS_NAME = "[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?";

    public Outputs add(ReportSink sink) {
        sinks.add(sink);
        return this;
    }

    /**
     * The line a run whose report goes to a file prints on stderr, so that a CI log says why a step failed (-o
     * deja.sarif --fail-on high used to print nothing): "deja: 3 findings (1 high, 2 medium), 1 at or above --fail-on
     * high; report: sarif to deja.sarif, html to r.html". Null when the primary report is on stdout (the text report
     * ends with its own summary line).
     */
    String fileSummary(Report report) {
        if (!(sinks.get(0) instanceof FileSink primary) || primary.path() == null) {
            return null;
        }
        dev.deja.engine.ScanResult r = report.result();
        int n = r.findings().size();
        StringBuilder sb = new StringBuilder("deja: ").append(n).append(n == 1 ? " finding" : " findings");
        List<String> parts = new ArrayList<>();
        for (int i = dev.deja.engine.Severity.values().length - 1; i >= 0; i--) {
            dev.deja.engine.Severity s = dev.deja.engine.Severity.values()[i];
            long k = r.count(s);
            if (k > 0) {
                parts.add(k + " " + s.id());
            }
        }
        if (!parts.isEmpty()) {
            sb.append(" (").append(String.join(", ", parts)).append(')');
        }
        if (report.baseline() != null) {
            sb.append(", ").append(report.baseline().newFindings().size()).append(" new");
        }
        if (report.failOn() != null) {
            long failing = r.findings().stream().filter(f -> report.isNew(f) && f.severity().atLeast(report.failOn()))
                    .count();
            sb.append(", ").append(failing).append(report.baseline() != null ? " new" : "").append(" at or above --fail-on ")
                    .append(report.failOn().id());
        }
        if (!r.suppressed().isEmpty()) {
            sb.append(", ").append(r.suppressed().size()).append(" suppressed");
        }
        int missing = r.coverage().notChecked().size();
        if (missing > 0) {
            sb.append(", ").append(missing).append(" not checked");
        }
        sb.append("; report: ");
        List<String> where = new ArrayList<>();
        for (ReportSink s : sinks) {
            where.add(s.describe());
        }
        return sb.append(String.join(", ", where)).toString();
    }

    List<ReportSink> sinks() {
        return List.copyOf(sinks);
    }

    /**
     * Writes every output. A file that cannot be written is reported on stderr and the others are still written;
     * then an {@link InputException} (exit 2) names the first failure.
     */
    public void write(Report report, PrintWriter err) {
        List<String> failures = new ArrayList<>();
        for (ReportSink s : sinks) {
            try {
                s.deliver(report);
            } catch (IOException | RuntimeException e) {
                String why = s.describe() + ": cannot write report: " + (e.getMessage() == null ? e.toString() : e.getMessage());
                failures.add(why);
            }
        }
        if (!failures.isEmpty()) {
            for (int i = 1; i < failures.size(); i++) {
                err.println("deja: " + failures.get(i));
            }
            throw new InputException(failures.get(0));
        }
    }
}
