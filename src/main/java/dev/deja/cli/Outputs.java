package dev.deja.cli;

import dev.deja.engine.InputException;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Suppressions;
import dev.deja.engine.Target;
import dev.deja.report.BaselineDiff;
import dev.deja.report.Report;
import dev.deja.report.Reporter;
import dev.deja.report.Reporters;
import dev.deja.report.TerminalReporter;
import dev.deja.report.TextReporter;
import dev.deja.report.sink.ConfigMapReportSink;
import dev.deja.report.sink.ReportSink;
import dev.deja.report.sink.ReportStore;
import dev.deja.source.FileReplace;
import dev.deja.source.OpenDeadline;
import dev.deja.source.ScanRequest;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a scan's report goes: the primary output ({@code --format}, {@code -o}, stdout by default)
 * plus any number of {@code --output FORMAT=PATH} (one run writes JSON for machines, HTML for
 * people and metrics for Prometheus). Every format is checked before the scan starts; every output
 * is written even when another fails.
 *
 * <p>Extension point: more destinations (e.g. {@code --report-configmap NAMESPACE/NAME}) implement
 * {@link ReportSink} and are added with {@link #add(ReportSink)}; they run after the files, and
 * their failures are reported like these.
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
            boolean color =
                    primary
                            && path == null
                            && io.tty()
                            && io.env().get("NO_COLOR") == null
                            && "text".equals(format);
            if (path == null) {
                // text and table fit the terminal (COLUMNS, or its own width); piped: unwrapped
                reporter = TerminalReporter.fit(reporter, TerminalWidth.of(io.env(), io.tty()));
                Held buf = new Held();
                reporter.write(report.withColor(color), buf);
                buf.writeTo(io.out());
                io.out().flush();
                // a PrintWriter keeps its errors to itself: a full disk or a closed pipe behind
                // stdout would lose the report without a word
                if (io.out().checkError()) {
                    throw new IOException(
                            "write error (a full disk, or standard output closed by its reader)");
                }
                return;
            }
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            if (Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)
                    || !Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                replace(path, reporter, report);
                return;
            }
            // a named pipe, /dev/stdout, a link: written into, as it is made (the file is opened
            // at the first character); a named pipe must get its reader within DEJA_OPEN_DEADLINE
            try (LazyFile w = new LazyFile(path, OpenDeadline.millis(io.env()))) {
                reporter.write(report.withColor(false), w);
            }
        }

        /**
         * A regular file (or none yet) gets the whole report or keeps what it had: written as it is
         * made (a fleet report can be 100s of MB) to a temporary file beside it, then moved onto
         * it; an existing file's permissions are kept. A failed write (a full disk) leaves the old
         * file and no temporary one.
         */
        private static void replace(Path path, Reporter reporter, Report report)
                throws IOException {
            FileReplace.replace(
                    path,
                    out -> {
                        try (Writer w =
                                new BufferedWriter(
                                        new OutputStreamWriter(out, StandardCharsets.UTF_8))) {
                            reporter.write(report.withColor(false), w);
                        }
                    });
        }
    }

    /**
     * Holds everything written, in fixed chunks, until {@link #writeTo}: stdout gets a report whole
     * or not at all, without copying megabytes of it into one String (and that String back into
     * characters for the encoder) on the way.
     */
    static final class Held extends Writer {
        private static final int CHUNK = 1 << 16;
        private final List<char[]> full = new ArrayList<>();
        private char[] last = new char[CHUNK];
        private int len;

        private void next() {
            full.add(last);
            last = new char[CHUNK];
            len = 0;
        }

        @Override
        public void write(char[] cbuf, int off, int n) {
            while (n > 0) {
                if (len == CHUNK) {
                    next();
                }
                int k = Math.min(n, CHUNK - len);
                System.arraycopy(cbuf, off, last, len, k);
                len += k;
                off += k;
                n -= k;
            }
        }

        @Override
        public void write(String str, int off, int n) {
            while (n > 0) {
                if (len == CHUNK) {
                    next();
                }
                int k = Math.min(n, CHUNK - len);
                str.getChars(off, off + k, last, len);
                len += k;
                off += k;
                n -= k;
            }
        }

        @Override
        public void write(int c) {
            if (len == CHUNK) {
                next();
            }
            last[len++] = (char) c;
        }

        /** Everything written so far, in order. */
        void writeTo(Writer out) throws IOException {
            for (char[] chunk : full) {
                out.write(chunk, 0, CHUNK);
            }
            out.write(last, 0, len);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    }

    /**
     * A UTF-8 file writer that creates (or truncates) the file only when the first character comes,
     * or at close.
     */
    static final class LazyFile extends Writer {
        private final Path path;
        private final long openDeadlineMs;
        private Writer out;

        /**
         * A named pipe given as the file must get its reader within {@code openDeadlineMs}
         * (DEJA_OPEN_DEADLINE).
         */
        LazyFile(Path path, long openDeadlineMs) {
            this.path = path;
            this.openDeadlineMs = openDeadlineMs;
        }

        private Writer out() throws IOException {
            if (out == null) {
                out =
                        new BufferedWriter(
                                new OutputStreamWriter(
                                        OpenDeadline.create(path, openDeadlineMs),
                                        StandardCharsets.UTF_8));
            }
            return out;
        }

        @Override
        public void write(char[] cbuf, int off, int len) throws IOException {
            out().write(cbuf, off, len);
        }

        @Override
        public void write(String str, int off, int len) throws IOException {
            out().write(str, off, len);
        }

        @Override
        public void flush() throws IOException {
            if (out != null) {
                out.flush();
            }
        }

        @Override
        public void close() throws IOException {
            out().close();
        }
    }

    private final List<ReportSink> sinks = new ArrayList<>();

    private Outputs() {}

    /**
     * Plans the outputs of a run from its options; an unknown format or a bad path fails here,
     * before any work.
     *
     * @param format primary format (--format)
     * @param file primary file (-o), null for stdout
     * @param extra --output FORMAT=PATH values; PATH "-" is stdout
     * @param io stdout for outputs without a file; colour for the primary text output on a terminal
     */
    public static Outputs plan(String format, Path file, List<String> extra, Cli.Io io) {
        Outputs o = new Outputs();
        o.io = io;
        OpenDeadline.millis(io.env()); // a malformed DEJA_OPEN_DEADLINE: exit 2 before any work
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
                throw new InputException(
                        "--output "
                                + spec
                                + ": expected FORMAT=PATH, e.g. --output html=/reports/deja.html");
            }
            String fmt = spec.substring(0, eq).strip();
            String p = spec.substring(eq + 1).strip();
            try {
                Reporters.forName(fmt);
            } catch (InputException e) {
                throw new InputException("--output " + spec + ": " + e.getMessage());
            }
            if (ReportStore.S3Uri.is(p)) {
                ReportStore.S3Uri uri = ReportStore.S3Uri.parse(p, "--output " + spec);
                checkTemplate(uri.key(), "--output " + spec);
                if (!seen.add(uri.toString())) {
                    throw new InputException(
                            "--output " + spec + ": " + p + " is already an output");
                }
                o.sinks.add(new S3Sink(fmt, uri, o));
                continue;
            }
            Path path = p.equals("-") ? null : Path.of(p);
            String key = path == null ? "-" : path.toAbsolutePath().normalize().toString();
            if (!seen.add(key)) {
                throw new InputException(
                        "--output "
                                + spec
                                + ": "
                                + (path == null ? "stdout" : p)
                                + " is already an output (each output needs its own file)");
            }
            o.sinks.add(new FileSink(fmt, path, false, io));
        }
        o.files.addAll(seen);
        return o;
    }

    /**
     * A format uploaded to S3 ({@code --output json=s3://bucket/deja/{cluster}/{date}.json}): the
     * key's placeholders are filled when the report is written ({@link #key}). A failed upload
     * keeps the report in a local file and says where (the message of the {@link IOException});
     * {@link #write} then exits 2 like any unwritten output.
     */
    record S3Sink(String format, ReportStore.S3Uri uri, Outputs plan) implements ReportSink {
        @Override
        public String describe() {
            return format + " to " + uri;
        }

        /**
         * Written to a file in the temporary folder first (a fleet report can be 100s of MB),
         * uploaded from there and deleted; when the upload fails that file is the kept copy.
         * Without a temporary folder: in memory, and printed on stdout if the upload fails.
         */
        @Override
        public void deliver(Report report) throws IOException {
            String key = key(uri.key(), report);
            String type = CONTENT_TYPES.getOrDefault(format, "text/plain; charset=utf-8");
            String name =
                    key.substring(key.lastIndexOf('/') + 1).replaceAll("[^A-Za-z0-9._-]", "_");
            Path tmp = null;
            try {
                tmp = Files.createTempFile("deja-report-", "-" + name);
                try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                    Reporters.forName(format).write(report.withColor(false), w);
                }
            } catch (IOException e) {
                if (tmp != null) {
                    Files.deleteIfExists(tmp);
                }
                tmp = null;
            }
            if (tmp == null) {
                StringWriter buf = new StringWriter();
                Reporters.forName(format).write(report.withColor(false), buf);
                byte[] body = buf.toString().getBytes(StandardCharsets.UTF_8);
                try {
                    plan.store().put(uri.bucket(), key, body, type);
                } catch (IOException | RuntimeException e) {
                    plan.io.out().write(buf.toString());
                    plan.io.out().flush();
                    throw new IOException(
                            notWritten(key, e)
                                    + "; the report was printed on stdout (no temporary file)");
                }
                return;
            }
            try {
                plan.store().put(uri.bucket(), key, tmp, type);
            } catch (IOException | RuntimeException e) {
                throw new IOException(notWritten(key, e) + "; the report is kept in " + tmp);
            }
            Files.deleteIfExists(tmp);
        }

        private String notWritten(String key, Exception e) {
            return "s3://"
                    + uri.bucket()
                    + "/"
                    + key
                    + " not written: "
                    + (e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    static final Map<String, String> CONTENT_TYPES =
            Map.of(
                    "json",
                    "application/json",
                    "sarif",
                    "application/sarif+json",
                    "html",
                    "text/html; charset=utf-8",
                    "junit",
                    "application/xml",
                    "prometheus",
                    "text/plain; version=0.0.4");

    /** The placeholders an S3 key may hold. */
    static final List<String> PLACEHOLDERS = List.of("{cluster}", "{date}", "{time}");

    static void checkTemplate(String key, String what) {
        if (key.isEmpty() || key.endsWith("/")) {
            throw new InputException(
                    what
                            + ": give the object's key, e.g. s3://my-reports/deja/{cluster}/{date}.json");
        }
        Matcher m = Pattern.compile("\\{[^}]*}").matcher(key);
        while (m.find()) {
            if (!PLACEHOLDERS.contains(m.group())) {
                throw new InputException(
                        what
                                + ": unknown placeholder "
                                + m.group()
                                + " (expected "
                                + String.join(", ", PLACEHOLDERS)
                                + ")");
            }
        }
    }

    /**
     * The key with its placeholders filled: {@code {cluster}} the cluster the scan read (its
     * kubeconfig context; {@code in-cluster} in a pod; {@code local} when no live cluster was
     * read), {@code {date}} and {@code {time}} when the scan started, in UTC (2026-12-01, 031700).
     */
    static String key(String template, Report report) {
        Instant at =
                report.run() != null && report.run().startedAt() != null
                        ? report.run().startedAt()
                        : Instant.now();
        ZonedDateTime utc = at.atZone(ZoneOffset.UTC);
        return template.replace("{cluster}", clusterName(report))
                .replace("{date}", DateTimeFormatter.ISO_LOCAL_DATE.format(utc))
                .replace("{time}", DateTimeFormatter.ofPattern("HHmmss").format(utc));
    }

    /**
     * The name of the live cluster a report is about, safe in a key: the cluster its target names
     * (the context, or --cluster-name); "fleet" when the run read several clusters; else the
     * context in the report's scope ("context prod (https://...)"); "local" when no live cluster
     * was read.
     */
    static String clusterName(Report report) {
        List<String> clusters =
                report.result().targets().stream()
                        .map(Target::cluster)
                        .filter(Objects::nonNull)
                        .distinct()
                        .toList();
        if (clusters.size() > 1) {
            return "fleet";
        }
        String c =
                !clusters.isEmpty()
                        ? clusters.get(0)
                        : report.run() == null ? null : report.run().scope().get("cluster");
        if (c == null) {
            return "local";
        }
        if (c.startsWith("context ")) {
            c = c.substring(8);
            int paren = c.indexOf(" (");
            if (paren > 0) {
                c = c.substring(0, paren);
            }
        }
        String safe = c.strip().replaceAll("[^A-Za-z0-9._=-]+", "_");
        return safe.isEmpty() ? "local" : safe;
    }

    private ReportStore.Options storeOptions;
    private ReportStore store;

    /** How S3 outputs reach S3 (the AWS source's credential options). */
    public Outputs s3Options(ReportStore.Options o) {
        storeOptions = o;
        return this;
    }

    /** Whether an output goes to S3. */
    boolean usesS3() {
        return sinks.stream().anyMatch(s -> s instanceof S3Sink);
    }

    private synchronized ReportStore store() {
        if (store == null) {
            store =
                    ReportStore.s3(
                            storeOptions == null
                                    ? new ReportStore.Options(null, null, null, io.env(), false)
                                    : storeOptions);
        }
        return store;
    }

    private Cli.Io io;

    /** The absolute paths of the files this plan writes ("-" for stdout). */
    final Set<String> files = new LinkedHashSet<>();

    /**
     * {@code --report-configmap NAMESPACE/NAME}: served by {@link ConfigMapReportSink}, whose class
     * (and Fabric8's client) is loaded only by runs that use the option.
     */
    public static ReportSink configMap(String spec, ScanRequest request) {
        String v = spec.strip();
        if (!v.matches(DNS_NAME + "/" + DNS_NAME)) {
            throw new InputException(
                    "--report-configmap "
                            + spec
                            + ": expected NAMESPACE/NAME, e.g. deja/deja-report");
        }
        int slash = v.indexOf('/');
        return new ConfigMapReportSink(v.substring(0, slash), v.substring(slash + 1), request);
    }

    /** A Kubernetes object name (RFC 1123 subdomain). */
    static final String DNS_NAME = "[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?";

    public Outputs add(ReportSink sink) {
        sinks.add(sink);
        return this;
    }

    /**
     * The line a run whose report goes to a file prints on stderr, so that a CI log says why a step
     * failed (-o deja.sarif --fail-on high used to print nothing): "deja: 3 findings (1 high, 2
     * medium), 1 at or above --fail-on high; report: sarif to deja.sarif, html to r.html". Null
     * when the primary report is on stdout (the text report ends with its own summary line).
     */
    String fileSummary(Report report) {
        if (!(sinks.get(0) instanceof FileSink primary) || primary.path() == null) {
            return null;
        }
        ScanResult r = report.result();
        StringBuilder sb = new StringBuilder("deja: ").append(TextReporter.findingCounts(r));
        BaselineDiff b = report.baseline();
        if (b != null) {
            sb.append(", ").append(b.newFindings().size()).append(" new");
            if (b.found()) {
                sb.append(" against the baseline (")
                        .append(b.unchanged())
                        .append(" unchanged, ")
                        .append(b.fixed())
                        .append(" fixed)");
            } else {
                sb.append(" (no baseline yet)");
            }
        }
        if (report.failOn() != null) {
            long failing =
                    r.findings().stream()
                            .filter(f -> report.isNew(f) && f.severity().atLeast(report.failOn()))
                            .count();
            sb.append(", ")
                    .append(failing)
                    .append(report.baseline() != null ? " new" : "")
                    .append(" at or above --fail-on ")
                    .append(report.failOn().id());
        }
        if (!r.suppressed().isEmpty()) {
            sb.append(", ").append(r.suppressed().size()).append(" suppressed");
        }
        int missing = r.coverage().notChecked().size();
        if (missing > 0) {
            sb.append(", ").append(missing).append(" not checked");
        }
        if (!r.expired().isEmpty()) {
            List<String> names = new ArrayList<>();
            for (Suppressions.Entry e : r.expired()) {
                names.add(e.rule() + " at " + e.origin() + " on " + e.expires());
            }
            sb.append(", ")
                    .append(r.expired().size())
                    .append(
                            r.expired().size() == 1
                                    ? " expired suppression ("
                                    : " expired suppressions (")
                    .append(String.join(", ", names))
                    .append(')');
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
     * Writes every output. A file that cannot be written is reported on stderr and the others are
     * still written; then an {@link InputException} (exit 2) names the first failure.
     */
    public void write(Report report, PrintWriter err) {
        List<String> failures = new ArrayList<>();
        for (ReportSink s : sinks) {
            try {
                s.deliver(report);
            } catch (IOException | RuntimeException e) {
                String why =
                        s.describe()
                                + ": cannot write report: "
                                + (e.getMessage() == null ? e.toString() : e.getMessage());
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
