package dev.deja.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.deja.Main;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The training run from which the {@code ./deja} launcher makes its class-data-sharing archive
 * (AppCDS): the archive holds the classes this run loads, so it should load what real scans load.
 * It serves a small Kubernetes API on the loopback interface (every list deja reads, the
 * Deployments in two pages, load balancers among them) and scans it together with the paths given
 * (the bundled examples), writing every report format; the AWS source is pointed at a closed port
 * (its client classes load, its calls fail at once). Not a user command: the launcher runs {@code
 * java -XX:ArchiveClassesAtExit=... -cp deja.jar dev.deja.cli.CdsTraining examples/}.
 */
public final class CdsTraining {
    private static final String META =
            "{\"name\":\"%s\",\"namespace\":\"edge\",\"labels\":{\"app\":\"%s\"}%s}";
    private static final String PROBE =
            "{\"httpGet\":{\"path\":\"/healthz\",\"port\":10254},\"periodSeconds\":10}";
    private static final Map<String, List<String>> ITEMS = new HashMap<>();

    static {
        String workload =
                "{\"metadata\":"
                        + META
                        + ",\"spec\":{\"replicas\":%d,\"selector\":{\"matchLabels\":{\"app\":\"%s\"}},"
                        + "\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxUnavailable\":\"50%%\"}},"
                        + "\"template\":{\"metadata\":{\"labels\":{\"app\":\"%s\"}},\"spec\":{\"containers\":[{\"name\":\"c\","
                        + "\"image\":\"%s\",\"args\":[\"--configmap=edge/ingress-nginx-controller\"],\"ports\":[{\"name\":\"http\","
                        + "\"containerPort\":80}],\"readinessProbe\":"
                        + PROBE
                        + ",\"livenessProbe\":"
                        + PROBE
                        + "}]}}},"
                        + "\"status\":{\"replicas\":1}}";
        ITEMS.put(
                "deployments",
                List.of(
                        String.format(
                                workload,
                                "ingress-nginx",
                                "ingress-nginx",
                                "",
                                1,
                                "ingress-nginx",
                                "ingress-nginx",
                                "registry.k8s.io/ingress-nginx/controller:v1.12.1"),
                        String.format(
                                workload,
                                "envoy",
                                "envoy",
                                ",\"annotations\":{\"deja.dev/ignore\":\"k8s-lb-not-spread training\"}",
                                2,
                                "envoy",
                                "envoy",
                                "envoyproxy/envoy:v1.33.0"),
                        String.format(
                                workload,
                                "shop",
                                "shop",
                                "",
                                3,
                                "shop",
                                "shop",
                                "example.com/shop:1")));
        ITEMS.put(
                "services",
                List.of(
                        "{\"metadata\":"
                                + String.format(
                                        META,
                                        "ingress-nginx",
                                        "ingress-nginx",
                                        ",\"annotations\":{\"service.beta.kubernetes.io/aws-load-balancer-type\":\"nlb\"}")
                                + ",\"spec\":{\"type\":\"LoadBalancer\",\"selector\":{\"app\":\"ingress-nginx\"}}}"));
        ITEMS.put(
                "configmaps",
                List.of(
                        "{\"metadata\":"
                                + String.format(
                                        META, "ingress-nginx-controller", "ingress-nginx", "")
                                + ",\"data\":{\"enable-serial-reloads\":\"true\",\"worker-shutdown-timeout\":\"240s\"}}",
                        "{\"metadata\":"
                                + String.format(META, "haproxy", "haproxy", "")
                                + ",\"data\":{\"haproxy.cfg\":"
                                + "\"global\\n  maxconn 100\\ndefaults\\n  mode http\\n  timeout client 30s\\n  timeout server 30s\\n"
                                + "  timeout connect 5s\\nfrontend f\\n  bind :80\\n  default_backend b\\nbackend b\\n"
                                + "  server s1 127.0.0.1:8080 check\\n\"}}"));
        ITEMS.put(
                "horizontalpodautoscalers",
                List.of(
                        "{\"metadata\":"
                                + String.format(META, "shop", "shop", "")
                                + ",\"spec\":{\"minReplicas\":1,\"maxReplicas\":5,\"scaleTargetRef\":{\"kind\":\"Deployment\",\"name\":\"shop\"}}}"));
        ITEMS.put(
                "poddisruptionbudgets",
                List.of(
                        "{\"metadata\":"
                                + String.format(META, "envoy", "envoy", "")
                                + ",\"spec\":{\"maxUnavailable\":1,\"selector\":{\"matchLabels\":{\"app\":\"envoy\"}}}}"));
        ITEMS.put(
                "ingressclasses",
                List.of(
                        "{\"metadata\":{\"name\":\"nginx\"},\"spec\":{\"controller\":\"k8s.io/ingress-nginx\"}}"));
    }

    private CdsTraining() {}

