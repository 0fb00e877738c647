package dev.deja.collect;

import dev.deja.engine.Coverage;
import dev.deja.engine.InputException;
import dev.deja.engine.LineMap;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.engine.Target;
import dev.deja.snapshot.SnapshotFile;
import dev.deja.source.LiveSource;
import dev.deja.source.OpenDeadline;
import dev.deja.source.ScanRequest;
import dev.deja.source.ScanTrace;
import dev.deja.source.SourceFile;
import dev.deja.source.SourceUnavailableException;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Reads every source of a scan into one immutable snapshot: the files (by kind, each kind's loader
 * created only when needed) and the live sources ({@code --cluster}, {@code --aws}, concurrently).
 * A live source that cannot be used at all is recorded as not checked, with its one-line reason on
 * stderr; the other sources go on.
 */
public final class Collector {
    static final String KUBE_LIVE = "dev.deja.source.kube.KubeLiveSource";
    static final String AWS_LIVE = "dev.deja.source.aws.AwsLiveSource";
    static final String HAPROXY_RUNTIME = "dev.deja.source.haproxy.HaproxyRuntimeSource";
    static final String PROMETHEUS = "dev.deja.source.prometheus.PrometheusSource";
    static final String KUBE_INVENTORY = "dev.deja.model.kube.KubeInventory";
    static final String HAPROXY_CONFIGMAPS = "dev.deja.source.kube.HaproxyConfigMaps";
    static final String LIVE_METRICS = "dev.deja.source.kube.LiveMetrics";

    private Collector() {}

    /** {@link #collect(ScanRequest, ScanTrace)} with a trace nobody reads afterwards. */
    public static Snapshot collect(ScanRequest req) {
        return collect(req, new ScanTrace());
    }

    /**
     * Reads what {@code req} asks for; the live sources record where they read in {@code trace}
     * (and its target, when set or found, is saved with the snapshot).
     */
    public static Snapshot collect(ScanRequest req, ScanTrace trace) {
        SnapshotBuilder out = new SnapshotBuilder();
        Inputs.Collected in = Inputs.collect(req);
        in.skipped().forEach(out::coverage);
        Map<String, LineMap> lineMaps = new HashMap<>();
        for (List<SourceFile> fs : in.files().values()) {
            for (SourceFile f : fs) {
                if (f.lineMap() != null) {
                    lineMaps.put(f.display(), f.lineMap());
                }
            }
        }
        if (!lineMaps.isEmpty()) {
            out.put(LineMap.Files.class, new LineMap.Files(lineMaps));
        }
        // HAProxy last: configurations kept in ConfigMaps (of the manifests or the cluster) join
        // the files given
        for (Map.Entry<FileKind, List<SourceFile>> e : in.files().entrySet()) {
            if (e.getKey() != FileKind.HAPROXY && !e.getValue().isEmpty()) {
                e.getKey().newLoader().load(e.getValue(), req, out);
            }
        }
        List<String[]> live = new ArrayList<>();
        if (req.cluster) {
            live.add(new String[] {"kubernetes", KUBE_LIVE});
        }
        if (req.aws) {
            live.add(new String[] {"aws", AWS_LIVE});
        }
        if (!req.haproxyRuntime.isEmpty()) {
            live.add(new String[] {"haproxy", HAPROXY_RUNTIME});
        }
        if (req.prometheus != null) {
            live.add(new String[] {"prometheus", PROMETHEUS});
        }
        if (live.size() == 1) {
            runLive(live.get(0)[0], live.get(0)[1], req, out, trace);
        } else if (live.size() > 1) {
            ExecutorService pool =
                    Executors.newFixedThreadPool(
                            live.size(),
                            r -> {
                                Thread t = new Thread(r, "deja-source");
                                t.setDaemon(true);
                                return t;
                            });
            try {
                List<Future<?>> fs = new ArrayList<>();
                for (String[] l : live) {
                    fs.add(pool.submit(() -> runLive(l[0], l[1], req, out, trace)));
                }
                for (Future<?> f : fs) {
                    try {
                        f.get();
                    } catch (ExecutionException ex) {
                        Throwable c = ex.getCause();
                        if (c instanceof RuntimeException re) {
                            throw re;
                        }
                        throw new IllegalStateException(c);
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted", ex);
                    }
                }
            } finally {
                pool.shutdownNow();
            }
        }
        List<SourceFile> haproxy =
                new ArrayList<>(in.files().getOrDefault(FileKind.HAPROXY, List.of()));
        Snapshot partial = out.build();
        if (partial.hasPart(KUBE_INVENTORY)) {
            haproxy.addAll(embeddedHaproxy(partial, req, out));
        }
        if (!haproxy.isEmpty()) {
            FileKind.HAPROXY.newLoader().load(haproxy, req, out);
        }
        if (req.cluster && req.liveMetrics && partial.hasPart(KUBE_INVENTORY)) {
            liveMetrics(
                    out.build(),
                    req,
                    out); // after the live sources: joins --haproxy-runtime's instances
        }
        if (trace.target == null && req.aws && !req.cluster && trace.accountRead != null) {
            trace.target = Target.account(trace.accountRead);
        }
        if (trace.target != null) {
            out.put(Target.class, trace.target); // saved with the snapshot: what it was read from
        }
        Snapshot snapshot = out.build();
        if (req.snapshotOut != null) {
            SnapshotFile.write(snapshot, req.snapshotOut, OpenDeadline.millis(req.processEnv));
            if (snapshot.hasPart("dev.deja.model.haproxy.HaproxyConfigs")) {
                req.err.println(
                        "deja: note: "
                                + req.snapshotOut
                                + " keeps the Kubernetes and AWS inventories;"
                                + " HAProxy configurations are not saved in it (scan their files again)");
            }
        }
        return snapshot;
    }

    @SuppressWarnings("unchecked")
    private static List<SourceFile> embeddedHaproxy(
            Snapshot partial, ScanRequest req, SnapshotBuilder out) {
        try {
            return (List<SourceFile>)
                    Class.forName(HAPROXY_CONFIGMAPS)
                            .getMethod(
                                    "extract",
                                    Snapshot.class,
                                    ScanRequest.class,
                                    SnapshotBuilder.class)
                            .invoke(null, partial, req, out);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("missing " + HAPROXY_CONFIGMAPS, e);
        }
    }

    private static void liveMetrics(Snapshot partial, ScanRequest req, SnapshotBuilder out) {
        try {
            Class.forName(LIVE_METRICS)
                    .getMethod("collect", Snapshot.class, ScanRequest.class, SnapshotBuilder.class)
                    .invoke(null, partial, req, out);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("missing " + LIVE_METRICS, e);
        }
    }

    private static void runLive(
            String source, String cls, ScanRequest req, SnapshotBuilder out, ScanTrace trace) {
        LiveSource s;
        try {
            s = (LiveSource) Class.forName(cls).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new InputException(
                    "--"
                            + (source.equals("kubernetes") ? "cluster" : source)
                            + ": this build of deja has no "
                            + source
                            + " support");
        }
        try {
            s.collect(req, out, trace);
        } catch (SourceUnavailableException e) {
            req.err.println("deja: " + e.source() + ": " + e.getMessage());
            out.coverage(
                    new Coverage.Entry(
                            e.source(),
                            "all of " + e.source(),
                            Coverage.Status.FAILED,
                            e.getMessage(),
                            -1));
        }
    }
}
