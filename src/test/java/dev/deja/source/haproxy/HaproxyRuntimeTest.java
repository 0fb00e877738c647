package dev.deja.source.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.engine.Coverage;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.haproxy.HaproxyRuntime;
import dev.deja.model.haproxy.RuntimeStats;
import dev.deja.source.ScanRequest;
import dev.deja.source.ScanTrace;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtime API source: the pure parsers on answers of a real HAProxy 2.6.12, the failure cases
 * (unreachable, silent, malformed: coverage, never a crash), and the whole path against a real
 * haproxy brought to its frontend's maxconn (skipped, saying so, where haproxy is not installed).
 */
public class HaproxyRuntimeTest {
    /** show info of haproxy 2.6.12 (Debian 12), shortened: the parser reads lines by name. */
    static final String INFO =
            "Name: HAProxy\nVersion: 2.6.12-1+deb12u4\nUptime_sec: 1\nUlimit-n: 228\nMaxsock: 228\n"
                    + "Maxconn: 100\nHard_maxconn: 100\nCurrConns: 10\nCumConns: 11\nConnRate: 10\nConnRateLimit: 0\n"
                    + "MaxConnRate: 10\nUnstoppable Jobs: 0\nBuild info: 2.6.12-1+deb12u4\n\n";

    /**
     * The first columns of show stat as haproxy 2.6.12 writes them (the parser finds columns by
     * name).
     */
    static final String STAT =
            "# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,"
                    + "wretr,wredis,status,weight,act,bck,chkfail,chkdown,lastchg,downtime,qlimit,pid,iid,sid,throttle,lbtot,"
                    + "tracked,type,rate,rate_lim,rate_max,dcon,\n"
                    + "fe_small,FRONTEND,,,10,10,10,10,0,0,0,0,0,,,,,OPEN,,,,,,,,,1,2,0,,,,0,10,0,10,3,\n"
                    + "be_slow,s1,0,4,10,10,,10,0,0,,0,,0,0,0,0,no check,1,1,0,,,2,,,1,3,1,,10,,2,10,,10,,\n"
                    + "be_slow,BACKEND,0,4,10,10,1,10,0,0,0,0,,0,0,0,0,UP,1,1,0,,0,2,0,,1,3,0,,10,,1,10,,10,0,\n\n";

    @Test
    void parsesShowInfo() {
        RuntimeStats.Info i = RuntimeStats.info(INFO);
        assertEquals(10, i.currConns());
        assertEquals(100, i.maxConn());
        assertEquals(10, i.connRate());
        assertEquals(10, i.maxConnRate());
        assertEquals(228, i.maxsock());
        assertEquals(228, i.ulimitN());
        assertEquals(1, i.uptimeSec());
        assertEquals("2.6.12-1+deb12u4", i.version());
    }

    @Test
    void parsesShowStatByColumnName() {
        List<RuntimeStats.Row> rows = RuntimeStats.stat(STAT);
        assertEquals(3, rows.size());
        RuntimeStats.Row fe = rows.get(0);
        assertEquals(
                new RuntimeStats.Row(
                        "fe_small",
                        "FRONTEND",
                        "frontend",
                        10,
                        10,
                        10,
                        10,
                        0,
                        3,
                        0,
                        10,
                        10,
                        -1,
                        -1),
                fe);
        assertEquals("server", rows.get(1).type());
        assertEquals(-1, rows.get(1).slim(), "an empty field is -1");
        assertEquals(4, rows.get(2).qmax());
        assertEquals("backend", rows.get(2).type());
    }

