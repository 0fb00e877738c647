package dev.deja.prove;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads HAProxy's stats socket every 100 ms during a run: {@code show info} (CurrConns, MaxConn)
 * and {@code show stat} (scur and slim of the frontend under test). The CLI listener is not subject
 * to the global maxconn, so it answers while the proxies are saturated.
 */
final class StatsSampler implements AutoCloseable {
    /** One reading; -1 where the value was not available. */
    record Sample(long atMillis, long currConns, long maxConn, long scur, long slim) {
        boolean full() {
            return slim > 0 && scur >= slim || maxConn > 0 && currConns >= maxConn;
        }
    }

    static final long INTERVAL_MS = 100;
    private final Path socket;
    private final String frontend;
    private final List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
    private final Thread thread;
    private volatile boolean running = true;
    private final long t0 = System.nanoTime();

    StatsSampler(Path socket, String frontend) {
        this.socket = socket;
        this.frontend = frontend;
        thread = new Thread(this::loop, "deja-prove-stats");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        while (running) {
            long next = System.nanoTime() + INTERVAL_MS * 1_000_000L;
            try {
                samples.add(sample());
            } catch (IOException e) {
                // not answering (starting, stopping): no sample this time
            }
            long wait = (next - System.nanoTime()) / 1_000_000L;
            if (wait > 0) {
                try {
                    Thread.sleep(wait);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    Sample sample() throws IOException {
        long at = (System.nanoTime() - t0) / 1_000_000L;
        Map<String, String> info = info(command(socket, "show info"));
        long[] fe = frontendRow(command(socket, "show stat"), frontend);
        return new Sample(at, num(info.get("CurrConns")), num(info.get("MaxConn")), fe[0], fe[1]);
    }

    /** One command on a fresh connection (the non-interactive CLI answers and closes). */
    static String command(Path socket, String cmd) throws IOException {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            ch.write(ByteBuffer.wrap((cmd + "\n").getBytes(StandardCharsets.US_ASCII)));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer buf = ByteBuffer.allocate(16 * 1024);
            while (ch.read(buf) >= 0) {
                buf.flip();
                out.write(buf.array(), 0, buf.limit());
                buf.clear();
                if (out.size() > 4 * 1024 * 1024) {
                    break;
                }
            }
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    static Map<String, String> info(String text) {
        Map<String, String> m = new HashMap<>();
        for (String line : text.split("\n")) {
            int c = line.indexOf(':');
            if (c > 0) {
                m.put(line.substring(0, c).strip(), line.substring(c + 1).strip());
            }
        }
        return m;
    }

    /** scur and slim of the FRONTEND row of that proxy in {@code show stat} CSV. */
    static long[] frontendRow(String csv, String proxy) {
        String[] lines = csv.split("\n");
        if (lines.length == 0 || !lines[0].startsWith("# ")) {
            return new long[] {-1, -1};
        }
        List<String> header = List.of(lines[0].substring(2).split(",", -1));
        int scur = header.indexOf("scur");
        int slim = header.indexOf("slim");
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split(",", -1);
            if (f.length > Math.max(scur, slim) && f[0].equals(proxy) && f[1].equals("FRONTEND")) {
                return new long[] {num(f[scur]), num(f[slim])};
            }
        }
        return new long[] {-1, -1};
    }

    private static long num(String s) {
        if (s == null || s.isBlank()) {
            return -1;
        }
        try {
            return Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    List<Sample> samples() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
