package dev.deja.prove;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deja prove} on hostile configurations (as a pull request in CI could bring them), on the
 * real haproxy, as its own process (as users run it, with its own environment): nothing of the
 * configuration runs unless deja has read it, haproxy gets no environment, reads no file outside
 * the configuration's folder, connects only to the stub, and dies with deja however deja dies. The
 * configurations are test resources ({@code prove-hostile/}); each run is short and bounded.
 */
class ProveHostileTest {
    private static final String SECRET = "ghp_deja7e5tS3cr3tV4lue";
    private static final String AWS_SECRET = "wJalrXUtnFEMIdejaEXAMPLEKEY";

    @TempDir Path tmp;

    /** What a run of deja printed, and how it ended. */
    record Run(int code, String output) {}

    /** The resource with @DIR@ (its folder) and @OUTSIDE@ (a folder beside it) filled in. */
    private Path resource(String name, Path dir, Path outside, Map<String, String> more)
            throws IOException {
        Files.createDirectories(dir);
        Files.createDirectories(outside);
        for (String f : List.of(name, "evil.lua")) {
            try (InputStream in =
                    ProveHostileTest.class.getResourceAsStream("/prove-hostile/" + f)) {
                assertNotNull(in, f);
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                text =
                        text.replace("@DIR@", dir.toString())
                                .replace("@OUTSIDE@", outside.toString());
                for (Map.Entry<String, String> e : more.entrySet()) {
                    text = text.replace(e.getKey(), e.getValue());
                }
                Files.writeString(dir.resolve(f), text);
            }
        }
        return dir.resolve(name);
    }