    @Test
    void malformedAnswersAreOneLineReasons() {
        assertEquals(
                "show info: no Maxconn/CurrConns in the answer (empty)",
                assertThrows(IllegalArgumentException.class, () -> RuntimeStats.info(""))
                        .getMessage());
        assertEquals(
                "show info: no Maxconn/CurrConns in the answer: Unknown command.",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> RuntimeStats.info("Unknown command."))
                        .getMessage());
        assertEquals(
                "show info: Maxconn is not a number: lots",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> RuntimeStats.info("Maxconn: lots\nCurrConns: 1\n"))
                        .getMessage());
        assertEquals(
                "show stat: no '# pxname,svname,...' header: Permission denied.",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> RuntimeStats.stat("Permission denied.\n"))
                        .getMessage());
        assertEquals(
                "show stat: the header has no 'slim' column",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> RuntimeStats.stat("# pxname,svname,scur,smax,type\n"))
                        .getMessage());
        assertEquals(
                "show stat: line 2: scur is not a number: x",
                assertThrows(
                                IllegalArgumentException.class,
                                () ->
                                        RuntimeStats.stat(
                                                "# pxname,svname,scur,smax,slim,type\nfe,FRONTEND,x,1,2,0\n"))
                        .getMessage());
    }

    @Test
    void addresses() {
        assertTrue(
                HaproxyRuntimeSource.address("unix:/run/haproxy/admin.sock")
                        instanceof UnixDomainSocketAddress);
        InetSocketAddress a = (InetSocketAddress) HaproxyRuntimeSource.address("tcp:[::1]:9999");
        assertEquals("::1", a.getHostString());
        assertEquals(9999, a.getPort());
        for (String bad :
                List.of(
                        "unix:",
                        "tcp:host",
                        "tcp:host:0",
                        "tcp:host:x",
                        "/run/admin.sock",
                        "http://h:1")) {
            assertThrows(
                    IllegalArgumentException.class, () -> HaproxyRuntimeSource.address(bad), bad);
        }
        TestSupport.Run r = TestSupport.run("scan", "--haproxy-runtime", "/run/admin.sock");
        assertEquals(2, r.code(), r.err());
        assertTrue(
                r.err()
                        .contains(
                                "--haproxy-runtime /run/admin.sock: expected unix:/path/admin.sock, tcp:host:port, or the"
                                        + " http(s) URL of the stats page's CSV"),
                r.err());
    }

    @Test
    void permissionDeniedIsDenied() {
        assertEquals(
                Coverage.Status.DENIED,
                HaproxyRuntimeSource.status(new IOException("Permission denied")));
        assertEquals(
                Coverage.Status.FAILED,
                HaproxyRuntimeSource.status(new IOException("Connection refused")));
    }

    static Coverage.Entry collectOne(String addr, long timeoutMillis) {
        ScanRequest.Builder b = ScanRequest.builder();
        b.haproxyRuntime = List.of(addr);
        b.haproxyRuntimeTimeoutMillis = timeoutMillis;
        ScanRequest req = b.build();
        SnapshotBuilder out = new SnapshotBuilder();
        new HaproxyRuntimeSource().collect(req, out, new ScanTrace());
        Snapshot s = out.build();
        assertEquals(0, s.part(HaproxyRuntime.class).orElseThrow().instances().size());
        assertEquals(1, s.coverage().entries().size(), s.coverage().toString());
        return s.coverage().entries().get(0);
    }

    @Test
    void unreachableSocketIsACoverageGapNamingIt(@TempDir Path dir) {
        String addr = "unix:" + dir.resolve("missing.sock");
        Coverage.Entry e = collectOne(addr, 5000);
        assertEquals("haproxy", e.source());
        assertEquals("runtime API " + addr, e.scope());
        assertEquals(Coverage.Status.FAILED, e.status());

        TestSupport.Run r = TestSupport.run("scan", "--haproxy-runtime", addr);
        assertEquals(3, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("runtime API " + addr), r.out());
    }

    /**
     * A loopback server that answers every connection with the given text (null: accepts and says
     * nothing).
     */
    static ServerSocket fake(String answer, List<Socket> held) throws IOException {
        ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t =
                new Thread(
                        () -> {
                            while (!ss.isClosed()) {
                                try {
                                    Socket c = ss.accept();
                                    if (answer == null) {
                                        held.add(c);
                                        continue;
                                    }
                                    try (c;
                                            OutputStream o = c.getOutputStream()) {
                                        o.write(answer.getBytes(StandardCharsets.UTF_8));
                                    }
                                } catch (IOException e) {
                                    return;
                                }
                            }
                        },
                        "fake-runtime-api");
        t.setDaemon(true);
        t.start();
        return ss;
    }

    @Test
    void malformedAndSilentAnswersAreCoverageGaps() throws IOException {
        List<Socket> held = Collections.synchronizedList(new ArrayList<>());
        try (ServerSocket garbage = fake("Unknown command, please enter \"help\"\n", held);
                ServerSocket silent = fake(null, held)) {
            Coverage.Entry e = collectOne("tcp:127.0.0.1:" + garbage.getLocalPort(), 5000);
            assertEquals(Coverage.Status.FAILED, e.status());
            assertTrue(
                    e.detail()
                            .startsWith(
                                    "show info: no Maxconn/CurrConns in the answer: Unknown command"),
                    e.detail());

            // the bound is injected: a server that never answers costs that long, not forever
            Coverage.Entry s = collectOne("tcp:127.0.0.1:" + silent.getLocalPort(), 300);
            assertEquals(Coverage.Status.FAILED, s.status());
            assertEquals(
                    "no answer within the timeout while waiting for the answer to 'show info'",
                    s.detail());
        } finally {
            for (Socket c : held) {
                c.close();
            }
        }
    }

    public static String haproxy() {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, "haproxy"))) {
                return Path.of(d, "haproxy").toString();
            }
        }
        return Files.isExecutable(Path.of("/usr/sbin/haproxy")) ? "/usr/sbin/haproxy" : null;
    }

    /**
     * A real haproxy with a frontend of maxconn 10 in front of a stub backend that accepts and
     * never answers; ten client connections held open fill it. deja reads the stats socket and
     * names the frontend, its figures and the maxconn line of the configuration.
     */
    @Test
    void aRealHaproxyAtItsFrontendLimitFires(@TempDir Path dir) throws Exception {
        String bin = haproxy();
        Assumptions.assumeTrue(
                bin != null,
                "haproxy is not installed (apt-get install haproxy; .ci/run installs it):"
                        + " skipping the live runtime API test");
        List<Socket> sockets = Collections.synchronizedList(new ArrayList<>());
        Process p = null;
        try (ServerSocket backend = fake(null, sockets)) {
            int fePort;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                fePort = probe.getLocalPort();
            }
            Path sock = dir.resolve("admin.sock");
            Path cfg = dir.resolve("haproxy.cfg");
            Files.writeString(
                    cfg,
                    String.join(
                            "\n",
                            "global",
                            "    maxconn 100",
                            "    stats socket " + sock + " mode 600 level user",
                            "defaults",
                            "    mode tcp",
                            "    timeout connect 5s",
                            "    timeout client 60s",
                            "    timeout server 60s",
                            "frontend fe_small",
                            "    bind 127.0.0.1:" + fePort,
                            "    maxconn 10",
                            "    default_backend be_slow",
                            "backend be_slow",
                            "    server s1 127.0.0.1:" + backend.getLocalPort(),
                            ""));
            p =
                    new ProcessBuilder(bin, "-db", "-f", cfg.toString())
                            .redirectErrorStream(true)
                            .redirectOutput(dir.resolve("haproxy.log").toFile())
                            .start();
            String addr = "unix:" + sock;
            // bounded waits on conditions, never on a clock: the socket answers, then the frontend
            // holds 10 sessions
            waitUntil(p, dir, () -> Files.exists(sock) && answers(addr));
            for (int i = 0; i < 10; i++) {
                Socket c = new Socket();
                c.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), fePort), 10_000);
                sockets.add(c);
            }
            waitUntil(p, dir, () -> scur(addr, "fe_small") >= 10);

            TestSupport.Run r =
                    TestSupport.run(
                            "scan",
                            "--format",
                            "json",
                            "--haproxy-runtime",
                            addr,
                            cfg.toString(),
                            "--rules",
                            "haproxy-sessions-near-limit");
            assertEquals(1, r.code(), r.out() + r.err());
            var root = TestSupport.json(r.out());
            List<String> messages = new ArrayList<>();
            String location = null;
            for (var f : root.path("findings")) {
                messages.add(f.path("message").asString());
                if (f.path("message").asString().startsWith("frontend fe_small")) {
                    location = f.path("location").toString();
                    assertEquals("high", f.path("severity").asString());
                }
            }
            assertTrue(
                    messages.stream()
                            .anyMatch(
                                    m ->
                                            m.startsWith(
                                                            "frontend fe_small at "
                                                                    + addr
                                                                    + " reached 10 of 10 sessions (100%")
                                                    && m.contains(
                                                            "the limit is set by maxconn at "
                                                                    + cfg
                                                                    + ":11")),
                    messages.toString());
            assertTrue(location != null && location.contains("\"line\":11"), location);
        } finally {
            for (Socket c : sockets) {
                c.close();
            }
            if (p != null) {
                p.destroy();
                p.waitFor();
            }
        }
    }

    public interface Cond {
        boolean test() throws Exception;
    }

    public static void waitUntil(Process p, Path dir, Cond c) throws Exception {
        long deadline =
                System.nanoTime()
                        + 60_000_000_000L; // generous: a busy machine, not a timing assumption
        while (!c.test()) {
            if (!p.isAlive()) {
                throw new AssertionError(
                        "haproxy exited: " + Files.readString(dir.resolve("haproxy.log")));
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "haproxy did not reach the state in 60 s: "
                                + Files.readString(dir.resolve("haproxy.log")));
            }
            Thread.sleep(50);
        }
    }

    public static boolean answers(String addr) {
        try {
            HaproxyRuntimeSource.command(HaproxyRuntimeSource.address(addr), "show info", 5000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public static long scur(String addr, String frontend) throws IOException {
        for (RuntimeStats.Row r :
                RuntimeStats.stat(
                        HaproxyRuntimeSource.command(
                                HaproxyRuntimeSource.address(addr), "show stat", 5000))) {
            if (r.proxy().equals(frontend) && r.type().equals("frontend")) {
                return r.scur();
            }
        }
        return -1;
    }
}
