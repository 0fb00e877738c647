package dev.deja.prove;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The workload: open-loop HTTP/1.1 clients on one NIO selector thread (Java 17 has no virtual
 * threads, and a thread per held connection would not scale to a flood). Each client opens a new
 * connection per request from its own loopback source address at a fixed rate, sends its request
 * ({@code Connection: close}) and waits for the response until its timeout. A slow client ({@link
 * Client#slowBytesEveryMs()} > 0) instead opens its connections once, at the start, and sends one
 * header byte per interval, never finishing its request (Slowloris).
 *
 * <p>Bounded: at most {@code maxOpen} connections are open at once (requests that would exceed it
 * are counted as not sent); nothing starts after the duration; what is still open when the last
 * timeout has passed is closed.
 */
final class LoadGenerator {
    /** Hard cap on connections open at once, whatever is asked. */
    static final int MAX_OPEN = 4096;

    /**
     * One client: a name, the loopback address it connects from, its rate, its request, its
     * timeout. {@code connections} is only used by slow clients (how many to hold).
     */
    record Client(
            String name,
            List<InetAddress> sources,
            List<String> requests,
            double rps,
            long timeoutMs,
            long slowBytesEveryMs,
            int connections) {
        Client {
            sources = List.copyOf(sources);
            requests = List.copyOf(requests);
        }

        /** Requests take turns through the sources and the request variants. */
        static Client http(
                String name,
                List<InetAddress> sources,
                List<String> requests,
                double rps,
                long timeoutMs) {
            return new Client(name, sources, requests, rps, timeoutMs, 0, 0);
        }

        static Client slow(
                String name, List<InetAddress> sources, int connections, long byteEveryMs) {
            return new Client(
                    name, sources, List.of(""), 0, Long.MAX_VALUE, byteEveryMs, connections);
        }
    }

    /** What happened to one client's requests. Latencies in microseconds of completed requests. */
    static final class Outcome {
        final String name;
        int sent;
        int ok; // 2xx/3xx
        int limited; // 429
        int otherStatus; // any other status (4xx/5xx from HAProxy, e.g. 503, 408)
        int timedOut;
        int refused; // connect refused or reset before any answer
        int notSent; // connection cap reached
        int closedByServer; // slow clients: connection closed by HAProxy (with or without a 408)
        final List<Long> latencies = new ArrayList<>();
        final List<Long> limitedLatencies = new ArrayList<>();
        final List<long[]> events = new ArrayList<>(); // {startMillisFromRunStart, outcomeCode}

        Outcome(String name) {
            this.name = name;
        }

        int answered() {
            return ok + limited + otherStatus;
        }

        long percentileMicros(double p) {
            return percentile(latencies, p);
        }

        /** Median wait of the requests answered 429 (how long a tarpit held them). */
        long limitedP50Micros() {
            return percentile(limitedLatencies, 50);
        }

        private static long percentile(List<Long> latencies, double p) {
            if (latencies.isEmpty()) {
                return -1;
            }
            long[] a = latencies.stream().mapToLong(Long::longValue).toArray();
            Arrays.sort(a);
            int i = (int) Math.ceil(p / 100.0 * a.length) - 1;
            return a[Math.max(0, Math.min(a.length - 1, i))];
        }
    }

    static final int EV_OK = 0;
    static final int EV_LIMITED = 1;
    static final int EV_OTHER = 2;
    static final int EV_TIMEOUT = 3;
    static final int EV_REFUSED = 4;

    private final InetSocketAddress target;
    private final int maxOpen;

    LoadGenerator(InetSocketAddress target, int maxOpen) {
        this.target = target;
        this.maxOpen = Math.min(Math.max(1, maxOpen), MAX_OPEN);
    }

    private static final class Conn {
        final int client;
        final long startNanos;
        final long deadlineNanos;
        final SocketChannel ch;
        final ByteBuffer out;
        final StringBuilder head = new StringBuilder();
        long nextSlowByte;
        boolean done;
        int status = -1;

        Conn(int client, long startNanos, long deadlineNanos, SocketChannel ch, ByteBuffer out) {
            this.client = client;
            this.startNanos = startNanos;
            this.deadlineNanos = deadlineNanos;
            this.ch = ch;
            this.out = out;
        }
    }

    /**
     * Runs every client for {@code durationMs}, then waits for the requests of the last client
     * still in flight (each until its own timeout; the others' are closed uncounted), and returns
     * one outcome per client in order. {@code stop} is checked between events.
     */
    List<Outcome> run(List<Client> clients, long durationMs, BooleanSupplier stop)
            throws IOException {
        int n = clients.size();
        List<Outcome> outcomes = new ArrayList<>();
        List<ArrayDeque<Conn>> open = new ArrayList<>();
        long[] started = new long[n];
        byte[][][] requests = new byte[n][][];
        for (Client c : clients) {
            outcomes.add(new Outcome(c.name()));
            open.add(new ArrayDeque<>());
        }
        for (int i = 0; i < n; i++) {
            List<String> rq = clients.get(i).requests();
            requests[i] = new byte[rq.size()][];
            for (int v = 0; v < rq.size(); v++) {
                requests[i][v] = rq.get(v).getBytes(StandardCharsets.ISO_8859_1);
            }
        }
        ByteBuffer in = ByteBuffer.allocate(16 * 1024);
        int[] openCount = {0};
        long t0 = System.nanoTime();
        long end = t0 + durationMs * 1_000_000L;
        try (Selector selector = Selector.open()) {
            while (true) {
                long now = System.nanoTime();
                boolean starting = now < end && !stop.getAsBoolean();
                long nextWake = now + 50_000_000L;
                if (starting) {
                    nextWake =
                            startDue(
                                    selector, clients, started, requests, outcomes, open, openCount,
                                    t0, now, nextWake);
                    nextWake = Math.min(nextWake, end);
                }
                // slow clients: one byte per interval; deadlines of the others
                long nowAfter = System.nanoTime();
                nextWake = sweep(clients, open, outcomes, openCount, t0, nowAfter, nextWake);
                if (!starting) {
                    boolean anyOpen = closeUnwaited(clients, open, openCount, stop);
                    if (!anyOpen) {
                        break;
                    }
                }
                long waitMs = Math.max(1, (nextWake - System.nanoTime()) / 1_000_000L);
                selector.select(Math.min(waitMs, 50));
                long at = System.nanoTime();
                for (SelectionKey key : selector.selectedKeys()) {
                    handle(key, clients, outcomes, in, openCount, at, t0);
                }
                selector.selectedKeys().clear();
            }
        } catch (ClosedSelectorException e) {
            // closed while stopping
        } finally {
            for (ArrayDeque<Conn> q : open) {
                for (Conn k : q) {
                    closeQuietly(k.ch);
                }
            }
        }
        return outcomes;
    }

    /** Starts the connections of each client that are due by {@code now}; the next wake-up. */
    private long startDue(
            Selector selector,
            List<Client> clients,
            long[] started,
            byte[][][] requests,
            List<Outcome> outcomes,
            List<ArrayDeque<Conn>> open,
            int[] openCount,
            long t0,
            long now,
            long nextWake)
            throws IOException {
        int n = clients.size();
        for (int i = 0; i < n; i++) {
            Client c = clients.get(i);
            if (c.slowBytesEveryMs() > 0) {
                while (started[i] < c.connections() && openCount[0] < maxOpen) {
                    start(
                            selector,
                            c,
                            i,
                            (int) started[i],
                            requests[i],
                            now,
                            Long.MAX_VALUE,
                            outcomes.get(i),
                            open.get(i),
                            openCount,
                            t0);
                    started[i]++;
                }
                if (started[i] < c.connections()) {
                    outcomes.get(i).notSent += (int) (c.connections() - started[i]);
                    started[i] = c.connections();
                }
                continue;
            }
            if (c.rps() <= 0) {
                continue;
            }
            long interval = (long) (1_000_000_000L / c.rps());
            while (t0 + started[i] * interval <= now) {
                started[i]++;
                if (openCount[0] >= maxOpen) {
                    outcomes.get(i).notSent++;
                    continue;
                }
                start(
                        selector,
                        c,
                        i,
                        (int) (started[i] - 1),
                        requests[i],
                        now,
                        now + c.timeoutMs() * 1_000_000L,
                        outcomes.get(i),
                        open.get(i),
                        openCount,
                        t0);
            }
            nextWake = Math.min(nextWake, t0 + started[i] * interval);
        }
        return nextWake;
    }

    /** Slow clients: one byte per interval; the others: their deadlines. The next wake-up. */
    private long sweep(
            List<Client> clients,
            List<ArrayDeque<Conn>> open,
            List<Outcome> outcomes,
            int[] openCount,
            long t0,
            long nowAfter,
            long nextWake) {
        int n = clients.size();
        for (int i = 0; i < n; i++) {
            Client c = clients.get(i);
            ArrayDeque<Conn> q = open.get(i);
            if (c.slowBytesEveryMs() > 0) {
                for (Conn k : q) {
                    if (!k.done && k.out == null && k.nextSlowByte <= nowAfter) {
                        slowByte(k, outcomes.get(i), openCount);
                        k.nextSlowByte = nowAfter + c.slowBytesEveryMs() * 1_000_000L;
                    }
                    if (!k.done) {
                        nextWake = Math.min(nextWake, k.nextSlowByte);
                    }
                }
                q.removeIf(k -> k.done);
                continue;
            }
            while (!q.isEmpty()
                    && (q.peekFirst().done || q.peekFirst().deadlineNanos <= nowAfter)) {
                Conn k = q.pollFirst();
                if (!k.done) {
                    finish(k, outcomes.get(i), EV_TIMEOUT, nowAfter, t0, openCount);
                }
            }
            if (!q.isEmpty()) {
                nextWake = Math.min(nextWake, q.peekFirst().deadlineNanos);
            }
        }
        return nextWake;
    }

    /**
     * Once no client starts any more: closes what is not waited for (slow clients, the abuser, all
     * when stopped); whether legitimate requests are still in flight.
     */
    private boolean closeUnwaited(
            List<Client> clients,
            List<ArrayDeque<Conn>> open,
            int[] openCount,
            BooleanSupplier stop) {
        boolean anyOpen = false;
        for (int i = 0; i < clients.size(); i++) {
            // slow clients and the abuser are not waited for: only legitimate requests
            // in flight are
            if (clients.get(i).slowBytesEveryMs() > 0
                    || i < clients.size() - 1
                    || stop.getAsBoolean()) {
                for (Conn k : open.get(i)) {
                    if (!k.done) { // closed by us at the end, not by HAProxy
                        k.done = true;
                        openCount[0]--;
                        closeQuietly(k.ch);
                    }
                }
                open.get(i).clear();
            } else {
                anyOpen |= !open.get(i).isEmpty();
            }
        }
        return anyOpen;
    }

    /** One selected connection: connected, writable or readable. */
    private void handle(
            SelectionKey key,
            List<Client> clients,
            List<Outcome> outcomes,
            ByteBuffer in,
            int[] openCount,
            long at,
            long t0) {
        Conn k = (Conn) key.attachment();
        if (k.done || !key.isValid()) {
            return;
        }
        Outcome o = outcomes.get(k.client);
        try {
            if (key.isConnectable()) {
                k.ch.finishConnect();
                key.interestOps(k.out != null ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
                if (k.out == null) {
                    slowByte(k, o, openCount);
                    k.nextSlowByte = at + clients.get(k.client).slowBytesEveryMs() * 1_000_000L;
                }
                return;
            }
            if (key.isWritable() && k.out != null) {
                k.ch.write(k.out);
                if (!k.out.hasRemaining()) {
                    key.interestOps(SelectionKey.OP_READ);
                }
                return;
            }
            if (key.isReadable()) {
                in.clear();
                int r = k.ch.read(in);
                if (r > 0) {
                    in.flip();
                    if (k.head.length() < 64) {
                        for (int b = 0; b < r && k.head.length() < 64; b++) {
                            k.head.append((char) (in.get(b) & 0xff));
                        }
                    }
                    if (k.status < 0) {
                        k.status = status(k.head);
                    }
                    if (k.status >= 0 && k.out != null) {
                        // the status line is the answer: do not wait for the body or
                        // the close
                        finish(k, o, code(k.status), at, t0, openCount);
                    }
                } else if (r < 0) {
                    closed(k, o, at, t0, openCount);
                }
            }
        } catch (IOException e) {
            closed(k, o, at, t0, openCount);
        }
    }

    /** The connection closed (or failed): a slow client's end, or the status read so far. */
    private void closed(Conn k, Outcome o, long at, long t0, int[] openCount) {
        if (k.out == null) {
            finishSlow(k, o, openCount);
        } else {
            finish(k, o, k.status >= 0 ? code(k.status) : EV_REFUSED, at, t0, openCount);
        }
    }

    private void start(
            Selector selector,
            Client c,
            int i,
            int seq,
            byte[][] variants,
            long now,
            long deadline,
            Outcome o,
            ArrayDeque<Conn> q,
            int[] openCount,
            long t0) {
        o.sent++;
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open();
            ch.configureBlocking(false);
            ch.setOption(
                    StandardSocketOptions.SO_LINGER, 0); // no TIME_WAIT pile-up on the client side
            if (!c.sources().isEmpty()) {
                ch.bind(new InetSocketAddress(c.sources().get(seq % c.sources().size()), 0));
            }
            byte[] request = variants[seq % variants.length];
            boolean connected = ch.connect(target);
            Conn k =
                    new Conn(
                            i,
                            now,
                            deadline,
                            ch,
                            c.slowBytesEveryMs() > 0 ? null : ByteBuffer.wrap(request));
            ch.register(
                    selector,
                    !connected
                            ? SelectionKey.OP_CONNECT
                            : k.out != null ? SelectionKey.OP_WRITE : SelectionKey.OP_READ,
                    k);
            openCount[0]++;
            q.addLast(k);
        } catch (IOException e) {
            closeQuietly(ch);
            o.refused++;
            o.events.add(new long[] {(now - t0) / 1_000_000L, EV_REFUSED});
        }
    }

    /** Slow client: the request line first, then one header byte per call ("X-a: b" never ends). */
    private void slowByte(Conn k, Outcome o, int[] openCount) {
        if (k.done || !k.ch.isConnected()) {
            return;
        }
        String piece =
                k.head.length() == 0 ? "GET / HTTP/1.1\r\nHost: deja-prove\r\nX-Slow: " : "a";
        if (k.head.length() == 0) {
            k.head.append('>');
        }
        try {
            k.ch.write(ByteBuffer.wrap(piece.getBytes(StandardCharsets.ISO_8859_1)));
        } catch (IOException e) {
            finishSlow(k, o, openCount);
        }
    }

    private static void finishSlow(Conn k, Outcome o, int[] openCount) {
        if (k.done) {
            return;
        }
        k.done = true;
        openCount[0]--;
        closeQuietly(k.ch);
        o.closedByServer++;
    }

    private static void finish(Conn k, Outcome o, int ev, long at, long t0, int[] openCount) {
        if (k.done) {
            return;
        }
        k.done = true;
        openCount[0]--;
        closeQuietly(k.ch);
        switch (ev) {
            case EV_OK -> o.ok++;
            case EV_LIMITED -> o.limited++;
            case EV_OTHER -> o.otherStatus++;
            case EV_TIMEOUT -> o.timedOut++;
            default -> o.refused++;
        }
        if (ev == EV_OK) {
            o.latencies.add((at - k.startNanos) / 1000L);
        } else if (ev == EV_LIMITED) {
            o.limitedLatencies.add((at - k.startNanos) / 1000L);
        }
        o.events.add(new long[] {(k.startNanos - t0) / 1_000_000L, ev});
    }

    private static int code(int status) {
        if (status >= 200 && status < 400) {
            return EV_OK;
        }
        return status == 429 ? EV_LIMITED : EV_OTHER;
    }

    /** The status code once "HTTP/1.x NNN" has arrived, else -1. */
    static int status(CharSequence head) {
        if (head.length() < 12 || !head.subSequence(0, 5).toString().equals("HTTP/")) {
            return head.length() >= 12 ? 0 : -1;
        }
        int sp = head.toString().indexOf(' ');
        if (sp < 0 || sp + 4 > head.length()) {
            return -1;
        }
        try {
            return Integer.parseInt(head.subSequence(sp + 1, sp + 4).toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static void closeQuietly(SocketChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                // closing
            }
        }
    }
}
