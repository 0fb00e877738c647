package dev.deja.source.kube;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Benchmark harness (run by {@code src/bench/fleet-bench.sh}, not a unit test): N synthetic
 * clusters of 1,000 pods each (KubeBench's mix scaled to 1,000 pods: 150 Deployments, 150 Services,
 * 25 Ingresses, 50 ConfigMaps, HPAs, PDBs), each in its own Fabric8 mock API server (CRUD mode,
 * real HTTP), one kubeconfig with a context per cluster. Times {@code deja scan --all-contexts
 * --parallel P} in its own JVM with -Xmx512m against the parallel floor: the slowest single-cluster
 * scan x N / P. Single-cluster scans are separate processes, so each pays a JVM start the fleet run
 * pays once; the floor is printed both with and without that start ({@code deja --version}'s time).
 */
public final class FleetBench {
    public static void main(String[] args) throws Exception {
        int clusters = 50;
        int parallel = 8;
        int sample = 5;
        String xmx = "512m";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--clusters" -> clusters = Integer.parseInt(args[++i]);
                case "--parallel" -> parallel = Integer.parseInt(args[++i]);
                case "--sample" -> sample = Integer.parseInt(args[++i]);
                case "--xmx" -> xmx = args[++i];
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        Logger.getLogger("").setLevel(Level.WARNING);
        for (Handler h : Logger.getLogger("").getHandlers()) {
            h.setLevel(Level.WARNING);
        }
        // KubeBench's synthetic cluster, scaled to 1,000 pods
        double scale = 1000.0 / KubeBench.pods;
        KubeBench.pods = 1000;
        KubeBench.deployments = (int) (KubeBench.deployments * scale);
        KubeBench.services = (int) (KubeBench.services * scale);
        KubeBench.ingresses = (int) (KubeBench.ingresses * scale);
        KubeBench.configMaps = (int) (KubeBench.configMaps * scale);
        KubeBench.hpas = (int) (KubeBench.hpas * scale);
        KubeBench.pdbs = (int) (KubeBench.pdbs * scale);
        KubeBench.namespaces = 10;
        Path dir = Files.createTempDirectory("deja-fleet-bench");
        List<MockCluster> servers = new ArrayList<>();
        try {
            long t0 = System.nanoTime();
            Map<String, String> contexts = new LinkedHashMap<>();
            int objects = 0;
            for (int c = 0; c < clusters; c++) {
                MockCluster m = new MockCluster();
                servers.add(m);
                objects = KubeBench.populate(m);
                contexts.put(String.format("c%03d", c), m.url());
            }
            Path kc = FleetScanTest.kubeconfig(dir.resolve("kubeconfig"), contexts, "c000");
            System.out.printf(
                    "%d clusters of %d objects each (1,000 pods, %d Deployments, %d Services) loaded in %.1f s%n",
                    clusters,
                    objects,
                    KubeBench.deployments,
                    KubeBench.services,
                    (System.nanoTime() - t0) / 1e9);

            double start = run(dir, xmx, List.of("--version")).seconds;
            System.out.printf("JVM start + deja --version: %.2f s%n", start);
            run(
                    dir,
                    xmx,
                    List.of(
                            "scan",
                            "--cluster",
                            "--kubeconfig",
                            kc.toString(),
                            "--context",
                            "c000",
                            "--format",
                            "json",
                            "-o",
                            dir.resolve("warm.json").toString(),
                            "--fail-on",
                            "none")); // warm-up
            int n = Math.min(sample, clusters);
            double slowest = 0;
            List<String> singles = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String ctx = String.format("c%03d", i * clusters / n);
                Result r =
                        run(
                                dir,
                                xmx,
                                List.of(
                                        "scan",
                                        "--cluster",
                                        "--kubeconfig",
                                        kc.toString(),
                                        "--context",
                                        ctx,
                                        "--format",
                                        "json",
                                        "-o",
                                        dir.resolve("one.json").toString(),
                                        "--fail-on",
                                        "none"));
                singles.add(String.format("%s %.2f s", ctx, r.seconds));
                slowest = Math.max(slowest, r.seconds);
            }
            System.out.println(
                    "single-cluster scans ("
                            + n
                            + " of "
                            + clusters
                            + " clusters, same content): "
                            + singles);
            Result fleet =
                    run(
                            dir,
                            xmx,
                            List.of(
                                    "scan",
                                    "--all-contexts",
                                    "--kubeconfig",
                                    kc.toString(),
                                    "--parallel",
                                    Integer.toString(parallel),
                                    "--format",
                                    "json",
                                    "-o",
                                    dir.resolve("fleet.json").toString(),
                                    "--fail-on",
                                    "none"));
            String report = Files.readString(dir.resolve("fleet.json"));
            Matcher total = Pattern.compile("\"total\" : (\\d+)").matcher(report);
            Matcher targets =
                    Pattern.compile("\"cluster\" : \"c\\d+\",\\s*\"complete\" : true")
                            .matcher(report);
            int complete = 0;
            while (targets.find()) {
                complete++;
            }
            double floor = slowest * clusters / parallel;
            double floorNoStart = Math.max(0.001, slowest - start) * clusters / parallel;
            System.out.printf(
                    "deja scan --all-contexts --parallel %d (%d clusters, -Xmx%s): %.2f s, exit %d, max RSS %s,"
                            + " %s findings, %d of %d clusters complete%n",
                    parallel,
                    clusters,
                    xmx,
                    fleet.seconds,
                    fleet.exit,
                    fleet.rss,
                    total.find() ? total.group(1) : "?",
                    complete,
                    clusters);
            System.out.printf(
                    "parallel floor = slowest single %.2f s x %d / %d = %.2f s; RATIO total / floor = %.2f"
                            + " (target <= 1.3)%n",
                    slowest, clusters, parallel, floor, fleet.seconds / floor);
            System.out.printf(
                    "without the JVM start in the single scans: floor = %.2f s x %d / %d = %.2f s; ratio %.2f%n",
                    slowest - start,
                    clusters,
                    parallel,
                    floorNoStart,
                    fleet.seconds / floorNoStart);
            System.out.printf(
                    "(this machine has %d cores: %d targets at once share them)%n",
                    Runtime.getRuntime().availableProcessors(), parallel);
        } finally {
            servers.forEach(MockCluster::close);
        }
    }

    record Result(double seconds, int exit, String rss) {}

    /**
     * ./deja (the launcher users run) with DEJA_JAVA_OPTS=-XmxN, under /usr/bin/time for the max
     * RSS.
     */
    static Result run(Path dir, String xmx, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>();
        boolean time = Files.isExecutable(Path.of("/usr/bin/time"));
        if (time) {
            cmd.addAll(List.of("/usr/bin/time", "-f", "RSS_KB=%M"));
        }
        cmd.add("./deja");
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("DEJA_JAVA_OPTS", "-Xmx" + xmx);
        pb.environment().put("HOME", dir.toString());
        long t0 = System.nanoTime();
        Process p = pb.start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = p.waitFor();
        double s = (System.nanoTime() - t0) / 1e9;
        Matcher m = Pattern.compile("RSS_KB=(\\d+)").matcher(log);
        String rss = m.find() ? Long.parseLong(m.group(1)) / 1024 + " MiB" : "n/a";
        if (exit != 0 && exit != 1) {
            System.out.println("deja " + args + " exited " + exit + ":\n" + log);
            System.exit(1);
        }
        return new Result(s, exit, rss);
    }
}
