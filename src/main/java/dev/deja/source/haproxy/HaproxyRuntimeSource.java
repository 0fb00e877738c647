package dev.deja.source.haproxy;

import dev.deja.engine.Coverage;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.haproxy.HaproxyRuntime;
import dev.deja.source.LiveSource;
import dev.deja.source.ScanRequest;
import dev.deja.source.ScanTrace;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code --haproxy-runtime ADDR}: reads {@code show info} and {@code show stat} from HAProxy's
 * runtime API ({@code unix:/path/admin.sock} or {@code tcp:host:port}), one command per connection
 * (the non-interactive CLI answers and closes), or, for an http(s) URL, the stats page's CSV export
 * or the Prometheus exporter's metrics ({@link HttpStats}). Every wait is bounded by {@link
 * ScanRequest#haproxyRuntimeTimeoutMillis}. An address that cannot be read (refused, permission
 * denied, HTTP 401/404, timeout, malformed answer) is a coverage entry naming it, never an
 * exception.
 */
public final class HaproxyRuntimeSource implements LiveSource {
    static final int MAX_ANSWER = 16 * 1024 * 1024;

    @Override
    public void collect(ScanRequest req, SnapshotBuilder out, ScanTrace trace) {
        List<HaproxyRuntime.Instance> read = new ArrayList<>();
        HttpStats http = null;
        try {
            for (String addr : req.haproxyRuntime) {
                String scope = scope(addr);
                try {
                    HaproxyRuntime.Instance in;
                    if (isUrl(addr)) {
                        if (http == null) {
                            http =
                                    new HttpStats(
                                            req.haproxyRuntimeTimeoutMillis,
                                            req.haproxyRuntimeAuth,
                                            req.haproxyRuntimeCaFile);
                        }
                        in = http.read(addr);
                    } else {
                        SocketAddress sa = address(addr);
                        String info = command(sa, "show info", req.haproxyRuntimeTimeoutMillis);
                        String stat = command(sa, "show stat", req.haproxyRuntimeTimeoutMillis);
                        in = new HaproxyRuntime.Instance(addr, info, stat);
                    }
                    in.check(); // malformed answers are caught here, not in a rule
                    read.add(in);
                    out.read("haproxy", scope, in.rows().size());
                } catch (IllegalArgumentException e) {
                    out.notRead("haproxy", scope, Coverage.Status.FAILED, e.getMessage());
                } catch (HttpStats.Denied e) {
                    out.notRead("haproxy", scope, Coverage.Status.DENIED, e.getMessage());
                } catch (IOException e) {
                    String why =
                            e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                    out.notRead("haproxy", scope, status(e), why);
                }
            }
        } finally {
            if (http != null) {
                http.close();
            }
        }
        out.put(HaproxyRuntime.class, new HaproxyRuntime(read));
    }

    /**
     * How coverage names an address: "runtime API unix:/...", "stats page http://.../stats;csv",
     * "Prometheus exporter http://.../metrics" (what a URL serves is decided by its answer; the
     * name follows the usual paths).
     */
    public static String scope(String addr) {
        if (!isUrl(addr)) {
            return "runtime API " + addr;
        }
        String path = addr.replaceFirst("^[a-zA-Z]+://[^/]*", "");
        int q = path.indexOf('?');
        String p = q < 0 ? path : path.substring(0, q);
        if (path.contains(";csv")) {
            return "stats page " + addr;
        }
        if (p.endsWith("/metrics")) {
            return "Prometheus exporter " + addr;
        }
        return "stats URL " + addr;
    }

    static boolean isUrl(String addr) {
        String a = addr.toLowerCase(Locale.ROOT);
        return a.startsWith("http://") || a.startsWith("https://");
    }

