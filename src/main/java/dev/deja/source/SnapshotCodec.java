package dev.deja.source;

import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Saves one source's part of a snapshot to JSON and reads it back, so a live scan can be repeated
 * offline ({@code --snapshot-out FILE}, then {@code deja scan FILE}). Implementations are named in
 * {@link SnapshotFile}.
 */
public interface SnapshotCodec {
    /** The part as JSON, or null when the snapshot has nothing of this source. */
    JsonNode write(Snapshot snapshot, JsonNodeFactory nodes);

    /**
     * Reads the part back; malformed input is an {@link dev.deja.engine.InputException} naming the
     * file.
     */
    void read(JsonNode part, String display, SnapshotBuilder out);
}
