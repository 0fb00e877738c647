package dev.deja.cli;

import dev.deja.engine.InputException;
import dev.deja.model.haproxy.Times;
import dev.deja.source.ScanRequest;
import dev.deja.source.TrustedCa;
import dev.deja.source.haproxy.HaproxyRuntimeSource;
import dev.deja.source.prometheus.PrometheusClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/**
 * {@code deja scan}'s live proxy figures: HAProxy's runtime API, stats page or exporter, and
 * Prometheus.
 */
final class LiveProxyOptions {
    /** A PromQL range: one or more number-unit pairs, largest unit first as Prometheus requires. */
    static final Pattern WINDOW =
            Pattern.compile("(?=\\d)(\\d+y)?(\\d+w)?(\\d+d)?(\\d+h)?(\\d+m)?(\\d+s)?(\\d+ms)?");

    List<String> haproxyRuntime = new ArrayList<>();

    String haproxyRuntimeTimeout;

    String haproxyRuntimeAuth;

    Path haproxyRuntimeCaFile;

    String prometheus;

    String window;

    Path prometheusBearerTokenFile;

    Path prometheusBasicAuthFile;

    Path prometheusCaFile;

    /** The options above, for picocli (see {@link Opt}). */
    void declare(CommandSpec s) {
        s.addOption(
                Opt.named("--haproxy-runtime")
                        .label("ADDR")
                        .description(
                                "Read HAProxy's live figures (sessions against limits) from its runtime API (unix:/path/admin.sock, tcp:host:port: show info, show stat), its stats page's CSV (http://host:port/stats;csv) or its Prometheus exporter (http://host:port/metrics) (repeatable)")
                        .list(String.class, this, "haproxyRuntime"));
        s.addOption(
                Opt.named("--haproxy-runtime-timeout")
                        .label("TIME")
                        .defaultValue("5s")
                        .description(
                                "With --haproxy-runtime: bound on each runtime API step and on each HTTP exchange, in HAProxy's time format (500ms, 5s, 1m; default: ${DEFAULT-VALUE})")
                        .value(String.class, this, "haproxyRuntimeTimeout"));
        s.addOption(
                Opt.named("--haproxy-runtime-auth")
                        .label("FILE|env:VAR")
                        .description(
                                "With --haproxy-runtime: user:password for a stats page behind 'stats auth', read from FILE (its first line) or the environment variable VAR, never from the command line")
                        .value(String.class, this, "haproxyRuntimeAuth"));
        s.addOption(
                Opt.named("--haproxy-runtime-ca-file")
                        .label("FILE")
                        .description(
                                "With --haproxy-runtime: trust the CA certificate(s) in FILE (PEM) for https:// stats pages and exporters, instead of the JVM's trust store")
                        .value(Path.class, this, "haproxyRuntimeCaFile"));
        s.addOption(
                Opt.named("--prometheus")
                        .label("URL")
                        .description(
                                "Read the peak over --window of HAProxy's and ingress-nginx's connections against their limits from a Prometheus-compatible HTTP API (http(s)://host:port[/prefix]; /api/v1/query is asked)")
                        .value(String.class, this, "prometheus"));
        s.addOption(
                Opt.named("--window")
                        .label("RANGE")
                        .defaultValue("7d")
                        .description(
                                "With --prometheus: the range of the peaks, as PromQL writes it (30m, 24h, 7d, 2w; default: ${DEFAULT-VALUE})")
                        .value(String.class, this, "window"));
        s.addOption(
                Opt.named("--prometheus-bearer-token-file")
                        .label("FILE")
                        .description(
                                "With --prometheus: send the token in FILE as 'Authorization: Bearer'")
                        .value(Path.class, this, "prometheusBearerTokenFile"));
        s.addOption(
                Opt.named("--prometheus-basic-auth-file")
                        .label("FILE")
                        .description(
                                "With --prometheus: basic auth from FILE (user:password on its first line; never on the command line)")
                        .value(Path.class, this, "prometheusBasicAuthFile"));
        s.addOption(
                Opt.named("--prometheus-ca-file")
                        .label("FILE")
                        .description(
                                "With --prometheus: trust the CA certificate(s) in FILE (PEM) for https")
                        .value(Path.class, this, "prometheusCaFile"));
    }

    /** Whether a live proxy source is given. */
    boolean any() {
        return !haproxyRuntime.isEmpty() || prometheus != null;
    }

    /**
     * Bad addresses, ranges, URLs, unreadable or malformed credential or CA files: exit 2 before
     * any work.
     */
    void check() {
        for (String a : haproxyRuntime) {
            try {
                HaproxyRuntimeSource.check(a);
            } catch (IllegalArgumentException e) {
                throw new InputException(e.getMessage());
            }
        }
        if (haproxyRuntimeCaFile != null) {
            TrustedCa.sslContext("--haproxy-runtime-ca-file", haproxyRuntimeCaFile);
        }
        if (prometheus != null) {
            if (!WINDOW.matcher(window.strip()).matches()) {
                throw new InputException(
                        "--window '"
                                + window
                                + "': not a PromQL range (e.g. 30m, 24h, 7d, 2w, 1d12h)");
            }
            new PrometheusClient(
                    prometheus,
                    prometheusBearerTokenFile,
                    prometheusBasicAuthFile,
                    prometheusCaFile,
                    Duration.ofSeconds(1));
        }
    }

    /** Options of a live source given without it. */
    void checkApplies(ParseResult given) {
        onlyWith(
                given,
                haproxyRuntime.isEmpty(),
                "--haproxy-runtime",
                "--haproxy-runtime-timeout",
                "--haproxy-runtime-auth",
                "--haproxy-runtime-ca-file");
        onlyWith(
                given,
                prometheus == null,
                "--prometheus",
                "--window",
                "--prometheus-bearer-token-file",
                "--prometheus-basic-auth-file",
                "--prometheus-ca-file");
    }

    private static void onlyWith(
            ParseResult given, boolean absent, String source, String... options) {
        List<String> named = new ArrayList<>();
        for (String o : options) {
            if (given.hasMatchedOption(o) && absent) {
                named.add(o);
            }
        }
        if (!named.isEmpty()) {
            throw new InputException(String.join(", ", named) + ": only with " + source);
        }
    }

    /**
     * The runtime sources' settings; a bad timeout or unreadable credentials: exit 2 before any
     * work.
     */
    void into(ScanRequest.Builder req, Map<String, String> env) {
        long timeout =
                Times.millis(haproxyRuntimeTimeout == null ? null : haproxyRuntimeTimeout.strip());
        if (timeout <= 0) {
            throw new InputException(
                    "--haproxy-runtime-timeout: '"
                            + haproxyRuntimeTimeout
                            + "' is not a positive time"
                            + " (e.g. 500ms, 5s, 1m)");
        }
        req.haproxyRuntimeTimeoutMillis = timeout;
        req.haproxyRuntimeAuth = RuntimeAuth.read(haproxyRuntimeAuth, env);
        req.haproxyRuntime = List.copyOf(haproxyRuntime);
        req.haproxyRuntimeCaFile = haproxyRuntimeCaFile;
        req.prometheus = prometheus;
        req.window = window.strip();
        req.prometheusBearerTokenFile = prometheusBearerTokenFile;
        req.prometheusBasicAuthFile = prometheusBasicAuthFile;
        req.prometheusCaFile = prometheusCaFile;
    }
}
