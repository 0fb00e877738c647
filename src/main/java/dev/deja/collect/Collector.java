package dev.deja.collect;

import dev.deja.engine.Coverage;
import dev.deja.engine.LineMap;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.engine.SourceFile;
import dev.deja.engine.Target;
import dev.deja.model.haproxy.HaproxyConfigs;
import dev.deja.model.kube.KubeInventory;
import dev.deja.snapshot.SnapshotFile;
import dev.deja.source.FileKind;
import dev.deja.source.LiveSource;
import dev.deja.source.OpenDeadline;
import dev.deja.source.ScanRequest;
import dev.deja.source.ScanTrace;
import dev.deja.source.SourceUnavailableException;
import dev.deja.source.kube.HaproxyConfigMaps;
import dev.deja.source.kube.LiveMetrics;
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
        lineMaps(in, out);
        // HAProxy last: configurations kept in ConfigMaps (of the manifests or the cluster) join
        // the files given
        for (Map.Entry<FileKind, List<SourceFile>> e : in.files().entrySet()) {
            if (e.getKey() != FileKind.HAPROXY && !e.getValue().isEmpty()) {
                Sources.loader(e.getKey()).load(e.getValue(), req, out);
            }
        }
        List<Sources.Live> live = live(req);
        if (live.size() == 1) {
            runLive(live.get(0), req, out, trace);
        } else if (live.size() > 1) {
            runAtOnce(live, req, out, trace);
        }
        List<SourceFile> haproxy =
                new ArrayList<>(in.files().getOrDefault(FileKind.HAPROXY, List.of()));
        Snapshot partial = out.build();
        if (partial.has(KubeInventory.class)) {
            haproxy.addAll(HaproxyConfigMaps.extract(partial, req, out));
        }
        if (!haproxy.isEmpty()) {
            Sources.loader(FileKind.HAPROXY).load(haproxy, req, out);
        }
        if (req.cluster && req.liveMetrics && partial.has(KubeInventory.class)) {
            LiveMetrics.collect(
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
            save(snapshot, req);
        }
        return snapshot;
    }

    /** The line maps of the files read, by file, in the snapshot when there are any. */
    private static void lineMaps(Inputs.Collected in, SnapshotBuilder out) {
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
    }

    /** The live sources the request reads. */
    private static List<Sources.Live> live(ScanRequest req) {
        List<Sources.Live> live = new ArrayList<>();
        if (req.cluster) {
            live.add(Sources.Live.KUBERNETES);
        }
        if (req.aws) {
            live.add(Sources.Live.AWS);
        }
        if (!req.haproxyRuntime.isEmpty()) {
            live.add(Sources.Live.HAPROXY_RUNTIME);
        }
        if (req.prometheus != null) {
            live.add(Sources.Live.PROMETHEUS);
        }
        return live;
    }

    /** Reads several live sources at once, each on a thread of its own. */
    private static void runAtOnce(
            List<Sources.Live> live, ScanRequest req, SnapshotBuilder out, ScanTrace trace) {
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
            for (Sources.Live l : live) {
                fs.add(pool.submit(() -> runLive(l, req, out, trace)));
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

    /** --snapshot-out: the snapshot written, with a note that HAProxy configurations are not. */
    private static void save(Snapshot snapshot, ScanRequest req) {
        SnapshotFile.write(snapshot, req.snapshotOut, OpenDeadline.millis(req.processEnv));
        if (snapshot.has(HaproxyConfigs.class)) {
            req.err.println(
                    "deja: note: "
                            + req.snapshotOut
                            + " keeps the Kubernetes and AWS inventories;"
                            + " HAProxy configurations are not saved in it (scan their files again)");
        }
    }

    private static void runLive(
            Sources.Live source, ScanRequest req, SnapshotBuilder out, ScanTrace trace) {
        LiveSource s = source.create();
        try {
            s.collect(req, out, trace);
        } catch (SourceUnavailableException e) {
            req.err.println("deja: " + e.source() + ": " + e.getMessage());
            out.coverage(
                    new Coverage.Entry(
                            e.source(),
                            Coverage.whole(e.source()),
                            Coverage.Status.FAILED,
                            e.getMessage(),
                            -1));
        }
    }
}