    /**
     * Checks an ADDR of any form (the CLI calls it before any work: exit 2 on a bad one): a socket
     * address, or an http(s) URL with a host and no credentials in it (they would show in the
     * process list and in reports).
     */
    public static void check(String addr) {
        if (!isUrl(addr)) {
            address(addr);
            return;
        }
        URI u;
        try {
            u = URI.create(addr);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "--haproxy-runtime " + addr + ": not a URL (" + e.getMessage() + ")");
        }
        if (u.getRawUserInfo() != null) {
            throw new IllegalArgumentException(
                    "--haproxy-runtime: the URL holds a user and password, which would show"
                            + " in the process list and in reports: put user:password in a file and give"
                            + " --haproxy-runtime-auth FILE (or env:VAR)");
        }
        if (u.getHost() == null || u.getHost().isEmpty()) {
            throw new IllegalArgumentException(
                    "--haproxy-runtime " + addr + ": the URL has no host");
        }
    }

    /** A socket the user may not open (EACCES) is denied; anything else failed. */
    static Coverage.Status status(IOException e) {
        String m = e.getMessage() == null ? "" : e.getMessage().toLowerCase(Locale.ROOT);
        return m.contains("permission denied") || e instanceof AccessDeniedException
                ? Coverage.Status.DENIED
                : Coverage.Status.FAILED;
    }

    /**
     * {@code unix:/path} or {@code tcp:host:port}; anything else is an {@link
     * IllegalArgumentException}.
     */
    public static SocketAddress address(String addr) {
        if (addr.startsWith("unix:") && addr.length() > 5) {
            return UnixDomainSocketAddress.of(Path.of(addr.substring(5)));
        }
        if (addr.startsWith("tcp:")) {
            String hp = addr.substring(4);
            int c = hp.lastIndexOf(':');
            if (c > 0) {
                String host = hp.substring(0, c);
                if (host.startsWith("[") && host.endsWith("]")) {
                    host = host.substring(1, host.length() - 1);
                }
                try {
                    int port = Integer.parseInt(hp.substring(c + 1));
                    if (port > 0 && port < 65536) {
                        return InetSocketAddress.createUnresolved(host, port);
                    }
                } catch (NumberFormatException e) {
                    // below
                }
            }
        }
        throw new IllegalArgumentException(
                "--haproxy-runtime "
                        + addr
                        + ": expected unix:/path/admin.sock, tcp:host:port, or the http(s) URL of the stats page's CSV"
                        + " (http://host:port/stats;csv) or of the Prometheus exporter (http://host:port/metrics)");
    }

    /** Sends one command and reads the answer to the end, every step within the deadline. */
    public static String command(SocketAddress addr, String cmd, long timeoutMillis)
            throws IOException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        SocketAddress target = addr;
        if (addr instanceof InetSocketAddress isa && isa.isUnresolved()) {
            target = new InetSocketAddress(isa.getHostString(), isa.getPort());
        }
        try (SocketChannel ch =
                        addr instanceof UnixDomainSocketAddress
                                ? SocketChannel.open(StandardProtocolFamily.UNIX)
                                : SocketChannel.open();
                Selector sel = Selector.open()) {
            ch.configureBlocking(false);
            if (!ch.connect(target)) {
                ch.register(sel, SelectionKey.OP_CONNECT);
                while (!ch.finishConnect()) {
                    waitFor(sel, deadline, "connecting");
                }
                sel.selectedKeys().clear();
            }
            ByteBuffer w = ByteBuffer.wrap((cmd + "\n").getBytes(StandardCharsets.US_ASCII));
            SelectionKey key = ch.register(sel, SelectionKey.OP_WRITE);
            while (w.hasRemaining()) {
                if (ch.write(w) == 0) {
                    waitFor(sel, deadline, "sending '" + cmd + "'");
                }
            }
            key.interestOps(SelectionKey.OP_READ);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
            while (true) {
                int n = ch.read(buf);
                if (n < 0) {
                    break;
                }
                if (n == 0) {
                    waitFor(sel, deadline, "waiting for the answer to '" + cmd + "'");
                    continue;
                }
                out.write(buf.array(), 0, buf.position());
                buf.clear();
                if (out.size() > MAX_ANSWER) {
                    throw new IOException(
                            "the answer to '" + cmd + "' exceeds " + MAX_ANSWER + " bytes");
                }
            }
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    private static void waitFor(Selector sel, long deadline, String what) throws IOException {
        long left = (deadline - System.nanoTime()) / 1_000_000L;
        if (left <= 0 || sel.select(left) == 0 && System.nanoTime() >= deadline) {
            throw new IOException("no answer within the timeout while " + what);
        }
        sel.selectedKeys().clear();
    }
}
