package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code deja scan --untrusted-config}: a deja.yaml from a pull request may say how to judge, never
 * make deja send, write, read a live system, or read outside its folder; {@code --no-config} reads
 * none. Each run is the real CLI in a folder holding a real haproxy.cfg.
 */
class UntrustedConfigTest {
    static final String CFG =
            """
            global
                maxconn 100
            defaults
                mode http
                timeout connect 5s
                timeout client 30s
                timeout server 30s
            frontend fe
                bind :8080
                default_backend be
            backend be
                server a 127.0.0.1:9000
            """;

    /**
     * deja scan on the folder's haproxy.cfg with its deja.yaml given by --config (a flag reads a
     * given file the same way as a found one; finding one needs a process started in the folder:
     * {@link #noConfigReadsNone}).
     */
    static TestSupport.Run scan(Path dir, String... flags) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("scan"));
        args.addAll(java.util.List.of(flags));
        args.addAll(
                java.util.List.of(
                        "--config",
                        dir.resolve("deja.yaml").toString(),
                        dir.resolve("haproxy.cfg").toString()));
        return TestSupport.run(args.toArray(String[]::new));
    }

    static Path repo(Path tmp, String config) throws IOException {
        Files.createDirectories(tmp.resolve(".git"));
        Files.writeString(tmp.resolve("haproxy.cfg"), CFG);
        Files.writeString(tmp.resolve("deja.yaml"), config);
        return tmp;
    }

    /** Each key that reaches out is refused naming deja.yaml and the key's line, exit 2. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            textBlock =
                    """
                    notify: http://127.0.0.1:1/hook                                   | 2 | --notify
                    pushgateway: http://127.0.0.1:1                                    | 2 | --pushgateway
                    outputs: [{format: json, path: out.json}]                          | 2 | --output
                    snapshotOut: snap.json                                             | 2 | --snapshot-out
                    reportConfigMap: deja/report                                       | 2 | --report-configmap
                    'sources: {cluster: {context: prod}}'                              | 2 | --cluster
                    'sources: {aws: {regions: [eu-west-2]}}'                           | 2 | --aws
                    'sources: {prometheus: {url: "http://127.0.0.1:1"}}'               | 2 | --prometheus
                    'sources: {haproxy: {configMaps: [ingress/haproxy]}}'              | 2 | ConfigMap ingress/haproxy
                    """)
    void reachingOutIsRefused(String key, int line, String named, @TempDir Path tmp)
            throws Exception {
        Path dir = repo(tmp, "failOn: high\n" + key.replace("\\n", "\n") + "\n");
        TestSupport.Run r = scan(dir, "--untrusted-config");
        assertEquals(2, r.code(), r.out() + r.err());
        String last = r.err().strip().lines().reduce((a, b) -> b).orElse("");
        assertTrue(last.startsWith("deja: " + dir.resolve("deja.yaml") + ":" + line + ": "), last);
        assertTrue(last.contains(named), last);
        assertTrue(last.contains("--untrusted-config"), last);
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        assertFalse(Files.exists(dir.resolve("out.json")));
        assertFalse(Files.exists(dir.resolve("snap.json")));
    }

    /** The same file read without the flag does what it says (the refusal is the flag's doing). */
    @Test
    void withoutTheFlagTheFileIsObeyed(@TempDir Path tmp) throws Exception {
        Path dir = repo(tmp, "failOn: none\noutputs: [{format: json, path: out.json}]\n");
        TestSupport.Run r = scan(dir);
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.exists(dir.resolve("out.json")));
    }

    /** notify is never contacted: a loopback server counts the requests it gets. */
    @Test
    void notifyIsNotContacted(@TempDir Path tmp) throws Exception {
        AtomicInteger hits = new AtomicInteger();
        com.sun.net.httpserver.HttpServer server =
                com.sun.net.httpserver.HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext(
                "/",
                ex -> {
                    hits.incrementAndGet();
                    ex.sendResponseHeaders(204, -1);
                    ex.close();
                });
        server.start();
        try {
            String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/hook";
            Path dir = repo(tmp, "failOn: none\nnotify: " + url + "\n");
            TestSupport.Run r = scan(dir, "--untrusted-config");
            assertEquals(2, r.code(), r.err());
            assertEquals(0, hits.get(), "the webhook got a request");
            r = scan(dir);
            assertEquals(0, r.code(), r.err());
            assertEquals(1, hits.get(), "trusted, the same file notifies (the test's own check)");
        } finally {
            server.stop(0);
        }
    }

    /** Paths out of the file's folder: absolute, '..', a symbolic link leading out. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            textBlock =
                    """
                    'sources: {paths: [/etc]}'            | 1 | /etc
                    'sources: {paths: [../elsewhere]}'    | 1 | elsewhere
                    ignoreFile: link/passwd               | 1 | link/passwd
                    baseline: /tmp/old.json               | 1 | /tmp/old.json
                    'sources: {helm: {values: [/etc/v.yaml]}}' | 1 | /etc/v.yaml
                    """)
    void pathsOutOfTheFolderAreRefused(String key, int line, String named, @TempDir Path tmp)
            throws Exception {
        Path dir = repo(tmp.resolve("repo"), key + "\n");
        Files.createDirectories(tmp.resolve("elsewhere"));
        Files.createSymbolicLink(dir.resolve("link"), Path.of("/etc"));
        TestSupport.Run r = scan(dir, "--untrusted-config");
        assertEquals(2, r.code(), r.out() + r.err());
        String last = r.err().strip().lines().reduce((a, b) -> b).orElse("");
        assertTrue(
                last.startsWith("deja: " + dir.resolve("deja.yaml") + ":" + line + ": names "),
                last);
        assertTrue(last.contains(named) && last.contains("outside the config file's folder"), last);
    }

    @Test
    void rulesDirsOutOfTheFolderAreRefusedBeforeReadingThem(@TempDir Path tmp) throws Exception {
        Path dir = repo(tmp.resolve("repo"), "rulesDirs: [../rules]\n");
        Files.createDirectories(tmp.resolve("rules"));
        Files.writeString(tmp.resolve("rules/bad.yaml"), "id: [not a rule\n");
        TestSupport.Run r = scan(dir, "--untrusted-config");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("rulesDirs names"), r.err());
        assertFalse(r.err().contains("bad.yaml"), "the folder was read: " + r.err());
    }

    /** What says how to judge is kept: rule tuning, severities, suppressions, failOn, paths. */
    @Test
    void judgingKeysAreKept(@TempDir Path tmp) throws Exception {
        Path dir =
                repo(
                        tmp,
                        """
                        sources:
                          paths: [haproxy.cfg]
                        rules:
                          disabled: [haproxy-maxconn-headroom]
                          minSeverity: low
                        failOn: critical
                        suppressions:
                          - {rule: "*", object: "nothing/*", reason: test}
                        """);
        TestSupport.Run trusted = scan(dir, "--format", "json");
        TestSupport.Run untrusted = scan(dir, "--untrusted-config", "--format", "json");
        assertEquals(trusted.code(), untrusted.code(), untrusted.err());
        assertEquals(trusted.out(), untrusted.out());
        assertFalse(untrusted.out().contains("haproxy-maxconn-headroom\""), untrusted.out());
    }

    /** In a real process started in the repository, as a CI job runs it. */
    @Test
    void noConfigReadsNone(@TempDir Path tmp) throws Exception {
        Path dir = repo(tmp, "failOn: none\nrules: {disabled: [nope-not-a-rule]}\n");
        Proc found = process(dir, "scan", "haproxy.cfg");
        assertEquals(
                2, found.code(), "the test's file is read without --no-config: " + found.err());
        assertTrue(found.err().contains("nope-not-a-rule"), found.err());
        Proc none = process(dir, "scan", "--no-config", "haproxy.cfg");
        assertTrue(none.code() == 0 || none.code() == 1, none.err());
        assertFalse(none.err().contains("deja.yaml"), none.err());
        assertTrue(none.out().contains("haproxy.cfg:"), none.out());
        Proc both = process(dir, "scan", "--no-config", "--config", "deja.yaml", "haproxy.cfg");
        assertEquals(2, both.code());
        assertTrue(both.err().contains("contradict"), both.err());
    }

    record Proc(int code, String out, String err) {}

    static Proc process(Path dir, String... args) throws Exception {
        java.util.List<String> cmd =
                new java.util.ArrayList<>(
                        java.util.List.of(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-cp",
                                System.getProperty("java.class.path"),
                                "dev.deja.Main"));
        cmd.addAll(java.util.List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p =
                new ProcessBuilder(cmd)
                        .directory(dir.toFile())
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile())
                        .start();
        assertTrue(p.waitFor(5, java.util.concurrent.TimeUnit.MINUTES), "deja did not end");
        return new Proc(p.exitValue(), Files.readString(out), Files.readString(err));
    }
}
