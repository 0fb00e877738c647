package dev.deja.cli;

import dev.deja.engine.InputException;
import dev.deja.model.kube.KubeScope;
import dev.deja.source.ScanRequest;
import dev.deja.source.kube.KubeClients;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/** {@code deja scan --cluster}: which live clusters are read, and what of them. */
final class KubeOptions {
    /** A namespace name as Kubernetes allows it (RFC 1123 label). */
    private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    boolean cluster;

    Path kubeconfig;

    List<String> contexts = new ArrayList<>();

    boolean allContexts;

    String clusterName;

    List<String> namespaces = new ArrayList<>();

    boolean allNamespaces;

    String selector;

    boolean noAnnotationSuppressions;

    boolean liveMetrics;

    String liveMetricsTimeout;

    /** The options above, for picocli (see {@link Opt}). */
    void declare(CommandSpec s) {
        s.addOption(
                Opt.named("--cluster")
                        .negatable()
                        .description(
                                "Scan the live cluster of the current kubeconfig context (--no-cluster: not even when deja.yaml has a cluster section). As kubectl does, a context that sets a namespace scopes the scan to it (-A for every namespace); a context without one, or a pod's service account, scans every namespace. The report and stderr name the context, API server and namespaces scanned")
                        .flag(this, "cluster"));
        s.addOption(
                Opt.named("--kubeconfig")
                        .label("FILE")
                        .description(
                                "Kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)")
                        .value(Path.class, this, "kubeconfig"));
        s.addOption(
                Opt.named("--context")
                        .label("NAME")
                        .split("\u0000")
                        .splitLabel("")
                        .description(
                                "Kubeconfig context (default: current-context); repeat it to scan several clusters in one run")
                        .list(String.class, this, "contexts"));
        s.addOption(
                Opt.named("--all-contexts")
                        .negatable()
                        .description(
                                "Scan every context of the (merged) kubeconfig, each as its own cluster (implies --cluster)")
                        .flag(this, "allContexts"));
        s.addOption(
                Opt.named("--cluster-name")
                        .label("NAME")
                        .description(
                                "The cluster's name in the report and for matching load balancers' elbv2.k8s.aws/cluster tag (default: the context name; one cluster only)")
                        .value(String.class, this, "clusterName"));
        s.addOption(
                Opt.named("-n", "--namespace")
                        .label("NS")
                        .split("\u0000")
                        .splitLabel("")
                        .description(
                                "Namespace to scan (repeatable; default: the context's namespace, else all)")
                        .list(String.class, this, "namespaces"));
        s.addOption(
                Opt.named("-A", "--all-namespaces")
                        .description(
                                "Scan every namespace, even when the kubeconfig context sets one (the default for a context without a namespace)")
                        .flag(this, "allNamespaces"));
        s.addOption(
                Opt.named("-l", "--selector")
                        .label("SELECTOR")
                        .description("Label selector for workloads")
                        .value(String.class, this, "selector"));
        s.addOption(
                Opt.named("--no-annotation-suppressions")
                        .negatable()
                        .description(
                                "--no-annotation-suppressions: ignore deja.dev/ignore annotations on objects (anyone who can edit a workload could exempt it); --annotation-suppressions: honour them (the default), even when deja.yaml says annotationSuppressions: false")
                        .flag(this, "noAnnotationSuppressions"));
        s.addOption(
                Opt.named("--live-metrics")
                        .negatable()
                        .description(
                                "With --cluster: also read live figures from the proxy pods through the API server's pod proxy: HAProxy's exporter or stats (sessions against limits) and ingress-nginx controllers' /metrics (active connections against max-worker-connections x worker-processes); needs RBAC list on pods and get on pods/proxy")
                        .flag(this, "liveMetrics"));
        s.addOption(
                Opt.named("--live-metrics-timeout")
                        .label("TIME")
                        .defaultValue("10s")
                        .description(
                                "With --live-metrics: bound on each pod's read through the API server (e.g. 500ms, 10s, 1m; default: ${DEFAULT-VALUE}); a pod that does not answer within it is a coverage gap")
                        .value(String.class, this, "liveMetricsTimeout"));
    }

    /** --live-metrics-timeout in milliseconds, once {@link #checkApplies} passed. */
    long liveMetricsTimeoutMillis = 10_000;

    void check() {
        if (!namespaces.isEmpty() && allNamespaces) {
            throw new InputException("--namespace and --all-namespaces exclude each other");
        }
        cluster = cluster || allContexts;
    }

