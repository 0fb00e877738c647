package dev.deja.source;

import dev.deja.engine.SnapshotBuilder;

/**
 * A live source (a Kubernetes API server, AWS). Instantiated by class name only when its flag is
 * given. Partial access is recorded as coverage, not thrown; only a source that cannot be used at
 * all (bad credentials, unreachable server) throws {@link SourceUnavailableException}.
 */
public interface LiveSource {
    void collect(ScanRequest request, SnapshotBuilder out);
}
