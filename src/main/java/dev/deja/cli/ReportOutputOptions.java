package dev.deja.cli;

import dev.deja.engine.InputException;
import dev.deja.report.Reporters;
import dev.deja.report.sink.ReportStore;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Where a report goes: {@code --format}, {@code -o} and {@code --output} (files, '-' for stdout,
 * {@code s3://} keys). One option group for {@code deja scan} (inside {@link OutputOptions}) and
 * {@code deja report merge}, so that both read and check their outputs the same way.
 */
final class ReportOutputOptions {
    String format;

    Path outputFile;

    List<String> outputs = new ArrayList<>();

    /** The options above, for picocli (see {@link Opt}). */
    void declare(CommandSpec s) {
        s.addOption(
                Opt.named("--format")
                        .label("FORMAT")
                        .defaultValue("text")
                        .description(
                                "Output format: text, table, json, sarif, junit, html, prometheus, github (default: ${DEFAULT-VALUE})")
                        .value(String.class, this, "format"));
        s.addOption(
                Opt.named("-o", "--output-file")
                        .label("FILE")
                        .description(
                                "Write the report to FILE instead of stdout (the format is --format's: -o json writes a text report to a file named json, and says so)")
                        .value(Path.class, this, "outputFile"));
        s.addOption(
                Opt.named("--output")
                        .label("FORMAT=PATH")
                        .split("\u0000")
                        .splitLabel("")
                        .description(
                                "Also write the report in FORMAT to PATH (repeatable; '-' is stdout), e.g. --output json=/reports/deja.json --output html=/reports/deja.html; or upload it to S3: --output json=s3://BUCKET/deja/{cluster}/{date}-{time}.json ({cluster}: the context's name, 'fleet' for several; {date}, {time}: the run's start in UTC; credentials: --profile, --region, the environment). A failed upload exits 2 and says where the report was kept")
                        .list(String.class, this, "outputs"));
    }

    /** Whether an --output goes to S3. */
    boolean usesS3() {
        return outputs.stream().anyMatch(o -> ReportStore.S3Uri.is(path(o)));
    }

    /** What an --output FORMAT=PATH writes to: the PATH, '-' or the s3:// URI. */
    static String path(String spec) {
        return spec.substring(spec.indexOf('=') + 1);
    }

    /**
     * The report's destinations, checked before any work (an unknown format, a bad path: exit 2);
     * S3 outputs reach S3 with {@code s3}, asked only when there is one.
     */
    Outputs plan(Cli.Io io, Supplier<ReportStore.Options> s3) {
        String named = mistakenFormat(outputFile);
        if (named != null) {
            io.err()
                    .println(
                            "deja: warning: -o "
                                    + outputFile
                                    + " writes the "
                                    + format
                                    + " report to a file named '"
                                    + outputFile
                                    + "': -o (--output-file) is the output file, --format the"
                                    + " format (a "
                                    + named
                                    + " report: --format "
                                    + named
                                    + ", with -o FILE for a file)");
        }
        Outputs outs = Outputs.plan(format, outputFile, outputs, io);
        if (outs.usesS3()) {
            outs.s3Options(s3.get());
        }
        return outs;
    }

    /**
     * The format named by an -o value that is a format's name ("json", "SARIF") and no existing
     * path, or null: most likely meant as --format.
     */
    static String mistakenFormat(Path outputFile) {
        if (outputFile == null) {
            return null;
        }
        String v = outputFile.toString().strip().toLowerCase(Locale.ROOT);
        if (!v.matches("[a-z]+")
                || Files.exists(outputFile, LinkOption.NOFOLLOW_LINKS)
                || !Reporters.available().contains(v)) {
            return null;
        }
        return v;
    }

    /** --s3-endpoint checked as an http(s) URL (exit 2 otherwise); null when not given. */
    static String s3Endpoint(String given) {
        if (given == null || given.isBlank()) {
            return null;
        }
        try {
            URI u = new URI(given.strip());
            if (u.getHost() != null
                    && ("http".equals(u.getScheme()) || "https".equals(u.getScheme()))) {
                return u.toString();
            }
        } catch (URISyntaxException e) {
            // below
        }
        throw new InputException("--s3-endpoint " + given + ": not an http(s) URL");
    }
}
