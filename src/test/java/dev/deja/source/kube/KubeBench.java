package dev.deja.source.kube;

import dev.deja.collect.Collector;
import dev.deja.engine.Rule;
import dev.deja.engine.SourceKind;
import dev.deja.rules.RuleRegistry;
import dev.deja.source.ScanRequest;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Benchmark harness (run by {@code src/bench/kube-bench.sh}, not a unit test): loads a synthetic
 * cluster into Fabric8's mock API server (CRUD mode, real HTTP), then times {@code deja scan
 * --cluster} in its own JVM with {@code -Xmx384m} against fetching the very same lists (same kinds,
 * same page size, same parallelism) with the JDK HttpClient from the same server in the same run,
 * and prints the ratio.
 */
public final class KubeBench {
    static int pods = 20_000;
    static int deployments = 3_000;
    static int services = 3_000;
    static int ingresses = 500;
    static int configMaps = 1_000;
    static int hpas = 300;
    static int pdbs = 300;
    static int namespaces = 100;
    static int runs = 3;
    static String jar = "target/deja.jar";
    static String xmx = "384m";
    static boolean serve;

    /** Only with --serve: the server speaks TLS, for measuring a scan as against a real cluster. */
    static boolean tls;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--jar" -> jar = args[++i];
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--xmx" -> xmx = args[++i];
                case "--serve" -> serve = true;
                case "--tls" -> tls = true;
                case "--scale" -> {
                    double s = Double.parseDouble(args[++i]);
                    pods = (int) (pods * s);
                    deployments = (int) (deployments * s);
                    services = (int) (services * s);
                    ingresses = (int) (ingresses * s);
                    configMaps = (int) (configMaps * s);
                    hpas = (int) (hpas * s);
                    pdbs = (int) (pdbs * s);
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Logger root = Logger.getLogger("");
        root.setLevel(Level.WARNING);
        for (Handler h : root.getHandlers()) {
            h.setLevel(Level.WARNING);
        }
        Path dir = Files.createTempDirectory("deja-kube-bench");
        if (tls && !serve) {
            throw new IllegalArgumentException(
                    "--tls is for --serve only (the timed references fetch over plain HTTP)");
        }
        try (MockCluster cluster = new MockCluster(null, tls)) {
            String base = cluster.url();
            long t0 = System.nanoTime();
            int created = populate(cluster);
            System.out.printf(
                    "cluster: %d objects (pods %d, deployments %d, services %d, ingresses %d, configmaps %d,"
                            + " hpas %d, pdbs %d, %d namespaces) loaded in %.1f s%n",
                    created,
                    pods,
                    deployments,
                    services,
                    ingresses,
                    configMaps,
                    hpas,
                    pdbs,
                    namespaces,
                    secs(System.nanoTime() - t0));
            Path kc = cluster.kubeconfig(dir);
            if (serve) { // keep the loaded server up for manual measurements (kubectl, deja
                // --verbose, profilers)
                System.out.println(
                        "serving at " + base + "; kubeconfig " + kc + "; stop with Ctrl-C");
                Thread.currentThread().join();
            }
            Set<String> kinds = new TreeSet<>();
            for (Rule r : RuleRegistry.all()) {
                kinds.addAll(r.kubeKinds());
            }
            System.out.println(
                    "kinds the rules need (listed by both): "
                            + kinds
                            + "; Pods are not read by deja");

            List<Double> ref = new ArrayList<>();
            List<Double> proc = new ArrayList<>();
            List<Double> inproc = new ArrayList<>();
            List<Double> curl = new ArrayList<>();
            List<Double> jvmRef = new ArrayList<>();
            boolean haveCurl = Files.isExecutable(Path.of("/usr/bin/curl"));
            long bytes = 0;
            String rss = "n/a";
            String findings = "?";
            int exit = -1;
            for (int run = 0; run <= runs; run++) { // run 0 warms the server and the page cache
                long r0 = System.nanoTime();
                bytes = reference(base, kinds);
                double refS = secs(System.nanoTime() - r0);
                double curlS = haveCurl ? curlReference(base, kinds, dir) : Double.NaN;
                double jvmS = jvmReference(base, kinds);
                Path out = dir.resolve("report.json");
                List<String> cmd = new ArrayList<>();
                boolean time = Files.isExecutable(Path.of("/usr/bin/time"));
                if (time) {
                    cmd.addAll(List.of("/usr/bin/time", "-f", "RSS_KB=%M"));
                }
                // the ./deja launcher as users run it (its JVM options and class-data archive),
                // with the memory cap
                // under test; without the launcher (another jar given), java -jar with the same
                // options
                Path launcher = Path.of("deja");
                if (jar.equals("target/deja.jar") && Files.isExecutable(launcher)) {
                    cmd.add("./deja");
                } else {
                    cmd.addAll(
                            List.of(
                                    Path.of(System.getProperty("java.home"), "bin", "java")
                                            .toString(),
                                    "-Xmx" + xmx,
                                    "-XX:TieredStopAtLevel=1",
                                    "-XX:+UseSerialGC",
                                    "-XX:NewRatio=1",
                                    "-jar",
                                    jar));
                }
                cmd.addAll(
                        List.of(
                                "scan",
                                "--cluster",
                                "--kubeconfig",
                                kc.toString(),
                                "--format",
                                "json",
                                "-o",
                                out.toString(),
                                "--fail-on",
                                "none"));
                long p0 = System.nanoTime();
                ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
                pb.environment().put("DEJA_JAVA_OPTS", "-Xmx" + xmx);
                Process p = pb.start();
                String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                exit = p.waitFor();
                double procS = secs(System.nanoTime() - p0);
                Matcher m = Pattern.compile("RSS_KB=(\\d+)").matcher(log);
                if (m.find()) {
                    rss = Long.parseLong(m.group(1)) / 1024 + " MiB";
                }
                if (exit != 0) {
                    System.out.println("deja exited " + exit + ":\n" + log);
                    System.exit(1);
                }
                Matcher f = Pattern.compile("\"total\" : (\\d+)").matcher(Files.readString(out));
                findings = f.find() ? f.group(1) : "?";
                long c0 = System.nanoTime();
                ScanRequest.Builder reqB = ScanRequest.builder();
                reqB.cluster = true;
                reqB.kubeconfig = kc;
                reqB.kubeKinds = kinds;
                reqB.processEnv = Map.of();
                ScanRequest req = reqB.build();
                Collector.collect(req);
                double inS = secs(System.nanoTime() - c0);
                if (run > 0) {
                    ref.add(refS);
                    proc.add(procS);
                    inproc.add(inS);
                    curl.add(curlS);
                    jvmRef.add(jvmS);
                }
                System.out.printf(
                        "run %d%s: reference %.3f s, curl %.3f s, JDK client in its own JVM %.3f s, deja scan"
                                + " (process) %.3f s, deja collector (in-process) %.3f s%n",
                        run,
                        run == 0 ? " (warm-up, not counted)" : "",
                        refS,
                        curlS,
                        jvmS,
                        procS,
                        inS);
            }
            double r = median(ref);
            double p = median(proc);
            double c = median(inproc);
            System.out.printf(
                    "reference: JDK HttpClient GETs of the same %d lists (limit=%d, continue, %d in parallel),"
                            + " %.1f MiB of JSON: median %.3f s%n",
                    kinds.size(),
                    KubeLiveSource.PAGE,
                    KubeLiveSource.MAX_PARALLEL,
                    bytes / 1048576.0,
                    r);
            System.out.printf(
                    "deja scan --cluster (./deja, the launcher users run, DEJA_JAVA_OPTS=-Xmx%s, its %d Kubernetes rules, %s findings, exit %d, max RSS %s):"
                            + " median %.3f s%n",
                    xmx,
                    RuleRegistry.all().stream()
                            .filter(rule -> rule.source() == SourceKind.KUBERNETES)
                            .count(),
                    findings,
                    exit,
                    rss,
                    p);
            System.out.printf(
                    "deja collector in a warm JVM (lists + views, no JVM start): median %.3f s%n",
                    c);
            double cu = median(curl);
            if (haveCurl) {
                System.out.printf(
                        "curl: the same lists, one curl process per list, in parallel: median %.3f s%n",
                        cu);
            }
            double j = median(jvmRef);
            System.out.printf(
                    "JDK client in its own JVM (java -cp test-classes KubeFetch, C1, serial GC; JVM start"
                            + " included): median %.3f s%n",
                    j);
            // process against process: both start a JVM and fetch the same lists; deja also parses
            // them, runs the
            // rules and writes the report. curl starts no JVM: even the bare JDK fetch is that far
            // from it.
            System.out.printf(
                    "RATIO deja scan / JDK client in its own JVM = %.2f (target <= 1.2)%n", p / j);
            System.out.printf(
                    "RATIO deja scan / curl = %.2f (target <= 2.0; the bare JDK fetch alone is %.2f x curl:"
                            + " JVM start);"
                            + " in warm JVMs, deja's collector / the JDK fetch = %.2f; deja scan / warm JDK fetch = %.2f%n",
                    p / cu, j / cu, c / r, p / r);
        }
    }

