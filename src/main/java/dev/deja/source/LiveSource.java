package dev.deja.source;

import dev.deja.engine.SnapshotBuilder;

/**
 * A live source (a Kubernetes API server, AWS). Instantiated by class name only when its flag is
 * given. Partial access is recorded as coverage, not thrown; only a source that cannot be used at
 * all (bad credentials, unreachable server) throws {@link SourceUnavailableException}.
 */
public interface LiveSource {
    /**
     * Reads into {@code out}; what the source finds out about where it read (the context and
     * server, the AWS account) goes into {@code trace}.
     */
    void collect(ScanRequest request, SnapshotBuilder out, ScanTrace trace);
}
