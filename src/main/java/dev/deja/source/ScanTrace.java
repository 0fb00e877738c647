package dev.deja.source;

import dev.deja.engine.Target;

/**
 * What one read of the sources finds out about where it read, as opposed to the {@link ScanRequest}
 * it was asked for: created by the caller for each {@link Collector#collect(ScanRequest,
 * ScanTrace)} (one per run, or one per target of a fleet run), written by the live sources while
 * they read (possibly from their own threads, hence volatile), read by the caller afterwards for
 * the report's header and the findings' target.
 */
public final class ScanTrace {
    /**
     * The live target the snapshot was read from: set by the caller before the collect for a
     * cluster, by the collector after it for an AWS account (from {@link #accountRead}); null for
     * files.
     */
    public volatile Target target;

    /**
     * Set by the live Kubernetes source: the context and server it read ("context prod
     * (https://10.0.0.1:6443)"), for reports.
     */
    public volatile String clusterRead;

    /**
     * Set by the live Kubernetes source when it scanned the namespace its kubeconfig context names
     * (no -n, no -A), else null.
     */
    public volatile String contextNamespace;

    /**
     * Set by the AWS source: the account id its credentials belong to (STS GetCallerIdentity), or
     * null.
     */
    public volatile String accountRead;

    public ScanTrace() {}

    /** A trace that starts with the target already known (a cluster of a fleet run). */
    public ScanTrace(Target target) {
        this.target = target;
    }
}