    /**
     * {@code CdsTraining PATH...}: the training of the full archive; {@code CdsTraining --files
     * PATH...}: of the archive for scans of files alone (no cluster, no AWS), which is a third of
     * the size, and a smaller archive starts faster (it is mapped at a random address and every
     * pointer in it relocated, which writes every page of it).
     */
    public static void main(String[] args) throws IOException {
        Cli.Io.system(); // what every real run makes first (the console check included)
        if (args.length > 0 && args[0].equals("--files")) {
            trainFiles(Arrays.copyOfRange(args, 1, args.length));
        } else {
            train(args);
        }
        Main.stopHttpSelectors();
    }

    /**
     * Runs the training scan of files alone over {@code paths} (every report format, no cluster, no
     * AWS); returns the scan's JSON report.
     */
    static String trainFiles(String... paths) throws IOException {
        Path dir = Files.createTempDirectory("deja-training");
        try {
            List<String> scan = new ArrayList<>(List.of("scan", "--fail-on", "none"));
            return runScan(dir, scan, System.getenv(), paths);
        } finally {
            delete(dir);
        }
    }

    /**
     * Runs the training scans over {@code paths} and its own API server; returns the scan's JSON
     * report.
     */
    static String train(String... paths) throws IOException {
        HttpServer server =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", CdsTraining::list);
        server.start();
        Path dir = Files.createTempDirectory("deja-training");
        try {
            Path kc = dir.resolve("kubeconfig");
            Files.writeString(
                    kc,
                    "apiVersion: v1\nkind: Config\nclusters: [{name: t, cluster: {server: \"http://127.0.0.1:"
                            + server.getAddress().getPort()
                            + "\"}}]\nusers: [{name: t, user: {token: t}}]\n"
                            + "contexts: [{name: t, context: {cluster: t, user: t}}]\ncurrent-context: t\n");
            Map<String, String> env = new HashMap<>(System.getenv());
            env.putAll(
                    Map.of(
                            "AWS_ACCESS_KEY_ID",
                            "train",
                            "AWS_SECRET_ACCESS_KEY",
                            "train",
                            "AWS_REGION",
                            "eu-west-2",
                            "AWS_MAX_ATTEMPTS",
                            "1"));
            List<String> scan =
                    new ArrayList<>(
                            List.of(
                                    "scan",
                                    "--fail-on",
                                    "none",
                                    "--cluster",
                                    "--kubeconfig",
                                    kc.toString(),
                                    "--aws",
                                    "--aws-endpoint",
                                    "http://127.0.0.1:9"));
            // rules of one's own (CEL): their compiler and evaluator go in the full archive too,
            // which
            // the launcher uses for --rules-dir (loading CEL is most of what 50 user rules cost)
            for (String p : paths) {
                Path custom = Path.of(p).resolve("custom-rules");
                if (Files.isDirectory(custom)) {
                    scan.addAll(List.of("--rules-dir", custom.toString()));
                }
            }
            return runScan(dir, scan, env, paths);
        } finally {
            server.stop(0);
            delete(dir);
        }
    }

    /**
     * The scan with every report format written into {@code dir}, then {@code deja rules}; the JSON
     * report.
     */
    private static String runScan(
            Path dir, List<String> scan, Map<String, String> env, String... paths)
            throws IOException {
        for (String f : List.of("json", "sarif", "junit", "html", "text")) {
            scan.addAll(List.of("--output", f + "=" + dir.resolve("report." + f)));
        }
        scan.addAll(List.of(paths));
        StringWriter sink = new StringWriter();
        PrintWriter quiet = new PrintWriter(sink);
        Cli.run(new Cli.Io(quiet, quiet, System.in, env, false), scan.toArray(String[]::new));
        Cli.run(new Cli.Io(quiet, quiet, System.in, env, false), "rules");
        Path json = dir.resolve("report.json");
        return Files.isRegularFile(json) ? Files.readString(json) : "";
    }

    private static void delete(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** A list response for the plural the path ends with; Deployments come in two pages. */
    private static void list(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getPath();
        String query = x.getRequestURI().getQuery() == null ? "" : x.getRequestURI().getQuery();
        List<String> items =
                ITEMS.getOrDefault(path.substring(path.lastIndexOf('/') + 1), List.of());
        String meta = "{}";
        if (items.size() > 1 && path.endsWith("/deployments")) {
            boolean second = query.contains("continue=");
            meta = second ? "{}" : "{\"continue\":\"page-2\"}";
            items = second ? items.subList(1, items.size()) : items.subList(0, 1);
        }
        byte[] body =
                ("{\"kind\":\"List\",\"apiVersion\":\"v1\",\"metadata\":"
                                + meta
                                + ",\"items\":["
                                + String.join(",", items)
                                + "]}")
                        .getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", "application/json");
        x.sendResponseHeaders(200, body.length);
        try (OutputStream o = x.getResponseBody()) {
            o.write(body);
        }
    }
}
