package dev.deja.source.kube;

import java.io.InputStream;
import java.util.List;

/**
 * An answer's body as the chunks it arrived in, read as one stream without joining them: a page of
 * 500 objects is several megabytes, and a joined copy of each page was a tenth of what a scan of a
 * large cluster allocated (one young collection more). Small bodies (an error's Status) are joined
 * by {@link #bytes}.
 */
final class Chunks {
    static final Chunks EMPTY = new Chunks(List.of(), 0);

    private final List<byte[]> parts;
    private final long size;

    Chunks(List<byte[]> parts, long size) {
        this.parts = List.copyOf(parts);
        this.size = size;
    }

    long size() {
        return size;
    }

    /** The first byte that is not white space, or -1 when there is none. */
    int firstNonWhitespace() {
        for (byte[] p : parts) {
            for (byte b : p) {
                if (!Character.isWhitespace(b)) {
                    return b & 0xff;
                }
            }
        }
        return -1;
    }

    /** The whole body in one array (a copy). */
    byte[] bytes() {
        byte[] out = new byte[Math.toIntExact(size)];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    /** The body as a stream over the chunks, in order. */
    InputStream stream() {
        return new InputStream() {
            private int part;
            private int at;

            @Override
            public int read() {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (len == 0) {
                    return 0;
                }
                while (part < parts.size() && at == parts.get(part).length) {
                    part++;
                    at = 0;
                }
                if (part == parts.size()) {
                    return -1;
                }
                byte[] p = parts.get(part);
                int n = Math.min(len, p.length - at);
                System.arraycopy(p, at, b, off, n);
                at += n;
                return n;
            }
        };
    }
}