    /** deja prove as its own process, with {@code env} added to a PATH that has haproxy. */
    private Run prove(Map<String, String> env, String... args) throws Exception {
        Process p = start(env, args);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "deja prove ends: " + out);
        return new Run(p.exitValue(), out);
    }

    private Process start(Map<String, String> env, String... args) throws IOException {
        Map<String, String> base = ProveTest.envWithHaproxy();
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Djava.io.tmpdir=" + tmp.resolve("jtmp"));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("dev.deja.Main");
        cmd.add("prove");
        cmd.addAll(List.of(args));
        Files.createDirectories(tmp.resolve("jtmp"));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().clear();
        pb.environment().put("PATH", base.get("PATH"));
        pb.environment().putAll(env);
        pb.redirectErrorStream(true);
        return pb.start();
    }

    private static void noTrace(Run r) {
        assertTrue(r.code() >= 0 && r.code() <= 3, "never an internal error: " + r);
        assertFalse(r.output().contains("\tat dev.deja"), "no stack trace: " + r.output());
        assertFalse(r.output().contains("Exception"), "no exception: " + r.output());
    }

    private static final String[] SHORT = {
        "--rule", Prover.TARPIT, "--duration", "1s", "--no-find-limit"
    };

    private static String[] args(Path cfg, String... more) {
        List<String> a = new ArrayList<>(List.of(cfg.toString()));
        a.addAll(List.of(SHORT));
        a.addAll(List.of(more));
        return a.toArray(new String[0]);
    }

    @Test
    void linesUnderAnIfForTheRealVersionAreDecidedForItAndLuaNeverRuns() throws Exception {
        Path outside = tmp.resolve("outside");
        Path cfg = resource("if-block-lua.cfg", tmp.resolve("cfg"), outside, Map.of());
        Run r = prove(Map.of(), args(cfg));
        noTrace(r);
        assertFalse(Files.exists(outside.resolve("lua-ran")), "Lua never ran: " + r.output());
        assertFalse(Files.exists(outside.resolve("lua-id")), "no command ran: " + r.output());
        assertFalse(
                Files.exists(outside.resolve("admin.sock")),
                "no admin socket outside the sandbox: " + r.output());
        assertTrue(
                r.output().contains("left out " + cfg + ":7 'lua-load "),
                "the report names the Lua line with its file:line: " + r.output());
        assertTrue(r.output().contains("it runs Lua code"), r.output());
        assertTrue(
                r.output().contains("left out " + cfg + ":8 'stats socket " + outside), r.output());
        assertTrue(
                r.output().contains("REPRODUCED") || r.output().contains("NOT-REPRODUCED"),
                r.output());
    }

    @Test
    void aKeywordThatIsAVariableIsRefusedInOneLine() throws Exception {
        Path outside = tmp.resolve("outside");
        Path cfg = resource("variable-keyword.cfg", tmp.resolve("cfg"), outside, Map.of());
        Run r = prove(Map.of(), args(cfg));
        assertEquals(2, r.code(), r.output());
        noTrace(r);
        assertTrue(r.output().contains(cfg + ":5: the keyword is a variable (${KW})"), r.output());
        assertEquals(
                1,
                r.output()
                        .lines()
                        .filter(l -> l.startsWith("deja:") && !l.contains("prove:"))
                        .count(),
                "one line: " + r.output());
        assertFalse(Files.exists(outside.resolve("lua-ran")), r.output());
    }

    @Test
    void haproxyGetsNoEnvironmentSoSecretsAreNeverPrinted() throws Exception {
        Path outside = tmp.resolve("outside");
        Path cfg = resource("secrets.cfg", tmp.resolve("cfg"), outside, Map.of());
        Run r =
                prove(
                        Map.of("GITHUB_TOKEN", SECRET, "AWS_SECRET_ACCESS_KEY", AWS_SECRET),
                        args(cfg, "--format", "json"));
        noTrace(r);
        assertFalse(r.output().contains(SECRET), "the token is never printed: " + r.output());
        assertFalse(r.output().contains(AWS_SECRET), "the key is never printed: " + r.output());
        assertTrue(
                r.output().contains(cfg + ":20 'http-request set-header X-Token ${GITHUB_TOKEN}'"),
                "the line with a variable is left out and named as written: " + r.output());
        assertTrue(
                r.output().contains(cfg + ":6 'bogus-keyword 1': not needed for the replay"),
                r.output());
    }

    @Test
    void filesOutsideTheConfigsFolderAreNeverRead() throws Exception {
        Path outside = tmp.resolve("outside");
        Path dir = tmp.resolve("cfg");
        Path cfg = resource("files.cfg", dir, outside, Map.of());
        Files.writeString(outside.resolve("secret.txt"), "TOPSECRET 1\n");
        Files.createSymbolicLink(dir.resolve("link-to-secret.txt"), outside.resolve("secret.txt"));
        Files.writeString(dir.resolve("own.map"), "192.0.2.1 1\n");
        Run r = prove(Map.of(), args(cfg));
        noTrace(r);
        assertFalse(r.output().contains("TOPSECRET"), "the file is never read: " + r.output());
        assertTrue(
                r.output()
                        .contains(
                                outside.resolve("secret.txt") + " (" + cfg + ":18): it is outside"),
                r.output());
        assertTrue(
                r.output().contains("link-to-secret.txt (" + cfg + ":19): it is outside"),
                "a link out of the folder is followed and refused: " + r.output());
        assertTrue(
                r.output().contains("own.map (" + cfg + ":20) copied into the sandbox"),
                r.output());
    }

    @Test
    void haproxyConnectsToNothingButTheStub() throws Exception {
        try (ServerSocket target = new ServerSocket();
                DatagramSocket logs = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            target.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            AtomicInteger accepted = new AtomicInteger();
            Thread acceptor =
                    new Thread(
                            () -> {
                                while (!target.isClosed()) {
                                    try (Socket s = target.accept()) {
                                        accepted.incrementAndGet();
                                    } catch (IOException e) {
                                        return;
                                    }
                                }
                            });
            acceptor.setDaemon(true);
            acceptor.start();
            Path outside = tmp.resolve("outside");
            Path cfg =
                    resource(
                            "traffic.cfg",
                            tmp.resolve("cfg"),
                            outside,
                            Map.of(
                                    "@PORT@",
                                    Integer.toString(target.getLocalPort()),
                                    "@UDP@",
                                    Integer.toString(logs.getLocalPort())));
            Run r = prove(Map.of(), args(cfg));
            noTrace(r);
            assertEquals(0, accepted.get(), "no connection to the address the config named: " + r);
            logs.setSoTimeout(200);
            boolean logged;
            try {
                logs.receive(new DatagramPacket(new byte[2048], 2048));
                logged = true;
            } catch (SocketTimeoutException e) {
                logged = false;
            }
            assertFalse(logged, "no log line sent to the config's log target: " + r);
            assertTrue(r.output().contains("'http-request set-dst 127.0.0.1'"), r.output());
            assertTrue(r.output().contains("'option transparent'"), r.output());
        }
    }

    @Test
    void haproxyDiesWithDejaWhenDejaIsKilled() throws Exception {
        List<String> kinds = new ArrayList<>(List.of("setpriv"));
        if (Isolation.onPath(ProveTest.envWithHaproxy(), "bwrap") != null) {
            kinds.add("bwrap");
        }
        Assumptions.assumeTrue(
                Isolation.onPath(ProveTest.envWithHaproxy(), "setpriv") != null,
                "setpriv (util-linux) is not on PATH: nothing here can tie haproxy to deja");
        for (String kind : kinds) {
            Process p =
                    start(
                            Map.of(Isolation.ENV, kind),
                            ProveTest.BEFORE,
                            "--rule",
                            Prover.TARPIT,
                            "--duration",
                            "30s",
                            "--verbose"); // piped: the phases only with --verbose
            BufferedReader in =
                    new BufferedReader(
                            new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line;
            StringBuilder seen = new StringBuilder();
            while ((line = in.readLine()) != null) {
                seen.append(line).append('\n');
                if (line.contains("haproxy on 127.0.0.1")) {
                    break;
                }
            }
            assertNotNull(line, kind + ": deja prove never started haproxy: " + seen);
            List<ProcessHandle> haproxy = ProveTest.haproxyDescendants(p);
            assertFalse(haproxy.isEmpty(), kind + ": haproxy runs under deja");
            p.destroyForcibly(); // SIGKILL: no shutdown hook runs
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            for (ProcessHandle h : haproxy) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (h.isAlive() && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertFalse(h.isAlive(), kind + ": haproxy " + h.pid() + " died with deja");
            }
        }
        // the folders the killed runs left are removed by the next run
        Path jtmp = tmp.resolve("jtmp");
        try (var s = Files.list(jtmp)) {
            assertTrue(
                    s.anyMatch(x -> x.getFileName().toString().startsWith("deja-prove-")),
                    "a killed run leaves its folder");
        }
        Process again =
                start(
                        Map.of(),
                        ProveTest.BEFORE,
                        "--rule",
                        Prover.TARPIT,
                        "--duration",
                        "1s",
                        "--no-find-limit");
        again.getInputStream().readAllBytes();
        assertTrue(again.waitFor(120, TimeUnit.SECONDS));
        try (var s = Files.list(jtmp)) {
            assertFalse(
                    s.anyMatch(x -> x.getFileName().toString().startsWith("deja-prove-")),
                    "the next prove run removes the folders of runs that were killed");
        }
    }
}
