package dev.deja.source.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.deja.SlowBodyServer;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code --haproxy-runtime} against a server that sends its headers at once and then one body byte
 * every 2 s: one deadline for the whole exchange, body included.
 */
class SlowBodyRuntimeTest {
    @Test
    void aBodyThatNeverEndsIsCutAtTheDeadline() throws Exception {
        try (SlowBodyServer server = new SlowBodyServer("text/csv", 2000, 60);
                HttpStats http = new HttpStats(3000, null)) {
            IOException e =
                    assertTimeoutPreemptively(
                            Duration.ofSeconds(60),
                            () ->
                                    assertThrows(
                                            IOException.class,
                                            () ->
                                                    http.read(
                                                            "http://127.0.0.1:"
                                                                    + server.port()
                                                                    + "/stats;csv")));
            assertEquals("no complete answer within the timeout (3000 ms)", e.getMessage());
        }
    }
}
