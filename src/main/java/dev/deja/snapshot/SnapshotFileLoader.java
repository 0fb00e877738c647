package dev.deja.snapshot;

import dev.deja.engine.InputException;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.engine.SourceFile;
import dev.deja.source.FileLoader;
import dev.deja.source.InputFiles;
import dev.deja.source.ScanRequest;
import java.util.List;
import tools.jackson.databind.JsonNode;

/** Loads saved snapshots ({@code deja scan snapshot.json}). */
public final class SnapshotFileLoader implements FileLoader {
    @Override
    public void load(List<SourceFile> files, ScanRequest request, SnapshotBuilder out) {
        for (SourceFile f : files) {
            JsonNode root;
            try {
                root = SnapshotFile.parse(f);
            } catch (InputException e) { // with --allow-partial: not checked, the others are
                out.coverage(InputFiles.failed(request, "snapshot", f.display(), e));
                continue;
            }
            // a part, or one list of a part, that holds a value deja cannot use: exit 2, or with
            // --allow-partial that unit is 'not checked' and the rest of the snapshot is used
            SnapshotFile.read(
                    f,
                    root,
                    out,
                    (source, scope, e) ->
                            out.coverage(InputFiles.failed(request, source, scope, e)));
        }
    }
}
