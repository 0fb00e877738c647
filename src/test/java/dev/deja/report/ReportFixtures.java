package dev.deja.report;

import dev.deja.engine.Catalog;
import dev.deja.engine.Coverage;
import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import dev.deja.engine.Target;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Report inputs for reporter tests while no rules exist yet in this branch: the real cases from
 * {@code rules/cases} plus three rule metadata files written here, and findings built by hand (with
 * characters that need escaping).
 */
public final class ReportFixtures {
    private ReportFixtures() {}

    public static final String HAPROXY_RULE = "haproxy-tarpit-holds-slots";
    public static final String KUBE_RULE = "kube-lb-pods-fail-together";
    public static final String AWS_RULE = "aws-nlb-zone-health-hidden";

    public static Catalog catalog() {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> s = Files.list(Path.of("rules/cases"))) {
            for (Path p : (Iterable<Path>) s::iterator) {
                files.put("cases/" + p.getFileName(), Files.readString(p));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        files.put(
                HAPROXY_RULE + ".yaml",
                rule(HAPROXY_RULE, "Tarpit holds connection slots", "high", "haproxy", "IL-0264"));
        files.put(
                KUBE_RULE + ".yaml",
                rule(
                        KUBE_RULE,
                        "Load-balancer pods share one failing probe",
                        "critical",
                        "kubernetes",
                        "IL-0495, IL-0081"));
        files.put(
                AWS_RULE + ".yaml",
                rule(AWS_RULE, "NLB hides unhealthy zone", "medium", "aws", "IL-0364"));
        return Catalog.load(files);
    }

    private static String rule(String id, String title, String sev, String source, String cases) {
        return "id: "
                + id
                + "\ntitle: "
                + title
                + "\nseverity: "
                + sev
                + "\nsource: "
                + source
                + "\ncaseIds: ["
                + cases
                + "]\ndescription: d\nremediation: Change it.\nlinks: ['https://example.org/"
                + id
                + "']\n";
    }

    public static Finding haproxy(int line) {
        return new Finding(
                HAPROXY_RULE,
                Severity.HIGH,
                List.of("IL-0264"),
                "frontend fe_ping tarpits for 1s with maxconn 800: one client at 300 req/s holds 300 of 800 slots (38%)"
                        + " <script>alert(1)</script> \"quoted\" & done",
                "Replace 'http-request tarpit' with 'http-request deny deny_status 429'.",
                Location.section("haproxy.cfg", line, "frontend", "fe_ping"),
                List.of(),
                List.of("defaults at haproxy.cfg:2"));
    }

    public static Finding kube(String name) {
        return new Finding(
                KUBE_RULE,
                Severity.CRITICAL,
                List.of("IL-0495", "IL-0081"),
                "Deployment ingress/"
                        + name
                        + ": all 3 replicas use the same liveness probe on /healthz with"
                        + " failureThreshold 1:\na single slow dependency restarts every pod at once",
                "Give the liveness probe failureThreshold >= 3 and keep dependencies out of it.",
                Location.kube("Deployment", "ingress", name),
                List.of("Service ingress/" + name),
                List.of());
    }

    public static Finding aws() {
        return new Finding(
                AWS_RULE,
                Severity.MEDIUM,
                List.of("IL-0364"),
                "NLB prod-nlb: cross-zone off, 1 of 3 zones has 0 healthy targets (a\\b)",
                "Turn on cross-zone load balancing.",
                Location.aws(
                        "arn:aws:elasticloadbalancing:eu-west-2:123456789012:loadbalancer/net/prod-nlb/abc",
                        "prod-nlb",
                        "eu-west-2"),
                List.of(),
                List.of());
    }

    public static ScanResult result(List<Finding> findings) {
        List<Finding> sorted = new ArrayList<>(findings);
        sorted.sort(Finding.ORDER);
        Coverage cov =
                new Coverage(
                        List.of(
                                new Coverage.Entry(
                                        "haproxy", "haproxy.cfg", Coverage.Status.READ, null, 12),
                                new Coverage.Entry(
                                        "kubernetes",
                                        "Deployment in all namespaces",
                                        Coverage.Status.READ,
                                        null,
                                        4),
                                new Coverage.Entry(
                                        "aws",
                                        "DescribeLoadBalancers eu-west-2",
                                        Coverage.Status.READ,
                                        null,
                                        1)));
        return new ScanResult(
                sorted, List.of(), List.of(), List.of(AWS_RULE, HAPROXY_RULE, KUBE_RULE), cov, 42);
    }

    public static ScanResult typical() {
        return result(List.of(haproxy(12), kube("controller"), aws()));
    }

    /**
     * A run over two clusters and one account: the same Kubernetes finding in both clusters, the
     * AWS finding in the account, the HAProxy file without a target; cluster "stage" could not be
     * read in full.
     */
    public static ScanResult fleet() {
        Target prod = Target.cluster("prod");
        Target stage = Target.cluster("stage");
        Target account = Target.account("123456789012");
        List<Finding> sorted =
                new ArrayList<>(
                        List.of(
                                haproxy(12),
                                kube("controller").withTarget(prod),
                                kube("controller").withTarget(stage),
                                aws().withTarget(account)));
        sorted.sort(Finding.ORDER);
        Coverage cov =
                new Coverage(
                        List.of(
                                new Coverage.Entry(
                                        "haproxy", "haproxy.cfg", Coverage.Status.READ, null, 12),
                                new Coverage.Entry(
                                        "kubernetes",
                                        "Deployment in all namespaces",
                                        Coverage.Status.READ,
                                        null,
                                        4,
                                        prod),
                                new Coverage.Entry(
                                        "kubernetes",
                                        "Deployment in all namespaces",
                                        Coverage.Status.READ,
                                        null,
                                        2,
                                        stage),
                                new Coverage.Entry(
                                        "kubernetes",
                                        "Service in all namespaces",
                                        Coverage.Status.DENIED,
                                        "403",
                                        -1,
                                        stage),
                                new Coverage.Entry(
                                        "aws",
                                        "DescribeLoadBalancers eu-west-2",
                                        Coverage.Status.READ,
                                        null,
                                        1,
                                        account)));
        return new ScanResult(
                sorted, List.of(), List.of(), List.of(AWS_RULE, HAPROXY_RULE, KUBE_RULE), cov, 42);
    }

    public static Report report(ScanResult r) {
        return new Report(r, catalog(), "0.1.0-test", Severity.MEDIUM, false);
    }

    public static String render(Reporter reporter, Report report) {
        StringWriter w = new StringWriter();
        try {
            reporter.write(report, w);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }
}