    /**
     * Options that choose what the cluster source reads do nothing without it: say so instead of
     * ignoring them. {@code usesCluster}: the run writes or reads a ConfigMap, so --context and
     * --kubeconfig have a use.
     */
    void checkApplies(ParseResult given, boolean usesCluster) {
        List<String> clusterOnly = new ArrayList<>();
        for (String o :
                List.of(
                        "--namespace",
                        "--all-namespaces",
                        "--selector",
                        "--context",
                        "--kubeconfig",
                        "--cluster-name")) {
            boolean connection = o.equals("--context") || o.equals("--kubeconfig");
            if (given.hasMatchedOption(o) && !cluster && !(connection && usesCluster)) {
                clusterOnly.add(o);
            }
        }
        if (!clusterOnly.isEmpty()) {
            throw new InputException(
                    String.join(", ", clusterOnly)
                            + ": only with --cluster (choose what is read from"
                            + " the live cluster; manifests and snapshots are scanned whole)");
        }
        if (allContexts && !contexts.isEmpty()) {
            throw new InputException("--all-contexts and --context exclude each other");
        }
        if (liveMetrics && !cluster) {
            throw new InputException(
                    "--live-metrics: only with --cluster (it reads the proxy pods through the API server)");
        }
        if (given.hasMatchedOption("--live-metrics-timeout") && !liveMetrics) {
            throw new InputException("--live-metrics-timeout: only with --live-metrics");
        }
        liveMetricsTimeoutMillis =
                FleetOptions.timeMillis(liveMetricsTimeout, "--live-metrics-timeout");
        if (selector != null && !selector.isBlank() && !KubeScope.valid(selector)) {
            throw new InputException(
                    "--selector '"
                            + selector
                            + "': not a label selector (e.g. app=web,tier!=cache,"
                            + " 'env in (prod,staging)', '!canary')");
        }
        for (String ns : namespaces) {
            if (!NAMESPACE.matcher(ns).matches()) {
                throw new InputException(
                        "--namespace '"
                                + ns
                                + "': not a namespace name (lowercase letters, digits"
                                + " and '-', at most 63; repeat -n for several)");
            }
        }
    }

    void into(ScanRequest.Builder req) {
        req.cluster = cluster;
        req.kubeconfig = kubeconfig;
        req.context = contexts.size() == 1 ? contexts.get(0) : null;
        req.clusterName = clusterName == null || clusterName.isBlank() ? null : clusterName.strip();
        req.namespaces = List.copyOf(namespaces);
        req.allNamespaces = allNamespaces;
        req.selector = selector;
        req.noAnnotationSuppressions = noAnnotationSuppressions;
        req.liveMetrics = liveMetrics;
        req.liveMetricsTimeoutMillis = liveMetricsTimeoutMillis;
    }

    /**
     * The clusters this run reads: each --context (repeatable), every context of the merged
     * kubeconfig with --all-contexts, else the current one. A context named on the command line
     * that cannot be used is a usage error (exit 2) before any work; with --all-contexts a context
     * that cannot be used is that cluster's coverage entry.
     */
    List<FleetScan.Spec> targets(ScanRequest req) {
        List<FleetScan.Spec> out = new ArrayList<>();
        if (!cluster) {
            return out;
        }
        if (allContexts) {
            var c = KubeClients.contexts(req);
            if (c == null || c.names().isEmpty()) {
                throw new InputException(
                        "--all-contexts: "
                                + (c == null
                                        ? "no kubeconfig (give --kubeconfig FILE or"
                                                + " set KUBECONFIG)"
                                        : c.origin() + " has no contexts"));
            }
            c.names().forEach(n -> out.add(new FleetScan.Spec(true, n, null, null, n, true)));
        } else {
            List<String> named = contexts.isEmpty() ? Collections.singletonList(null) : contexts;
            for (String n : new LinkedHashSet<>(named)) {
                ScanRequest.Builder one = req.toBuilder();
                one.context = n;
                var cfg =
                        KubeClients.config(
                                one.build()); // exit 2 now for a context that cannot be used
                String name =
                        n != null
                                ? n
                                : cfg.getCurrentContext() == null
                                        ? "in-cluster"
                                        : cfg.getCurrentContext().getName();
                out.add(new FleetScan.Spec(true, name, null, null, name, false));
            }
        }
        if (clusterName != null && out.size() > 1) {
            throw new InputException(
                    "--cluster-name: names one cluster; this run reads "
                            + out.size()
                            + " contexts (their names are the context names)");
        }
        return out;
    }
}
