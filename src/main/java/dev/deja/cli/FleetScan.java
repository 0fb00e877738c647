package dev.deja.cli;

import dev.deja.collect.Collector;
import dev.deja.engine.Coverage;
import dev.deja.engine.Finding;
import dev.deja.engine.Futures;
import dev.deja.engine.InputException;
import dev.deja.engine.Location;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.engine.Suppressions;
import dev.deja.engine.Target;
import dev.deja.model.aws.AwsInventory;
import dev.deja.model.kube.FleetWorkloads;
import dev.deja.model.kube.KubeInventory;
import dev.deja.rules.CrossLinks;
import dev.deja.snapshot.SnapshotFile;
import dev.deja.source.ScanRequest;
import dev.deja.source.ScanTrace;
import dev.deja.source.kube.AnnotationSuppressions;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One run over many live targets (clusters by kubeconfig context, AWS accounts by profile or
 * assumed role): each target is read into a snapshot of its own with its own clients and timeouts,
 * judged by the rules on its own (two clusters' objects never meet in a rule), and dropped once its
 * findings are computed; only small views for the AWS <-> Kubernetes links are kept. At most {@code
 * parallel} targets are read at once; a target that does not finish within {@code timeoutMillis}
 * (counted from its own start) is one failed coverage entry and never holds up the others. The
 * files given (and --haproxy-runtime) are one more snapshot, without a target.
 */
final class FleetScan {
    /** One live target to read: a kubeconfig context, or an AWS profile/role. */
    /**
     * @param lenient a context of --all-contexts: when it cannot be used, that is its coverage
     *     entry, not exit 2
     */
    record Spec(
            boolean kube,
            String context,
            String profile,
            String roleArn,
            String label,
            boolean lenient) {
        String source() {
            return kube ? "kubernetes" : "aws";
        }
    }

    /**
     * The outcome of one snapshot: its findings (stamped), the link views, and the context and
     * server read when it is the run's only cluster (else null).
     */
    private record Part(
            ScanResult result,
            CrossLinks.KubeSide kube,
            CrossLinks.AwsSide aws,
            Predicate<Location> selected,
            String clusterRead,
            Map.Entry<String, String> contextNamespace,
            FleetWorkloads.Cluster fleet) {
        Part(
                ScanResult result,
                CrossLinks.KubeSide kube,
                CrossLinks.AwsSide aws,
                Predicate<Location> selected,
                String clusterRead,
                Map.Entry<String, String> contextNamespace) {
            this(result, kube, aws, selected, clusterRead, contextNamespace, null);
        }
    }

    private FleetScan() {}

    /**
     * The merged result, plus (for baselines) whether a location lies in what the scan selected,
     * and (for the report's header) the context and server read when the run reads one cluster, and
     * the namespace each cluster's context scoped the scan to (by target label; only those that set
     * one).
     */
    record Outcome(
            ScanResult result,
            Predicate<Location> selected,
            List<Target> targets,
            String clusterRead,
            Map<String, String> contextNamespaces) {}

    /**
     * As {@link #run(ScanRequest, List, int, long, Function, Function, boolean)} without the rules
     * that compare clusters.
     */
    static Outcome run(
            ScanRequest base,
            List<Spec> specs,
            int parallel,
            long timeoutMillis,
            Function<Snapshot, ScanResult> judge,
            Function<Snapshot, Predicate<Location>> selectedBy) {
        return run(base, specs, parallel, timeoutMillis, judge, selectedBy, false);
    }

    /**
     * @param fleetRules a selected rule compares the clusters ({@link FleetWorkloads}): with two
     *     clusters or more, each cluster's workloads and Namespaces are kept in a small view and,
     *     once every cluster is read, judged together in one more snapshot holding only that view
     */
    static Outcome run(
            ScanRequest asked,
            List<Spec> specs,
            int parallel,
            long timeoutMillis,
            Function<Snapshot, ScanResult> judge,
            Function<Snapshot, Predicate<Location>> selectedBy,
            boolean fleetRules) {
        boolean fleet = fleetRules && specs.stream().filter(Spec::kube).count() >= 2;
        ScanRequest base = fleet ? withNamespaces(asked) : asked;
        boolean links =
                specs.stream().anyMatch(Spec::kube) && specs.stream().anyMatch(s -> !s.kube());
        List<Part> parts = new ArrayList<>();
        // the other live sources (HAProxy runtime API, Prometheus) belong to the cluster when the
        // run reads one (its HAProxy configurations may be in its ConfigMaps); with several
        // clusters they are read with the files
        boolean oneCluster = specs.stream().filter(Spec::kube).count() == 1;
        if (filesPart(base, specs)) {
            parts.add(files(base, specs, oneCluster, judge, selectedBy));
        }
        ExecutorService pool = targetPool(parallel, specs.size());
        // each target's reading runs on a thread of its own, so that one that overruns its time can
        // be left behind
        ExecutorService readers = readerPool();
        try {
            List<Future<Part>> futures = new ArrayList<>();
            for (Spec spec : specs) {
                futures.add(
                        pool.submit(
                                () ->
                                        one(
                                                base,
                                                spec,
                                                specs,
                                                timeoutMillis,
                                                judge,
                                                selectedBy,
                                                links,
                                                fleet,
                                                readers)));
            }
            for (Future<Part> f : futures) {
                try {
                    parts.add(f.get());
                } catch (ExecutionException e) {
                    throw Futures.rethrow(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while the targets were read", e);
                }
            }
        } finally {
            pool.shutdownNow();
            readers.shutdownNow();
        }
        if (fleet) {
            parts.add(judgeFleet(base, specs, parts, judge));
        }
        return merge(parts);
    }

    /**
     * The files given (and the live sources the run does not give to its one cluster), read and
     * judged as one snapshot without a target.
     */
    private static Part files(
            ScanRequest base,
            List<Spec> specs,
            boolean oneCluster,
            Function<Snapshot, ScanResult> judge,
            Function<Snapshot, Predicate<Location>> selectedBy) {
        ScanRequest.Builder files = base.toBuilder();
        files.cluster = false;
        files.aws = false;
        if (oneCluster) {
            files.haproxyRuntime = List.of();
            files.prometheus = null;
        }
        files.snapshotOut = snapshotPath(base, specs, "files");
        Snapshot s = Collector.collect(files.build(), new ScanTrace()); // no target
        ScanResult r = judge.apply(s);
        if (s.has(AwsInventory.class) && s.has(KubeInventory.class)) {
            r = r.withFindings(CrossLinks.apply(s, r.findings()));
        }
        return new Part(r, null, null, selectedBy.apply(s), null, null);
    }

    /** The threads that judge the targets, at most parallel at once. */
    private static ExecutorService targetPool(int parallel, int targets) {
        AtomicInteger no = new AtomicInteger();
        return Executors.newFixedThreadPool(
                Math.max(1, Math.min(parallel, targets)),
                r -> {
                    Thread t = new Thread(r, "deja-target-" + no.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
    }

    /** The threads that read the targets, one each. */
    private static ExecutorService readerPool() {
        return Executors.newCachedThreadPool(
                r -> {
                    Thread t = new Thread(r, "deja-target-read");
                    t.setDaemon(true);
                    return t;
                });
    }

    /** The request that also lists Namespaces (for their deja.dev/critical marker). */
    private static ScanRequest withNamespaces(ScanRequest asked) {
        ScanRequest.Builder b = asked.toBuilder();
        Set<String> kinds = new TreeSet<>(asked.kubeKinds);
        kinds.add("Namespace");
        b.kubeKinds = Set.copyOf(kinds);
        return b.build();
    }

    /**
     * The rules that compare clusters, over the views kept of every cluster (in the order of the
     * specs); with --snapshot-out, that view is saved as the target "fleet".
     */
    private static Part judgeFleet(
            ScanRequest base,
            List<Spec> specs,
            List<Part> parts,
            Function<Snapshot, ScanResult> judge) {
        List<FleetWorkloads.Cluster> clusters = new ArrayList<>();
        for (Part p : parts) {
            if (p.fleet() != null) {
                clusters.add(p.fleet());
            }
        }
        FleetWorkloads view = new FleetWorkloads(clusters);
        SnapshotBuilder b = new SnapshotBuilder().put(FleetWorkloads.class, view);
        // deja.dev/ignore on a workload applies to its fleet finding too; its warnings were
        // printed when its cluster was read
        AnnotationSuppressions.recordFleet(view, base, b, false);
        Snapshot s = b.build();
        Path out = snapshotPath(base, specs, "fleet");
        if (out != null) {
            SnapshotFile.write(s, out);
        }
        return new Part(judge.apply(s), null, null, loc -> true, null, null);
    }

    private static Part one(
            ScanRequest base,
            Spec spec,
            List<Spec> specs,
            long timeoutMillis,
            Function<Snapshot, ScanResult> judge,
            Function<Snapshot, Predicate<Location>> selectedBy,
            boolean links,
            boolean fleet,
            ExecutorService readers) {
        ScanRequest req = request(base, spec, specs);
        // a cluster's target is known before the read, an AWS account's only after it
        ScanTrace trace =
                new ScanTrace(
                        spec.kube()
                                ? Target.cluster(
                                        base.clusterName != null ? base.clusterName : spec.label())
                                : null);
        long started = System.nanoTime();
        Read read = read(req, trace, spec, timeoutMillis, readers);
        Snapshot snapshot = read.snapshot();
        String failed = read.failed();
        // the report's header names the context and server
        String clusterRead =
                spec.kube() && specs.stream().filter(Spec::kube).count() == 1
                        ? trace.clusterRead
                        : null;
        Target target =
                trace.target != null
                        ? trace.target
                        : spec.kube()
                                ? Target.cluster(spec.label())
                                : Target.account(
                                        trace.accountRead != null
                                                ? trace.accountRead
                                                : spec.label());
        if (snapshot == null) {
            return unread(spec, req, failed, target, started, clusterRead, fleet);
        }
        ScanResult r = judge.apply(snapshot);
        ScanResult stamped = stamped(r, target);
        CrossLinks.KubeSide k = null;
        CrossLinks.AwsSide a = null;
        if (links) { // small views; the snapshot itself is dropped here
            var kube = snapshot.part(KubeInventory.class).orElse(null);
            var aws = snapshot.part(AwsInventory.class).orElse(null);
            k = kube == null ? null : CrossLinks.KubeSide.of(target, kube);
            a = aws == null ? null : CrossLinks.AwsSide.of(target, aws);
        }
        FleetWorkloads.Cluster view = null;
        if (fleet && spec.kube()) { // a small view; the snapshot itself is dropped here
            var kube = snapshot.part(KubeInventory.class).orElse(KubeInventory.EMPTY);
            view =
                    FleetWorkloads.Cluster.of(
                            String.valueOf(target.cluster()), kube, snapshot.coverage());
        }
        return new Part(
                stamped,
                k,
                a,
                selectedBy.apply(snapshot),
                clusterRead,
                trace.contextNamespace == null
                        ? null
                        : Map.entry(String.valueOf(target.cluster()), trace.contextNamespace),
                view);
    }

    /**
     * The request for one target: only its source, its context or profile, its own stderr prefix.
     */
    private static ScanRequest request(ScanRequest base, Spec spec, List<Spec> specs) {
        ScanRequest.Builder b = base.toBuilder();
        b.paths = List.of();
        if (!spec.kube() || specs.stream().filter(Spec::kube).count() != 1) {
            b.haproxyRuntime = List.of();
            b.prometheus = null;
        }
        b.cluster = spec.kube();
        b.aws = !spec.kube();
        b.context = spec.context();
        b.profile = spec.profile();
        b.roleArn = spec.roleArn();
        b.clusterName = spec.kube() ? base.clusterName : null;
        b.err =
                specs.size() == 1
                        ? base.err
                        : prefixed(
                                base.err,
                                "[" + (spec.kube() ? "cluster " : "aws ") + spec.label() + "] ");
        b.snapshotOut = snapshotPath(base, specs, spec.label());
        return b.build();
    }

    /** A target's snapshot, or why there is none (it overran its time, its context is unusable). */
    private record Read(Snapshot snapshot, String failed) {}

    /** Reads one target on a reader thread, waiting at most timeoutMillis. */
    private static Read read(
            ScanRequest req,
            ScanTrace trace,
            Spec spec,
            long timeoutMillis,
            ExecutorService readers) {
        Future<Snapshot> read = readers.submit(() -> Collector.collect(req, trace));
        try {
            return new Read(read.get(timeoutMillis, TimeUnit.MILLISECONDS), null);
        } catch (TimeoutException e) {
            read.cancel(true);
            return new Read(
                    null,
                    "not read within "
                            + human(timeoutMillis)
                            + " (--target-timeout): what it had read is left out");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof InputException ie
                    && spec.lenient()) { // this context's kubeconfig entry cannot be used
                return new Read(null, ie.getMessage());
            } else {
                throw Futures.rethrow(e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The part of a target that could not be read: one failed coverage entry, said on stderr. */
    private static Part unread(
            Spec spec,
            ScanRequest req,
            String failed,
            Target target,
            long started,
            String clusterRead,
            boolean fleet) {
        req.err.println("deja: " + spec.source() + ": " + failed);
        Coverage.Entry e =
                new Coverage.Entry(
                        spec.source(),
                        spec.kube() ? "context " + spec.context() : "all of aws",
                        Coverage.Status.FAILED,
                        failed,
                        -1,
                        target);
        ScanResult r =
                new ScanResult(
                        List.of(),
                        List.of(),
                        List.of(),
                        List.of(),
                        new Coverage(List.of(e)),
                        (System.nanoTime() - started) / 1_000_000);
        return new Part(
                r,
                null,
                null,
                loc -> true,
                clusterRead,
                null,
                fleet && spec.kube()
                        ? FleetWorkloads.Cluster.unread(
                                String.valueOf(target.cluster()), "not read: " + failed)
                        : null);
    }

    /** The result with its findings, suppressed findings and coverage stamped with the target. */
    private static ScanResult stamped(ScanResult r, Target target) {
        List<Finding> fs = new ArrayList<>(r.findings().size());
        for (Finding f : r.findings()) {
            fs.add(f.withTarget(target));
        }
        List<ScanResult.Suppressed> sup = new ArrayList<>(r.suppressed().size());
        for (ScanResult.Suppressed s : r.suppressed()) {
            sup.add(
                    new ScanResult.Suppressed(
                            s.finding().withTarget(target), s.reason(), s.origin()));
        }
        List<Coverage.Entry> cov = new ArrayList<>(r.coverage().entries().size());
        for (Coverage.Entry e : r.coverage().entries()) {
            cov.add(e.withTarget(target));
        }
        return new ScanResult(
                fs, sup, r.expired(), r.rulesRun(), new Coverage(cov), r.durationMillis());
    }

    private static Outcome merge(List<Part> parts) {
        List<Finding> findings = new ArrayList<>();
        List<ScanResult.Suppressed> suppressed = new ArrayList<>();
        Set<String> ran = new TreeSet<>();
        List<Coverage.Entry> coverage = new ArrayList<>();
        List<Suppressions.Entry> expired = new ArrayList<>();
        List<CrossLinks.KubeSide> kubes = new ArrayList<>();
        List<CrossLinks.AwsSide> awss = new ArrayList<>();
        List<Predicate<Location>> selected = new ArrayList<>();
        long ms = 0;
        String clusterRead = null;
        Map<String, String> contextNamespaces = new TreeMap<>();
        for (Part p : parts) {
            if (p.clusterRead() != null) {
                clusterRead = p.clusterRead();
            }
            if (p.contextNamespace() != null) {
                contextNamespaces.put(
                        p.contextNamespace().getKey(), p.contextNamespace().getValue());
            }
            findings.addAll(p.result().findings());
            suppressed.addAll(p.result().suppressed());
            ran.addAll(p.result().rulesRun());
            coverage.addAll(p.result().coverage().entries());
            if (expired.isEmpty()) {
                expired.addAll(p.result().expired()); // the same ignore file for every part
            }
            if (p.kube() != null) {
                kubes.add(p.kube());
            }
            if (p.aws() != null) {
                awss.add(p.aws());
            }
            selected.add(p.selected());
            ms = Math.max(ms, p.result().durationMillis());
        }
        findings.sort(Finding.ORDER);
        suppressed.sort((x, y) -> x.finding().compareTo(y.finding()));
        findings = CrossLinks.apply(kubes, awss, findings);
        ScanResult r =
                new ScanResult(
                        findings,
                        suppressed,
                        expired,
                        List.copyOf(ran),
                        new Coverage(coverage),
                        ms);
        return new Outcome(
                r,
                loc -> selected.stream().anyMatch(s -> s.test(loc)),
                r.targets(),
                clusterRead,
                contextNamespaces);
    }

    /**
     * --snapshot-out for one of several snapshots: the path with {target} replaced by the target's
     * name, or the path itself when the run reads one snapshot only.
     */
    static Path snapshotPath(ScanRequest base, List<Spec> specs, String name) {
        if (base.snapshotOut == null) {
            return null;
        }
        String p = base.snapshotOut.toString();
        boolean several = specs.size() + (filesPart(base, specs) ? 1 : 0) > 1;
        if (!several) {
            return base.snapshotOut;
        }
        return Path.of(p.replace("{target}", name.replaceAll("[^A-Za-z0-9._-]", "_")));
    }

    /**
     * Whether the run has a part without target: files, or runtime/Prometheus sources not given to
     * one cluster.
     */
    static boolean filesPart(ScanRequest base, List<Spec> specs) {
        boolean oneCluster = specs.stream().filter(Spec::kube).count() == 1;
        return !base.paths.isEmpty()
                || !oneCluster && (!base.haproxyRuntime.isEmpty() || base.prometheus != null);
    }

    static String human(long ms) {
        return ms % 60_000 == 0 ? ms / 60_000 + "m" : ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }

    /** Stderr lines of one target, with the target named after "deja: ". */
    static PrintWriter prefixed(PrintWriter err, String prefix) {
        return new PrintWriter(
                new Writer() {
                    private final StringBuilder line = new StringBuilder();

                    @Override
                    public void write(char[] buf, int off, int len) {
                        synchronized (line) {
                            for (int i = off; i < off + len; i++) {
                                if (buf[i] == '\n') {
                                    flushLine();
                                } else {
                                    line.append(buf[i]);
                                }
                            }
                        }
                    }

                    private void flushLine() {
                        String l = line.toString();
                        line.setLength(0);
                        synchronized (err) {
                            err.println(
                                    l.startsWith("deja: ")
                                            ? "deja: " + prefix + l.substring(6)
                                            : prefix + l);
                        }
                    }

                    @Override
                    public void flush() {
                        err.flush();
                    }

                    @Override
                    public void close() {
                        synchronized (line) {
                            if (line.length() > 0) {
                                flushLine();
                            }
                        }
                    }
                },
                true);
    }

    /** The names of the targets, for the report's header ("prod, stage"). */
    static String names(List<Spec> specs, boolean kube) {
        Set<String> n = new LinkedHashSet<>();
        specs.stream().filter(s -> s.kube() == kube).forEach(s -> n.add(s.label()));
        return String.join(", ", n);
    }
}
