package dev.deja.source.prometheus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.deja.SlowBodyServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code --prometheus} against a server that sends its headers at once and then one body byte every
 * 2 s: the request's deadline covers the body too (the JDK client's request timeout covers only the
 * headers).
 */
class SlowBodyTest {
    @Test
    void aBodyThatNeverEndsIsCutAtTheDeadline() throws Exception {
        try (SlowBodyServer server = new SlowBodyServer("application/json", 2000, 60)) {
            PrometheusClient c =
                    new PrometheusClient(
                            "http://127.0.0.1:" + server.port(),
                            null,
                            null,
                            null,
                            Duration.ofSeconds(3));
            // the bound of the test itself, far above the deadline (a busy machine is slow)
            PrometheusClient.QueryException e =
                    assertTimeoutPreemptively(
                            Duration.ofSeconds(60),
                            () ->
                                    assertThrows(
                                            PrometheusClient.QueryException.class,
                                            () -> c.query("up")));
            assertEquals("no answer within 3 s", e.getMessage());
        }
    }
}
