package dev.deja.snapshot;

import dev.deja.engine.InputException;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.engine.SourceFile;
import dev.deja.model.kube.FleetWorkloads;
import dev.deja.source.FileLoader;
import dev.deja.source.InputFiles;
import dev.deja.source.ScanRequest;
import dev.deja.source.kube.AnnotationSuppressions;
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
            boolean fleetPart = root.path("parts").has("fleet"); // FleetWorkloads loaded only then
            Object fleetBefore = fleetPart ? out.part(FleetWorkloads.class).orElse(null) : null;
            // a part, or one list of a part, that holds a value deja cannot use: exit 2, or with
            // --allow-partial that unit is 'not checked' and the rest of the snapshot is used
            SnapshotFile.read(
                    f,
                    root,
                    out,
                    (source, scope, e) ->
                            out.coverage(InputFiles.failed(request, source, scope, e)));
            // a fleet view: deja.dev/ignore on its workloads applies to the fleet rules' findings
            FleetWorkloads fleet = fleetPart ? out.part(FleetWorkloads.class).orElse(null) : null;
            if (fleet != null && fleet != fleetBefore) {
                AnnotationSuppressions.recordFleet(fleet, request, out, true);
            }
        }
    }
}
