package dev.deja.prove;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.cli.Cli;
import dev.deja.progress.StatusLine;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * {@code deja prove} on the real haproxy (skipped, saying so, where it is not installed). Runs are
 * short ({@code --duration 2s}); the assertions are the coarse verdicts, never exact latencies, so
 * a busy machine passes.
 */
class ProveTest {
    static final String BEFORE = "examples/haproxy/il-0264-before.cfg";
    static final String AFTER = "examples/haproxy/il-0264-after.cfg";

    static Map<String, String> envWithHaproxy() {
        String path = System.getenv().getOrDefault("PATH", "");
        boolean found = false;
        for (String d : path.split(File.pathSeparator)) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, "haproxy"))) {
                found = true;
            }
        }
        Assumptions.assumeTrue(
                found,
                "haproxy is not on PATH (CI installs it with apt-get): skipping the prove test");
        return Map.of("PATH", path);
    }

    static TestSupport.Run prove(String... args) {
        return TestSupport.runWith(new ByteArrayInputStream(new byte[0]), envWithHaproxy(), args);
    }

    static JsonNode json(TestSupport.Run r) {
        return new ObjectMapper().readTree(r.out());
    }

    static JsonNode proof(JsonNode root, String rule) {
        for (JsonNode p : root.path("proofs")) {
            if (p.path("ruleId").asString().equals(rule)) {
                return p;
            }
        }
        throw new AssertionError("no proof for " + rule + " in " + root);
    }

    @Test
    void theIncidentExampleIsReproducedAtTheIncidentsRateAndTheFixHolds() {
        // the README's demo, at its defaults: one client at 300 req/s wants 300 of hc_ping's 200
        // slots (a 1 s tarpit), as in IL-0264
        TestSupport.Run r = prove("prove", BEFORE, "--rule", Prover.TARPIT, "--format", "json");
        assertEquals(1, r.code(), r.err() + r.out());
        JsonNode p = proof(json(r), Prover.TARPIT);
        assertEquals("reproduced", p.path("verdict").asString(), p.toString());
        assertTrue(p.path("fixWorks").asBoolean(), p.toString());
        assertEquals(
                "REPRODUCED at 300 req/s of one client; the fix holds at that rate",
                p.path("headline").asString(),
                p.toString());
        assertTrue(
                p.path("before").path("slotsFullMs").asLong() > 0,
                "the stats socket saw the slots full: " + p);
        assertEquals(0, p.path("after").path("slotsFullMs").asLong(), p.toString());
        assertTrue(
                p.path("applied")
                        .path("diff")
                        .toString()
                        .contains("+    http-request deny deny_status 429"),
                p.toString());
        assertTrue(p.path("haproxyVersion").asString().matches("\\d+\\.\\d+.*"), p.toString());
        // the margin comes by default: where it breaks before the fix (at or below the rate that
        // broke it), and that the fix held at the ceiling
        JsonNode fl = p.path("findLimit");
        assertTrue(fl.path("breaksAtRps").asDouble() > 0, fl.toString());
        assertTrue(fl.path("breaksAtRps").asDouble() <= 300, fl.toString());
        assertTrue(
                fl.path("afterFixBreaksAtRps").isMissingNode()
                        || fl.path("afterFixBreaksAtRps").isNull(),
                "the fix held: " + fl);
        assertTrue(fl.path("summary").asString().contains("x the incident's 300"), fl.toString());
        assertTrue(
                json(r).path("proofs").get(0).toString().contains("an assumed load"),
                "the legitimate load was assumed and the report says so");
    }

    @Test
    void whereNothingBrokeTheFixIsNotClaimed(@TempDir Path dir) throws Exception {
        // 800 slots: 300 req/s x 1 s holds 300 of them
        Path cfg = dir.resolve("roomy.cfg");
        Files.writeString(
                cfg,
                Files.readString(Path.of(BEFORE))
                        .replace("    maxconn 200\n", "    maxconn 800\n"));
        TestSupport.Run r =
                prove(
                        "prove",
                        cfg.toString(),
                        "--rule",
                        Prover.TARPIT,
                        "--duration",
                        "2s",
                        "--no-find-limit");
        assertEquals(0, r.code(), r.err() + r.out());
        assertTrue(
                r.out()
                        .contains(
                                "haproxy-tarpit-holds-slots: NOT-REPRODUCED at 300 req/s of one client\n"),
                r.out());
        assertFalse(
                r.out().contains(", the fix works") || r.out().contains("the fix holds"), r.out());
        assertTrue(r.out().contains("this run cannot show whether the fix works"), r.out());
    }

    @Test
    void aRunTooShortForTheSlotsToFillIsLengthened(@TempDir Path dir) throws Exception {
        // 2,000 slots, each tarpitted request held 10 s: at 300 req/s they fill after 6.7 s, so a
        // 3 s run would have said not-reproduced where the arithmetic predicts saturation
        Path cfg = dir.resolve("slowfill.cfg");
        Files.writeString(
                cfg,
                Files.readString(Path.of(BEFORE))
                        .replace("    maxconn 200\n", "    maxconn 2000\n")
                        .replace("    maxconn 800\n", "    maxconn 4000\n")
                        .replace("timeout tarpit 1s", "timeout tarpit 10s"));
        TestSupport.Run r =
                prove(
                        "prove",
                        cfg.toString(),
                        "--rule",
                        Prover.TARPIT,
                        "--duration",
                        "3s",
                        "--no-find-limit",
                        "--format",
                        "json");
        JsonNode root = json(r);
        JsonNode p = proof(root, Prover.TARPIT);
        assertTrue(
                p.path("workload")
                        .path("description")
                        .asString()
                        .contains(
                                "flood runs lengthened from 3 s to 10 s: at 300 req/s the 2000 slots fill after 6.7 s"),
                p.toString());
        assertEquals("reproduced", p.path("verdict").asString(), p.toString());
        assertEquals(1, r.code(), r.err());
    }

    @Test
    void aRunLongerThanTheCapWouldNeedIsInconclusive(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("hugefill.cfg");
        Files.writeString(
                cfg,
                Files.readString(Path.of(BEFORE))
                        .replace("    maxconn 200\n", "    maxconn 20000\n")
                        .replace("    maxconn 800\n", "    maxconn 40000\n")
                        .replace("timeout tarpit 1s", "timeout tarpit 100s"));
        TestSupport.Run r =
                prove("prove", cfg.toString(), "--rule", Prover.TARPIT, "--duration", "3s");
        assertEquals(3, r.code(), r.err() + r.out());
        assertTrue(
                r.out()
                        .contains(
                                "haproxy-tarpit-holds-slots: INCONCLUSIVE\n  inconclusive: needs a run of at least"),
                r.out());
        assertTrue(r.out().contains("the 20000 slots fill after 66.7 s"), r.out());
    }

    /**
     * The phases ("deja: prove: before: haproxy on 127.0.0.1:PORT") show only on a terminal, in
     * place on its status line and erased at the end; piped (a CI log) stderr gets none of them.
     * The terminal is simulated as Cli.Io.system() makes one when stderr is a tty: a StatusLine
     * over the screen.
     */
    @Test
    void phasesShowOnATerminalOnlyNeverPiped() {
        String[] args = {"prove", BEFORE, "--rule", Prover.TARPIT, "--duration", "2s"};
        TestSupport.Run piped = prove(args);
        // reproduced (1), or inconclusive (3) on a machine too busy for the short run: it ran
        assertTrue(piped.code() == 1 || piped.code() == 3, piped.err() + piped.out());
        assertFalse(
                piped.err().contains("deja: prove:"), "piped: no line per phase\n" + piped.err());
        assertTrue(piped.out().contains("haproxy-tarpit-holds-slots: "), piped.out());

        StringWriter screen = new StringWriter();
        StatusLine line = new StatusLine(screen);
        StringWriter out = new StringWriter();
        int code =
                Cli.run(
                        new Cli.Io(
                                new PrintWriter(out),
                                new PrintWriter(line, true),
                                new ByteArrayInputStream(new byte[0]),
                                envWithHaproxy(),
                                false,
                                line),
                        args);
        assertTrue(code == 1 || code == 3, screen + out.toString());
        String s = screen.toString();
        assertTrue(s.contains("deja: prove: before: haproxy on 127.0.0.1:"), s);
        assertTrue(s.contains("deja: prove: after"), s);
        assertEquals("", line.status(), "the status line is erased when the proof ends");
        assertTrue(s.endsWith("\r\u001B[K"), "the last thing on the screen erases the line: " + s);
        assertFalse(s.contains("\n"), "phases are never lines of their own: " + s);
        assertTrue(out.toString().contains("haproxy-tarpit-holds-slots: "), out.toString());
    }

    @Test
    void theSlowClientHeadlineSaysWhenTheFixShows() {
        TestSupport.Run r = prove("prove", BEFORE, "--rule", Prover.TIMEOUT, "--format", "json");
        assertEquals(1, r.code(), r.err() + r.out());
        JsonNode p = proof(json(r), Prover.TIMEOUT);
        assertEquals("reproduced", p.path("verdict").asString(), p.toString());
        String headline = p.path("headline").asString();
        assertTrue(headline.startsWith("REPRODUCED with 200 slow clients"), headline);
        assertTrue(p.path("fixWorks").asBoolean(), p.toString());
        assertTrue(
                headline.endsWith("the fix holds once its timeout has cut the slow connections"),
                headline);
        assertTrue(
                p.path("fixNote")
                        .asString()
                        .contains("before then, while the slow clients still held the slots"),
                p.toString());
    }

    @Test
    void theFixedExampleIsNotReproduced() {
        // the same flood against the fixed config: deny answers at once, the slots stay free
        TestSupport.Run r =
                prove(
                        "prove",
                        AFTER,
                        "--duration",
                        "2s",
                        "--client-rps",
                        "1500",
                        "--no-find-limit",
                        "--format",
                        "json");
        assertEquals(0, r.code(), r.err() + r.out());
        JsonNode p = proof(json(r), Prover.TARPIT);
        assertEquals("not-reproduced", p.path("verdict").asString(), p.toString());
        assertEquals(0, p.path("before").path("slotsFullMs").asLong(), p.toString());
        assertTrue(
                p.path("before").path("abuser").path("limited429").asInt() > 0,
                "the rate limit answered: " + p);
    }

    @Test
    void aLimitKeyedOnAHeaderGivesTheAbuserItsOwnHeaderValue(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("xff.cfg");
        Files.writeString(
                cfg,
                """
                global
                    maxconn 300
                defaults
                    mode http
                    timeout connect 1s
                    timeout client 30s
                    timeout server 30s
                    timeout http-request 5s
                    timeout tarpit 1s
                backend st
                    stick-table type string len 64 size 10k expire 10s store http_req_rate(1s)
                frontend api
                    bind :8443
                    maxconn 300
                    http-request track-sc1 req.hdr(x-api-key) table st
                    http-request tarpit deny_status 429 if { sc_http_req_rate(1) gt 20 }
                    default_backend app
                backend app
                    server a 10.0.0.1:8080
                """);
        TestSupport.Run r =
                prove(
                        "prove",
                        cfg.toString(),
                        "--rule",
                        Prover.TARPIT,
                        "--duration",
                        "2s",
                        "--client-rps",
                        "900",
                        "--no-find-limit",
                        "--format",
                        "json");
        JsonNode root = json(r);
        JsonNode p = proof(root, Prover.TARPIT);
        assertTrue(
                p.path("workload").path("abuser").asString().contains("x-api-key header"),
                p.toString());
        assertEquals("reproduced", p.path("verdict").asString(), p.toString());
        // the legitimate clients, each with its own key, are never limited
        assertEquals(
                0, p.path("after").path("legitimate").path("otherStatus").asInt(), p.toString());
        assertTrue(p.path("after").path("abuser").path("limited429").asInt() > 0, p.toString());
    }

    @Test
    void tlsBindsWithMissingCertificatesAreSandboxedAndRun(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("tls.cfg");
        Files.writeString(
                cfg,
                """
                global
                    maxconn 200
                    chroot /var/lib/haproxy-does-not-exist
                    user haproxy
                    daemon
                    log /dev/log local0
                    stats socket /run/haproxy/admin.sock mode 660 level admin
                defaults
                    mode http
                    log global
                    timeout connect 1s
                    timeout client 30s
                    timeout server 30s
                    timeout http-request 5s
                    timeout tarpit 1s
                    errorfile 503 /etc/haproxy/errors/does-not-exist.http
                backend st
                    stick-table type ip size 10k expire 10s store http_req_rate(1s)
                frontend https
                    bind :443 ssl crt /etc/ssl/private/does-not-exist.pem alpn h2,http/1.1
                    bind :80
                    acl blocked src -f /etc/haproxy/blocklist-does-not-exist.lst
                    http-request deny if blocked
                    http-request track-sc0 src table st
                    http-request tarpit if { sc_http_req_rate(0) gt 20 }
                    default_backend app
                backend app
                    server a app.internal.example:8080 check ssl verify none
                """);
        TestSupport.Run r =
                prove(
                        "prove",
                        cfg.toString(),
                        "--rule",
                        Prover.TARPIT,
                        "--duration",
                        "2s",
                        "--client-rps",
                        "600",
                        "--no-find-limit");
        assertTrue(r.code() == 0 || r.code() == 1, r.err() + r.out());
        assertTrue(
                r.out()
                        .contains(
                                "left out: ssl, crt /etc/ssl/private/does-not-exist.pem, alpn h2,http/1.1"),
                r.out());
        assertTrue(r.out().contains("TLS: the sandbox speaks plain HTTP"), r.out());
        assertTrue(
                r.out()
                        .contains(
                                ":3 'chroot /var/lib/haproxy-does-not-exist': it touches the host"),
                r.out());
        assertTrue(
                r.out()
                        .contains(
                                "/etc/haproxy/blocklist-does-not-exist.lst ("
                                        + cfg
                                        + ":22): it does not exist; an empty file in the sandbox"),
                r.out());
        assertTrue(
                r.out()
                        .contains(
                                ":16 'errorfile 503 /etc/haproxy/errors/does-not-exist.http': it does not"
                                        + " exist"),
                r.out());
        assertFalse(r.out().contains("could not run"), r.out());
    }

    @Test
    void scanProveAttachesTheEvidenceToTheFindingsInEveryFormat(@TempDir Path dir)
            throws Exception {
        Path sarif = dir.resolve("r.sarif");
        Path html = dir.resolve("r.html");
        Path text = dir.resolve("r.txt");
        TestSupport.Run r =
                prove(
                        "scan",
                        "--prove",
                        "--prove-duration",
                        "2s",
                        "--assume-client-rps",
                        "1500",
                        "--rules",
                        Prover.TARPIT,
                        "--format",
                        "json",
                        "--output",
                        "sarif=" + sarif,
                        "--output",
                        "html=" + html,
                        "--output",
                        "text=" + text,
                        BEFORE);
        assertEquals(1, r.code(), r.err());
        JsonNode finding = json(r).path("findings").get(0);
        assertEquals(Prover.TARPIT, finding.path("ruleId").asString());
        assertEquals(
                "reproduced",
                finding.path("evidence").path("verdict").asString(),
                finding.toString());
        assertTrue(
                finding.path("evidence").path("before").path("legitimate").path("sent").asInt() > 0,
                finding.toString());
        JsonNode result =
                new ObjectMapper()
                        .readTree(Files.readString(sarif))
                        .path("runs")
                        .get(0)
                        .path("results")
                        .get(0);
        assertEquals(
                "reproduced",
                result.path("properties").path("evidence").path("verdict").asString(),
                result.toString());
        String page = Files.readString(html);
        assertTrue(page.contains("<svg") && page.contains("Replayed"), "the HTML shows the replay");
        assertFalse(page.contains("<script src"), "no external scripts");
        assertTrue(Files.readString(text).contains("replayed: reproduced"), Files.readString(text));
    }

    @Test
    void findLimitIsABoundedSearch() {
        TestSupport.Run r =
                prove(
                        "prove",
                        BEFORE,
                        "--rule",
                        Prover.TARPIT,
                        "--duration",
                        "1s",
                        "--format",
                        "json");
        JsonNode fl = proof(json(r), Prover.TARPIT).path("findLimit");
        int runs = fl.path("runs").size();
        // the two runs of the proof plus at most 4 more (3 before the fix, 1 after)
        assertTrue(runs >= 2 && runs <= 6, fl.toString());
        assertEquals(5000.0, fl.path("ceilingRps").asDouble(), fl.toString());
        assertTrue(
                fl.path("summary").asString().startsWith("before the fix, legitimate traffic"),
                fl.toString());
    }

    @Test
    void withoutHaproxyItIsAUsageErrorWithTheInstallHint() {
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of("PATH", "/nonexistent"),
                        "prove",
                        BEFORE);
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("deja: haproxy is not on PATH"), r.err());
        assertTrue(r.err().contains("apt-get install haproxy"), r.err());
        TestSupport.Run r2 = TestSupport.run("prove", BEFORE, "--haproxy", "/nonexistent/haproxy");
        assertEquals(2, r2.code(), r2.err());
        assertEquals(1, r2.err().lines().count(), r2.err());
    }

    @Test
    void aConfigHaproxyRejectsStopsWithTheReason(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("bad.cfg");
        Files.writeString(
                cfg,
                "defaults\n  mode http\n  timeout tarpit 1s\nfrontend f\n  bind :80\n"
                        + "  http-request tarpit if { no_such_fetch gt 1 }\n  default_backend b\nbackend b\n  server a 1.2.3.4:80\n");
        TestSupport.Run r = prove("prove", cfg.toString(), "--duration", "1s", "--no-find-limit");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("haproxy -c rejected the sandbox copy"), r.err());
    }

    @Test
    void badOptionsAreUsageErrors() {
        assertEquals(2, TestSupport.run("prove", BEFORE, "--duration", "61s").code());
        assertEquals(2, TestSupport.run("prove", BEFORE, "--duration", "soon").code());
        assertEquals(2, TestSupport.run("prove", BEFORE, "--rule", "k8s-lb-not-spread").code());
        assertEquals(2, TestSupport.run("prove", "does-not-exist.cfg").code());
    }

    @Test
    void ctrlCLeavesNoProcessAndNoFolder(@TempDir Path tmp) throws Exception {
        Map<String, String> env = envWithHaproxy();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb =
                new ProcessBuilder(
                        java,
                        "-Djava.io.tmpdir=" + tmp,
                        "-cp",
                        System.getProperty("java.class.path"),
                        "dev.deja.Main",
                        "prove",
                        BEFORE,
                        "--rule",
                        Prover.TARPIT,
                        "--duration",
                        "30s",
                        "--verbose"); // piped: the phases only with --verbose
        pb.environment().put("PATH", env.get("PATH"));
        pb.redirectErrorStream(true);
        Process p = pb.start();
        // wait until haproxy runs (the progress line), then Ctrl-C
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
        assertNotNull(line, "deja prove never started haproxy: " + seen);
        Path dir;
        try (var s = Files.list(tmp)) {
            dir =
                    s.filter(x -> x.getFileName().toString().startsWith("deja-prove-"))
                            .findFirst()
                            .orElse(null);
        }
        assertNotNull(dir, "the sandbox folder is in java.io.tmpdir");
        long haproxyPid = haproxyChildPid(p);
        assertTrue(haproxyPid > 0, "haproxy runs as a child of deja");
        new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "deja stops on SIGINT");
        assertFalse(Files.exists(dir), "the sandbox folder is deleted: " + dir);
        // deja waits for haproxy's exit; the kernel may take a moment more to reap it on a busy
        // host
        ProcessHandle.of(haproxyPid)
                .ifPresent(
                        h -> {
                            try {
                                h.onExit().get(10, TimeUnit.SECONDS);
                            } catch (Exception e) {
                                // judged below
                            }
                        });
        assertFalse(
                ProcessHandle.of(haproxyPid).map(ProcessHandle::isAlive).orElse(false),
                "haproxy is stopped");
    }

    private static long haproxyChildPid(Process p) throws InterruptedException {
        List<ProcessHandle> h = haproxyDescendants(p);
        return h.isEmpty() ? -1 : h.get(0).pid();
    }

    /**
     * The haproxy processes under deja (under bubblewrap or setpriv too), waited for up to 30 s:
     * deja says it starts haproxy just before it does.
     */
    static List<ProcessHandle> haproxyDescendants(Process p) throws InterruptedException {
        for (int i = 0; i < 600; i++) {
            List<ProcessHandle> found =
                    p.toHandle()
                            .descendants()
                            .filter(
                                    c ->
                                            c.info()
                                                    .command()
                                                    .map(x -> x.endsWith("haproxy"))
                                                    .orElse(false))
                            .toList();
            if (!found.isEmpty()) {
                return found;
            }
            Thread.sleep(50);
        }
        return List.of();
    }
}
