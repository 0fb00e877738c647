package dev.deja.source;

import dev.deja.engine.InputException;
import dev.deja.engine.SnapshotBuilder;
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
                out.coverage(Inputs.failed(request, "snapshot", f.display(), e));
                continue;
            }
            // a value a part cannot use stays exit 2: the parts before it are already read
            SnapshotFile.read(f, root, out);
        }
    }
}