    static double secs(long nanos) {
        return nanos / 1e9;
    }

    static double median(List<Double> xs) {
        double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length == 0
                ? Double.NaN
                : a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    // ------------------------------------------------------------------ the reference: plain HTTP

    static final Pattern CONTINUE = Pattern.compile("\"continue\"\\s*:\\s*\"([^\"]+)\"");

    /**
     * The same lists fetched by curl processes (one per list, all in parallel), when curl is
     * installed.
     */
    static double curlReference(String base, Set<String> kinds, Path dir) throws Exception {
        long t0 = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(KubeLiveSource.MAX_PARALLEL);
        try {
            List<Future<?>> fs = new ArrayList<>();
            int i = 0;
            for (String k : kinds) {
                KubeLiveSource.KindInfo ki = KubeLiveSource.KINDS.get(k);
                String path =
                        (ki.group().isEmpty()
                                        ? "/api/" + ki.version()
                                        : "/apis/" + ki.group() + "/" + ki.version())
                                + "/"
                                + ki.plural();
                Path out = dir.resolve("curl-" + (i++) + ".json");
                fs.add(
                        pool.submit(
                                () -> {
                                    String token = null;
                                    do {
                                        String url =
                                                base
                                                        + path
                                                        + "?limit="
                                                        + KubeLiveSource.PAGE
                                                        + (token == null
                                                                ? ""
                                                                : "&continue="
                                                                        + URLEncoder.encode(
                                                                                token, "UTF-8"));
                                        Process p =
                                                new ProcessBuilder(
                                                                "curl",
                                                                "-sf",
                                                                "-H",
                                                                "Authorization: Bearer not-a-real-token",
                                                                "-o",
                                                                out.toString(),
                                                                url)
                                                        .redirectErrorStream(true)
                                                        .start();
                                        if (p.waitFor() != 0) {
                                            throw new IOException("curl " + url + " failed");
                                        }
                                        byte[] body = Files.readAllBytes(out);
                                        Matcher m =
                                                CONTINUE.matcher(
                                                        new String(
                                                                body,
                                                                0,
                                                                Math.min(body.length, 512),
                                                                StandardCharsets.UTF_8));
                                        token = m.find() ? m.group(1) : null;
                                    } while (token != null);
                                    return null;
                                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        return secs(System.nanoTime() - t0);
    }

    /**
     * The same fetch as {@link #reference} in a fresh JVM ({@link KubeFetch}): a process start like
     * deja's.
     */
    static double jvmReference(String base, Set<String> kinds) throws Exception {
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-XX:TieredStopAtLevel=1",
                                "-XX:+UseSerialGC",
                                "-cp",
                                Path.of("target", "test-classes").toString(),
                                KubeFetch.class.getName(),
                                base,
                                Integer.toString(KubeLiveSource.PAGE)));
        for (String k : kinds) {
            KubeLiveSource.KindInfo ki = KubeLiveSource.KINDS.get(k);
            cmd.add(
                    (ki.group().isEmpty()
                                    ? "/api/" + ki.version()
                                    : "/apis/" + ki.group() + "/" + ki.version())
                            + "/"
                            + ki.plural());
        }
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("KubeFetch failed: " + out);
        }
        return secs(System.nanoTime() - t0);
    }

    static long reference(String base, Set<String> kinds) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        ExecutorService pool = Executors.newFixedThreadPool(KubeLiveSource.MAX_PARALLEL);
        try {
            List<Future<Long>> fs = new ArrayList<>();
            for (String k : kinds) {
                KubeLiveSource.KindInfo ki = KubeLiveSource.KINDS.get(k);
                String path =
                        (ki.group().isEmpty()
                                        ? "/api/" + ki.version()
                                        : "/apis/" + ki.group() + "/" + ki.version())
                                + "/"
                                + ki.plural();
                fs.add(
                        pool.submit(
                                () -> {
                                    long n = 0;
                                    String token = null;
                                    do {
                                        String url =
                                                base
                                                        + path
                                                        + "?limit="
                                                        + KubeLiveSource.PAGE
                                                        + (token == null
                                                                ? ""
                                                                : "&continue="
                                                                        + URLEncoder.encode(
                                                                                token, "UTF-8"));
                                        HttpResponse<byte[]> resp =
                                                http.send(
                                                        HttpRequest.newBuilder(URI.create(url))
                                                                .header(
                                                                        "Authorization",
                                                                        "Bearer not-a-real-token")
                                                                .GET()
                                                                .build(),
                                                        HttpResponse.BodyHandlers.ofByteArray());
                                        if (resp.statusCode() != 200) {
                                            throw new IOException(
                                                    url + ": HTTP " + resp.statusCode());
                                        }
                                        byte[] body = resp.body();
                                        n += body.length;
                                        String tail =
                                                new String(
                                                        body,
                                                        0,
                                                        Math.min(body.length, 512),
                                                        StandardCharsets.UTF_8);
                                        Matcher m = CONTINUE.matcher(tail);
                                        token = m.find() ? m.group(1) : null;
                                    } while (token != null);
                                    return n;
                                }));
            }
            long total = 0;
            for (Future<Long> f : fs) {
                total += f.get();
            }
            return total;
        } finally {
            pool.shutdown();
        }
    }

    // ------------------------------------------------------------------ the synthetic cluster

    static final String[] LB_IMAGES = {
        "registry.k8s.io/ingress-nginx/controller:v1.12.1",
        "envoyproxy/envoy:v1.31.2",
        "haproxytech/kubernetes-ingress:3.0.1",
        "traefik:v3.1"
    };

    static int populate(MockCluster cluster) {
        AtomicInteger count = new AtomicInteger();
        AtomicInteger rv = new AtomicInteger(1000);
        Pattern namePattern = Pattern.compile("\"metadata\":\\{\"name\":\"([^\"]+)\"");
        BiConsumer<String, String> post =
                (path, json) -> {
                    Matcher m = namePattern.matcher(json);
                    if (!m.find()) {
                        throw new IllegalStateException("no name in " + json);
                    }
                    String withRv =
                            json.replaceFirst(
                                    "\"metadata\":\\{",
                                    "\"metadata\":{\"resourceVersion\":\""
                                            + rv.incrementAndGet()
                                            + "\",\"uid\":\""
                                            + UUID.randomUUID()
                                            + "\",");
                    cluster.store(path, m.group(1), withRv);
                    count.incrementAndGet();
                };
        for (String ic : List.of("nginx", "haproxy", "traefik")) {
            post.accept(
                    "/apis/networking.k8s.io/v1/ingressclasses",
                    "{\"apiVersion\":\"networking.k8s.io/v1\","
                            + "\"kind\":\"IngressClass\",\"metadata\":{\"name\":\""
                            + ic
                            + "\"},\"spec\":{\"controller\":\""
                            + (ic.equals("nginx")
                                    ? "k8s.io/ingress-nginx"
                                    : ic + ".io/ingress-controller")
                            + "\"}}");
        }
        for (int i = 0; i < deployments; i++) {
            String ns = "ns-" + (i % namespaces);
            boolean lb = i % 50 == 0;
            String image =
                    lb
                            ? LB_IMAGES[(i / 50) % LB_IMAGES.length]
                            : "registry.example.com/team-"
                                    + (i % 40)
                                    + "/app-"
                                    + i
                                    + ":1."
                                    + (i % 9);
            post.accept(
                    "/apis/apps/v1/namespaces/" + ns + "/deployments",
                    deployment(ns, "app-" + i, image, lb ? 2 : 1 + i % 4));
        }
        for (int i = 0; i < services; i++) {
            String ns = "ns-" + (i % namespaces);
            post.accept(
                    "/api/v1/namespaces/" + ns + "/services",
                    service(ns, "app-" + i, i % 50 == 0, i % 100 == 0));
        }
        for (int i = 0; i < pods; i++) {
            int d = i % deployments;
            String ns = "ns-" + (d % namespaces);
            post.accept("/api/v1/namespaces/" + ns + "/pods", pod(ns, "app-" + d, i));
        }
        for (int i = 0; i < ingresses; i++) {
            String ns = "ns-" + (i % namespaces);
            post.accept(
                    "/apis/networking.k8s.io/v1/namespaces/" + ns + "/ingresses",
                    ingress(ns, "app-" + i));
        }
        for (int i = 0; i < configMaps; i++) {
            String ns = "ns-" + (i % namespaces);
            String name = i < deployments / 50 ? "ingress-nginx-controller" : "config-" + i;
            post.accept("/api/v1/namespaces/" + ns + "/configmaps", configMap(ns, name, i));
        }
        for (int i = 0; i < hpas; i++) {
            String ns = "ns-" + (i % namespaces);
            post.accept(
                    "/apis/autoscaling/v2/namespaces/" + ns + "/horizontalpodautoscalers",
                    "{\"apiVersion\":\"autoscaling/v2\",\"kind\":\"HorizontalPodAutoscaler\",\"metadata\":{\"name\":\"app-"
                            + i
                            + "\",\"namespace\":\""
                            + ns
                            + "\"},\"spec\":{\"scaleTargetRef\":{\"apiVersion\":\"apps/v1\","
                            + "\"kind\":\"Deployment\",\"name\":\"app-"
                            + i
                            + "\"},\"minReplicas\":"
                            + (1 + i % 3)
                            + ",\"maxReplicas\":10,\"metrics\":[{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\","
                            + "\"target\":{\"type\":\"Utilization\",\"averageUtilization\":70}}}]}}");
        }
        for (int i = 0; i < pdbs; i++) {
            String ns = "ns-" + (i % namespaces);
            post.accept(
                    "/apis/policy/v1/namespaces/" + ns + "/poddisruptionbudgets",
                    "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":{\"name\":\"app-"
                            + (i * 10)
                            + "\",\"namespace\":\""
                            + ns
                            + "\"},\"spec\":{\"maxUnavailable\":1,\"selector\":{\"matchLabels\":"
                            + "{\"app\":\"app-"
                            + (i * 10)
                            + "\"}}}}");
        }
        return count.get();
    }

    static String labels(String app) {
        return "{\"app\":\""
                + app
                + "\",\"app.kubernetes.io/name\":\""
                + app
                + "\",\"app.kubernetes.io/part-of\":\"shop\","
                + "\"team\":\"payments\",\"pod-template-hash\":\"5d8f7c9b4\"}";
    }

    static String container(String app, String image) {
        return "{\"name\":\"main\",\"image\":\""
                + image
                + "\",\"args\":[\"--port=8080\",\"--log-level=info\","
                + "\"--config=/etc/"
                + app
                + "/config.yaml\"],\"env\":[{\"name\":\"POD_NAME\",\"valueFrom\":{\"fieldRef\":"
                + "{\"fieldPath\":\"metadata.name\"}}},{\"name\":\"POD_NAMESPACE\",\"valueFrom\":{\"fieldRef\":"
                + "{\"fieldPath\":\"metadata.namespace\"}}},{\"name\":\"JAVA_OPTS\",\"value\":\"-Xmx512m -XX:+UseG1GC\"},"
                + "{\"name\":\"FEATURE_FLAGS\",\"value\":\"a,b,c,d\"}],\"ports\":[{\"name\":\"http\",\"containerPort\":8080},"
                + "{\"name\":\"metrics\",\"containerPort\":9090}],\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":"
                + "\"256Mi\"},\"limits\":{\"memory\":\"512Mi\"}},\"readinessProbe\":{\"httpGet\":{\"path\":\"/healthz\","
                + "\"port\":8080},\"periodSeconds\":10},\"livenessProbe\":{\"httpGet\":{\"path\":\"/healthz\",\"port\":8080},"
                + "\"timeoutSeconds\":5,\"periodSeconds\":20,\"failureThreshold\":6},\"volumeMounts\":[{\"name\":\"config\","
                + "\"mountPath\":\"/etc/"
                + app
                + "\"}]}";
    }

    static String podSpec(String app, String image) {
        return "{\"serviceAccountName\":\""
                + app
                + "\",\"containers\":["
                + container(app, image)
                + "],\"volumes\":[{\"name\":"
                + "\"config\",\"configMap\":{\"name\":\""
                + app
                + "-config\"}}],\"terminationGracePeriodSeconds\":30}";
    }

    static String deployment(String ns, String app, String image, int replicas) {
        return "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\""
                + app
                + "\",\"namespace\":\""
                + ns
                + "\",\"labels\":"
                + labels(app)
                + ",\"annotations\":{\"deployment.kubernetes.io/revision\":\"7\"}},"
                + "\"spec\":{\"replicas\":"
                + replicas
                + ",\"selector\":{\"matchLabels\":{\"app\":\""
                + app
                + "\"}},"
                + "\"template\":{\"metadata\":{\"labels\":"
                + labels(app)
                + "},\"spec\":"
                + podSpec(app, image)
                + "}}}";
    }

    static String pod(String ns, String app, int i) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\""
                + app
                + "-5d8f7c9b4-"
                + i
                + "\",\"namespace\":\""
                + ns
                + "\",\"labels\":"
                + labels(app)
                + ",\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":"
                + "\"ReplicaSet\",\"name\":\""
                + app
                + "-5d8f7c9b4\",\"uid\":\"0b0e8a8e-1111-2222-3333-"
                + String.format("%012d", i)
                + "\",\"controller\":true}]},\"spec\":"
                + podSpec(app, "registry.example.com/" + app + ":1.0")
                + ",\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0."
                + (i / 250)
                + "."
                + (i % 250)
                + "\",\"conditions\":"
                + "[{\"type\":\"Ready\",\"status\":\"True\"},{\"type\":\"ContainersReady\",\"status\":\"True\"}]}}";
    }

    static String service(String ns, String app, boolean lb, boolean crossZone) {
        String ann =
                lb
                        ? "{\"service.beta.kubernetes.io/aws-load-balancer-type\":\"nlb\""
                                + (crossZone
                                        ? ",\"service.beta.kubernetes.io/aws-load-balancer-cross-zone-load-balancing-enabled\":\"true\""
                                        : "")
                                + "}"
                        : "{\"prometheus.io/scrape\":\"true\"}";
        return "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\""
                + app
                + "\",\"namespace\":\""
                + ns
                + "\",\"labels\":"
                + labels(app)
                + ",\"annotations\":"
                + ann
                + "},\"spec\":{\"type\":\""
                + (lb ? "LoadBalancer" : "ClusterIP")
                + "\",\"selector\":{\"app\":\""
                + app
                + "\"},\"ports\":[{\"name\":"
                + "\"http\",\"port\":80,\"targetPort\":8080}]}}";
    }

    static String ingress(String ns, String app) {
        return "{\"apiVersion\":\"networking.k8s.io/v1\",\"kind\":\"Ingress\",\"metadata\":{\"name\":\""
                + app
                + "\","
                + "\"namespace\":\""
                + ns
                + "\"},\"spec\":{\"ingressClassName\":\"nginx\",\"rules\":[{\"host\":\""
                + app
                + ".example.com\",\"http\":{\"paths\":[{\"path\":\"/\",\"pathType\":\"Prefix\",\"backend\":{\"service\":"
                + "{\"name\":\""
                + app
                + "\",\"port\":{\"number\":80}}}}]}}]}}";
    }

    static String configMap(String ns, String name, int i) {
        StringBuilder data =
                new StringBuilder("{\"enable-serial-reloads\":\"" + (i % 2 == 0) + "\"");
        for (int k = 0; k < 10; k++) {
            data.append(",\"key-")
                    .append(k)
                    .append("\":\"")
                    .append("value-".repeat(12))
                    .append(k)
                    .append('"');
        }
        return "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\""
                + name
                + "\",\"namespace\":\""
                + ns
                + "\"},\"data\":"
                + data
                + "}}";
    }
}
