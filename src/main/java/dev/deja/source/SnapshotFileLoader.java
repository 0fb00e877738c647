package dev.deja.source;

import dev.deja.engine.SnapshotBuilder;
import java.util.List;

/** Loads saved snapshots ({@code deja scan snapshot.json}). */
public final class SnapshotFileLoader implements FileLoader {
    @Override
    public void load(List<SourceFile> files, ScanRequest request, SnapshotBuilder out) {
        for (SourceFile f : files) {
            SnapshotFile.read(f, out);
        }
    }
}
