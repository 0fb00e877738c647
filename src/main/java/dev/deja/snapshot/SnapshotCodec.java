package dev.deja.snapshot;

import dev.deja.engine.InputException;
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
    /**
     * What a reader does with one list of a part that it cannot use (the unit a codec may leave
     * out: a list is used whole or not at all). Without {@code --allow-partial} the scan stops (the
     * error is thrown, exit 2); with it, the list is a coverage entry "failed" and the rest of the
     * snapshot is used.
     */
    @FunctionalInterface
    interface Unusable {
        /** Throws every error: nothing of a part is left out. */
        Unusable STOP =
                (source, scope, e) -> {
                    throw e;
                };

        /**
         * @param source the coverage source of the list (kubernetes, aws)
         * @param scope the list as the report names it ("targetGroups of snapshot s.json")
         * @param e its one line, "snapshot malformed: FILE: WHERE: WHAT"
         */
        void list(String source, String scope, InputException e);
    }

    /** The part as JSON, or null when the snapshot has nothing of this source. */
    JsonNode write(Snapshot snapshot, JsonNodeFactory nodes);

    /**
     * Reads the part back; malformed input is an {@link dev.deja.engine.InputException} naming the
     * file.
     */
    void read(JsonNode part, String display, SnapshotBuilder out);

    /**
     * Reads the part back, giving each list it cannot use to {@code unusable} and reading the
     * others; an error about the part as a whole is thrown. By default the part is one unit.
     */
    default void read(JsonNode part, String display, SnapshotBuilder out, Unusable unusable) {
        read(part, display, out);
    }
}
