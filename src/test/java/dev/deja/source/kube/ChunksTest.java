package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChunksTest {
    private static Chunks split(String s, int... cuts) {
        byte[] all = s.getBytes(StandardCharsets.UTF_8);
        List<byte[]> parts = new ArrayList<>();
        int from = 0;
        for (int cut : cuts) {
            parts.add(java.util.Arrays.copyOfRange(all, from, cut));
            from = cut;
        }
        parts.add(java.util.Arrays.copyOfRange(all, from, all.length));
        return new Chunks(parts, all.length);
    }

    private static byte[] drain(InputStream in, int buffer) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] b = new byte[buffer];
        for (int n; (n = in.read(b, 0, b.length)) >= 0; ) {
            out.write(b, 0, n);
        }
        return out.toByteArray();
    }

    @Test
    void theStreamReadsEveryChunkInOrderAcrossEmptyOnesAndAnyBufferSize() throws IOException {
        String body = "  {\"kind\":\"PodList\",\"items\":[]}";
        Chunks c = split(body, 0, 1, 1, 7, 7, 7, 20);
        byte[] expected = body.getBytes(StandardCharsets.UTF_8);
        for (int buffer : new int[] {1, 2, 3, 64}) {
            assertArrayEquals(expected, drain(c.stream(), buffer), "buffer " + buffer);
        }
        InputStream one = c.stream();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int b; (b = one.read()) >= 0; ) {
            out.write(b);
        }
        assertArrayEquals(expected, out.toByteArray());
        assertArrayEquals(expected, c.bytes());
        assertEquals(expected.length, c.size());
    }

    @Test
    void theFirstNonWhitespaceByteIsFoundPastLeadingBlankChunks() {
        assertEquals('{', split(" \n\t {}", 1, 2, 3).firstNonWhitespace());
        assertEquals('<', split("   <html>", 3).firstNonWhitespace());
        assertEquals(-1, split("  \n ", 1, 2).firstNonWhitespace());
        assertEquals(-1, Chunks.EMPTY.firstNonWhitespace());
        assertEquals(0, Chunks.EMPTY.bytes().length);
    }

    @Test
    void aPageSplitInsideATokenParsesAsTheWholePageDoes() {
        String page =
                "{\"kind\":\"ServiceList\",\"metadata\":{\"resourceVersion\":\"7\"},"
                        + "\"items\":[{\"metadata\":{\"name\":\"caf\u00e9\"},\"spec\":{\"ports\":[{\"port\":443}]}}]}";
        byte[] all = page.getBytes(StandardCharsets.UTF_8);
        int accent = page.indexOf('\u00e9') + 1; // inside the two bytes of the accented letter
        List<Map<String, Object>> whole = new ArrayList<>();
        List<Map<String, Object>> split = new ArrayList<>();
        ListPageParser.parse(all, t -> {}, whole::add, true);
        ListPageParser.parse(
                split(page, 3, 17, accent, accent + 1, all.length - 2), t -> {}, split::add, true);
        assertEquals(1, whole.size());
        assertEquals(whole, split);
    }
}
