package dev.deja.source.aws;

import dev.deja.cli.Cli;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Benchmark harness for {@code src/bench/aws-bench.sh}: a fake ELBv2/EC2 endpoint with N load
 * balancers and 3N target groups (default 500 / 1,500), a fixed latency per call (default 20 ms),
 * and {@code deja scan --aws} run in-process against it. Prints deja's wall time against the
 * sequential floor (calls x latency) and the API calls the fake received against the minimum the
 * calls need. Exit 1 when the ratio is above 0.2 or the call count is not the minimum.
 */
public final class AwsBench {
    public static void main(String[] args) throws Exception {
        int lbCount = args.length > 0 ? Integer.parseInt(args[0]) : 500;
        long latency = args.length > 1 ? Long.parseLong(args[1]) : 20;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        String jar =
                args.length > 3
                        ? args[3]
                        : null; // run deja as its own process from this jar (as users do)
        int tgPerLb = 3;
        int instancesPool = 300;
        String region = "eu-west-2";
        String[] zones = {"eu-west-2a", "eu-west-2b", "eu-west-2c"};
        Path tmp = Files.createTempDirectory("deja-aws-bench");

        double best = Double.MAX_VALUE;
        StringBuilder times = new StringBuilder();
        int received = 0;
        Map<String, Integer> byAction = Map.of();
        Map<String, Integer> minimum = new LinkedHashMap<>();
        int targets = 0;
        for (int run = 1; run <= runs; run++) {
            try (FakeAws fake = FakeAws.start(region)) {
                targets = 0;
                for (int z = 0; z < 3; z++) {
                    fake.subnet("subnet-" + z, "vpc-1", "10.0." + z + ".0/24", zones[z]);
                }
                for (int i = 0; i < instancesPool; i++) {
                    fake.instance(String.format(Locale.ROOT, "i-%017x", i), zones[i % 3]);
                }
                for (int i = 0; i < lbCount; i++) {
                    boolean nlb = i % 5 != 0;
                    String lb =
                            fake.lb(
                                    String.format(Locale.ROOT, "lb-%04d", i),
                                    nlb ? "network" : "application",
                                    nlb ? zones : new String[] {zones[0], zones[1]});
                    fake.tag(lb, "service.k8s.aws/stack", "ns-" + (i % 20) + "/svc-" + i);
                    fake.attribute(lb, "deletion_protection.enabled", "false");
                    for (int t = 0; t < tgPerLb; t++) {
                        boolean ip = t % 2 == 0;
                        String tg =
                                fake.tg(
                                        String.format(Locale.ROOT, "tg-%04d-%d", i, t),
                                        ip ? "ip" : "instance",
                                        10,
                                        5,
                                        3,
                                        lb);
                        for (int z = 0; z < 3; z++) {
                            String id =
                                    ip
                                            ? "10.0." + z + "." + (1 + (i * tgPerLb + t) % 250)
                                            : String.format(
                                                    Locale.ROOT,
                                                    "i-%017x",
                                                    (i * 3 + z * 100 + t) % instancesPool);
                            fake.target(
                                    tg,
                                    id,
                                    80,
                                    null,
                                    (i + z) % 17 == 0 ? "unhealthy" : "healthy",
                                    null,
                                    null);
                            targets++;
                        }
                    }
                }
                fake.latency(latency);
                Map<String, String> env =
                        Map.of(
                                "AWS_ACCESS_KEY_ID",
                                "AKIDBENCH",
                                "AWS_SECRET_ACCESS_KEY",
                                "bench",
                                "AWS_CONFIG_FILE",
                                tmp.resolve("none").toString(),
                                "AWS_SHARED_CREDENTIALS_FILE",
                                tmp.resolve("none").toString());
                StringWriter out = new StringWriter();
                StringWriter err = new StringWriter();
                String[] scan = {
                    "scan",
                    "--aws",
                    "--aws-endpoint",
                    fake.url(),
                    "--region",
                    region,
                    "--format",
                    "json",
                    "--fail-on",
                    "none"
                };
                long start = System.nanoTime();
                int code;
                if (jar == null) {
                    code =
                            Cli.run(
                                    new Cli.Io(
                                            new PrintWriter(out),
                                            new PrintWriter(err),
                                            new ByteArrayInputStream(new byte[0]),
                                            env,
                                            false),
                                    scan);
                } else {
                    List<String> cmd =
                            new ArrayList<>(
                                    List.of(
                                            Path.of(System.getProperty("java.home"), "bin", "java")
                                                    .toString(),
                                            "-XX:TieredStopAtLevel=1",
                                            "-jar",
                                            jar));
                    cmd.addAll(List.of(scan));
                    ProcessBuilder pb =
                            new ProcessBuilder(cmd)
                                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                                    .redirectError(ProcessBuilder.Redirect.INHERIT);
                    pb.environment().putAll(env);
                    code = pb.start().waitFor();
                }
                double secs = (System.nanoTime() - start) / 1e9;
                if (code != 0) {
                    System.err.println(err);
                    throw new IllegalStateException("deja exited " + code);
                }
                if (!fake.problems().isEmpty()) {
                    throw new IllegalStateException("malformed requests: " + fake.problems());
                }
                best = Math.min(best, secs);
                times.append(times.length() == 0 ? "" : ", ")
                        .append(String.format(Locale.ROOT, "%.2f s", secs));
                received = fake.totalCalls();
                byAction = fake.callsByAction();
            }
        }
        int tgs = lbCount * tgPerLb;
        minimum.put("DescribeLoadBalancers", ceil(lbCount, 400));
        minimum.put("DescribeTargetGroups", ceil(tgs, 400));
        minimum.put("DescribeLoadBalancerAttributes", lbCount);
        minimum.put("DescribeTags", ceil(lbCount, 20));
        minimum.put("DescribeTargetGroupAttributes", tgs);
        minimum.put("DescribeTargetHealth", tgs);
        minimum.put("DescribeSubnets", 1);
        minimum.put("DescribeInstances", ceil(instancesPool, 200));
        int min = minimum.values().stream().mapToInt(Integer::intValue).sum();
        double floor = received * latency / 1000.0;
        double ratio = best / floor;
        System.out.printf(
                Locale.ROOT,
                "AWS scan: %d load balancers, %d target groups, %d targets, %d ms per call,"
                        + " %d concurrent calls%n",
                lbCount,
                tgs,
                targets,
                latency,
                AwsLiveSource.CONCURRENCY);
        System.out.printf(Locale.ROOT, "API calls received: %d; minimum: %d%n", received, min);
        for (Map.Entry<String, Integer> e : minimum.entrySet()) {
            System.out.printf(
                    Locale.ROOT,
                    "  %-32s %5d (minimum %d)%n",
                    e.getKey(),
                    byAction.getOrDefault(e.getKey(), 0),
                    e.getValue());
        }
        System.out.printf(
                Locale.ROOT,
                "sequential floor: %d calls x %d ms = %.2f s%n",
                received,
                latency,
                floor);
        System.out.printf(
                Locale.ROOT,
                "deja scan (%s, %d run(s)): %s; best %.2f s%n",
                jar == null
                        ? "in-process, first run cold"
                        : "java -jar " + jar + ", each run a fresh JVM",
                runs,
                times,
                best);
        System.out.printf(
                Locale.ROOT, "ratio deja / sequential floor: %.3f (target <= 0.2)%n", ratio);
        boolean ok = ratio <= 0.2 && received == min;
        System.out.println(ok ? "PASS" : "FAIL");
        System.exit(ok ? 0 : 1);
    }

    private static int ceil(int a, int b) {
        return (a + b - 1) / b;
    }
}
