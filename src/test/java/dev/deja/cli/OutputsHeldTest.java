package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.StringWriter;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The stdout buffer gives back exactly what was written, in order, across its chunk borders. */
class OutputsHeldTest {
    @Test
    void givesBackWhatWasWrittenAcrossChunks() throws IOException {
        Random rnd = new Random(17);
        Outputs.Held held = new Outputs.Held();
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 3000; i++) {
            // pieces from 0 to ~300,000 characters (several chunks at once), some non-ASCII
            int n = i % 500 == 0 ? 150_000 + rnd.nextInt(150_000) : rnd.nextInt(400);
            char[] piece = new char[n];
            for (int k = 0; k < n; k++) {
                piece[k] = (char) (k % 97 == 0 ? 0xE9 + rnd.nextInt(2000) : 'a' + rnd.nextInt(26));
            }
            int off = n == 0 ? 0 : rnd.nextInt(n);
            switch (i % 3) {
                case 0 -> held.write(piece, off, n - off);
                case 1 -> held.write(new String(piece), off, n - off);
                default -> {
                    held.write(piece.length == 0 ? '\n' : piece[0]);
                    off = n;
                    expected.append(piece.length == 0 ? '\n' : piece[0]);
                }
            }
            expected.append(piece, off, n - off);
        }
        StringWriter out = new StringWriter();
        held.writeTo(out);
        assertEquals(expected.length(), out.getBuffer().length());
        assertEquals(expected.toString(), out.toString());
        StringWriter empty = new StringWriter();
        new Outputs.Held().writeTo(empty);
        assertEquals("", empty.toString());
    }
}
