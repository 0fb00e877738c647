package dev.deja.snapshot;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** Every part name a snapshot file writes has a codec, and an unknown part has none. */
class SnapshotCodecsTest {
    @Test
    void everyPartHasItsCodec() {
        for (String part : SnapshotFile.partNames()) {
            assertNotNull(SnapshotFile.codec(part), part);
        }
        assertNull(SnapshotFile.codec("mainframe"));
    }
}
