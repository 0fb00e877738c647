package dev.deja.progress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Progress on stderr, on a terminal only: the terminal is injected (a {@link StatusLine} over a
 * buffer, as {@code Cli.Io.system()} makes one when stderr is a tty); without one, nothing.
 */
class ProgressTest {
    private static final String ERASE = "\r\u001B[K";

    @Test
    void otherLinesEraseTheStatusAndItComesBackBelowThem() throws Exception {
        StringWriter screen = new StringWriter();
        StatusLine line = new StatusLine(screen);
        PrintWriter err = new PrintWriter(line, true);
        line.status("deja: reading: kubernetes 1 kind");
        err.println("deja: warning: something");
        line.status("deja: reading: kubernetes 2 kinds");
        line.clear();
        assertEquals(
                "deja: reading: kubernetes 1 kind"
                        + ERASE
                        + "deja: warning: something\n"
                        + "deja: reading: kubernetes 1 kind"
                        + ERASE
                        + "deja: reading: kubernetes 2 kinds"
                        + ERASE,
                screen.toString());
    }

    @Test
    void phasesShowTheirSecondsInPlace() {
        StringWriter screen = new StringWriter();
        StatusLine line = new StatusLine(screen);
        AtomicLong clock = new AtomicLong();
        Phases p = new Phases(line, clock::get, false);
        PrintWriter w = new PrintWriter(p, true);
        w.println("deja: prove: before: haproxy on 127.0.0.1:1234");
        clock.addAndGet(3_000_000_000L);
        p.show();
        assertEquals("deja: prove: before: haproxy on 127.0.0.1:1234 - 3 s", line.status());
        w.println("deja: prove: after (deny): haproxy on 127.0.0.1:1235");
        assertEquals("deja: prove: after (deny): haproxy on 127.0.0.1:1235", line.status());
        p.close();
        assertEquals("", line.status());
        assertTrue(screen.toString().endsWith(ERASE), screen.toString());
        assertFalse(screen.toString().contains("\n"), "phases are not kept as lines");
    }
}
