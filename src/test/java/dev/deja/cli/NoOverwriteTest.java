package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17 (2): no output (-o, --output, --snapshot-out) may replace a file the scan reads, by real
 * path.
 */
class NoOverwriteTest {
    @TempDir Path tmp;

    private static final String CFG =
            "global\n  maxconn 100\n  stats socket /run/h.sock\ndefaults\n  mode http\n"
                    + "  timeout client 5s\n  timeout server 5s\n  timeout connect 5s\n  timeout http-request 5s\n"
                    + "frontend f\n  bind :80\n  default_backend b\nbackend b\n  server s 127.0.0.1:8080\n";

    private void refused(Map<String, String> env, String expected, String... args)
            throws Exception {
        Map<Path, String> before = contents();
        TestSupport.Run r = TestSupport.runWith(new ByteArrayInputStream(new byte[0]), env, args);
        assertEquals(2, r.code(), String.join(" ", args) + "\n" + r.out() + r.err());
        assertTrue(r.err().startsWith("deja: ") && r.err().contains(expected), r.err());
        assertTrue(r.err().contains("which this scan reads"), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertEquals(before, contents(), "nothing written: " + String.join(" ", args));
    }

    private Map<Path, String> contents() throws Exception {
        Map<Path, String> m = new TreeMap<>();
        try (var s = Files.walk(tmp)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                m.put(p, Files.readString(p));
            }
        }
        return m;
    }

    @Test
    void everyFileTheScanReadsIsProtectedByRealPath() throws Exception {
        Path conf = Files.createDirectories(tmp.resolve("conf"));
        Path cfg = Files.writeString(conf.resolve("haproxy.cfg"), CFG);
        Path notes =
                Files.writeString(conf.resolve("notes.txt"), "skipped by name, still the user's\n");
        Path link = Files.createSymbolicLink(tmp.resolve("link.cfg"), cfg);
        Path kc = Files.writeString(tmp.resolve("kc.yaml"), "apiVersion: v1\nkind: Config\n");
        Path kc2 = Files.writeString(tmp.resolve("kc2.yaml"), "apiVersion: v1\nkind: Config\n");
        Path ignore = Files.writeString(tmp.resolve("ignore.yaml"), "[]\n");
        Path config = Files.writeString(tmp.resolve("deja.yaml"), "sources:\n  paths: [conf]\n");
        Path base = Files.writeString(tmp.resolve("base.json"), "{}\n");
        Path dangling =
                Files.createSymbolicLink(
                        tmp.resolve("dangling.json"), tmp.resolve("conf/../conf/haproxy.cfg"));
        Map<String, String> none = Map.of();
        String c = conf.toString();
        refused(none, "-o " + cfg, "scan", c, "-o", cfg.toString());
        refused(none, "-o " + notes, "scan", c, "-o", notes.toString());
        refused(none, "--snapshot-out " + cfg, "scan", c, "--snapshot-out", cfg.toString());
        refused(none, "--output json=" + cfg, "scan", c, "--output", "json=" + cfg);
        refused(none, "-o " + link, "scan", c, "-o", link.toString()); // a symlink to an input
        refused(none, "-o " + dangling, "scan", c, "-o", dangling.toString());
        refused(
                none,
                "-o " + cfg,
                "scan",
                link.toString(),
                "-o",
                cfg.toString()); // input given by a symlink
        refused(
                none,
                "-o " + tmp.resolve("conf/./x/../haproxy.cfg"),
                "scan",
                c,
                "-o",
                tmp + "/conf/./x/../haproxy.cfg");
        refused(
                none,
                "-o " + kc,
                "scan",
                "--cluster",
                "--kubeconfig",
                kc.toString(),
                "-o",
                kc.toString());
        refused(
                Map.of("KUBECONFIG", kc + File.pathSeparator + kc2),
                "-o " + kc2,
                "scan",
                c,
                "-o",
                kc2.toString()); // a KUBECONFIG file, whatever the scan reads
        refused(
                none,
                "-o " + ignore,
                "scan",
                c,
                "--ignore-file",
                ignore.toString(),
                "-o",
                ignore.toString());
        refused(
                none,
                "--snapshot-out " + config,
                "scan",
                "--config",
                config.toString(),
                "--snapshot-out",
                config.toString());
        refused(
                none,
                "-o " + base,
                "scan",
                c,
                "--baseline",
                base.toString(),
                "--format",
                "json",
                "-o",
                base.toString());
        // a new file beside the inputs is fine
        TestSupport.Run ok =
                TestSupport.run(
                        "scan", c, "--format", "json", "-o", tmp.resolve("report.json").toString());
        assertEquals(0, ok.code(), ok.err());
        assertTrue(Files.readString(tmp.resolve("report.json")).startsWith("{"));
        assertEquals(CFG, Files.readString(cfg));
    }

    @Test
    void realPathOfAFileNotYetWrittenFollowsLinkedFolders() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("d"));
        Path alias = Files.createSymbolicLink(tmp.resolve("alias"), dir);
        assertEquals(
                dir.toRealPath().resolve("new.json"), NoOverwrite.real(alias.resolve("new.json")));
        List<String> loops = new ArrayList<>();
        Path a = tmp.resolve("a");
        Files.createSymbolicLink(a, tmp.resolve("b"));
        Files.createSymbolicLink(tmp.resolve("b"), a);
        loops.add(NoOverwrite.real(a).toString()); // a link loop ends, it does not hang
        assertFalse(loops.isEmpty());
    }

    /**
     * Issue 17 (2), rest: the files a kubeconfig names (CA, client certificate and key, token file,
     * an exec plugin given by path, oidc idp-certificate-authority), resolved as kubectl does
     * (relative to the kubeconfig's own folder), for --kubeconfig, every KUBECONFIG file and
     * ~/.kube/config, when the run connects to a cluster (--cluster, --report-configmap): refused
     * before any work, so the cluster is never contacted.
     */
    @Test
    void filesAKubeconfigNamesAreProtectedToo() throws Exception {
        Path kube = Files.createDirectories(tmp.resolve("kube"));
        Path certs = Files.createDirectories(kube.resolve("certs"));
        Path ca = Files.writeString(certs.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----\nca\n");
        Path crt =
                Files.writeString(certs.resolve("client.crt"), "-----BEGIN CERTIFICATE-----\nme\n");
        Path key =
                Files.writeString(
                        certs.resolve("client.key"), "-----BEGIN PRIVATE KEY-----\nsecret\n");
        Path token = Files.writeString(kube.resolve("token"), "sa-token\n");
        Path plugin =
                Files.writeString(
                        Files.createDirectories(kube.resolve("bin")).resolve("creds"),
                        "#!/bin/sh\n");
        Path idp =
                Files.writeString(tmp.resolve("idp-ca.pem"), "-----BEGIN CERTIFICATE-----\nidp\n");
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String kubeconfig =
                    """
                    apiVersion: v1
                    kind: Config
                    current-context: prod
                    clusters:
                      - name: prod
                        cluster: {server: "https://127.0.0.1:%d", certificate-authority: certs/ca.crt}
                    contexts:
                      - name: prod
                        context: {cluster: prod, user: alice}
                      - name: exec
                        context: {cluster: prod, user: bob}
                    users:
                      - name: alice
                        user: {client-certificate: certs/client.crt, client-key: ./certs/client.key}
                      - name: bob
                        user:
                          tokenFile: token
                          exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: bin/creds}
                      - name: carol
                        user:
                          auth-provider: {name: oidc, config: {idp-certificate-authority: %s}}
                    """
                            .formatted(server.getLocalPort(), idp);
            Path kc = Files.writeString(kube.resolve("kc.yaml"), kubeconfig);
            Map<String, String> none = Map.of();
            String k = kc.toString();
            refused(
                    none,
                    "would overwrite client-key " + key + " of user alice in kubeconfig " + kc,
                    "scan",
                    "--cluster",
                    "--kubeconfig",
                    k,
                    "-o",
                    key.toString());
            refused(
                    none,
                    "client-certificate " + crt,
                    "scan",
                    "--cluster",
                    "--kubeconfig",
                    k,
                    "--format",
                    "json",
                    "-o",
                    tmp.resolve("kube/x/../certs/client.crt").toString());
            refused(
                    none,
                    "certificate-authority " + ca + " of cluster prod",
                    "scan",
                    "--cluster",
                    "--kubeconfig",
                    k,
                    "--snapshot-out",
                    ca.toString());
            refused(
                    none,
                    "tokenFile " + token + " of user bob",
                    "scan",
                    "--cluster",
                    "--kubeconfig",
                    k,
                    "--context",
                    "exec",
                    "-o",
                    token.toString());
            refused(
                    none,
                    "exec command " + plugin + " of user bob",
                    "scan",
                    "--cluster",
                    "--kubeconfig",
                    k,
                    "-o",
                    plugin.toString());
            refused(
                    none,
                    "auth-provider idp-certificate-authority " + idp + " of user carol",
                    "scan",
                    "--cluster",
                    "--kubeconfig",
                    k,
                    "-o",
                    idp.toString());
            // every file of KUBECONFIG (the second one here, not the one with the current context)
            Path other =
                    Files.writeString(
                            tmp.resolve("other.yaml"),
                            "apiVersion: v1\nkind: Config\n" + "current-context: prod\n");
            refused(
                    Map.of("KUBECONFIG", other + File.pathSeparator + kc),
                    "client-key " + key,
                    "scan",
                    "--cluster",
                    "-o",
                    key.toString());
            // a ConfigMap report connects through the kubeconfig too
            Path conf = Files.createDirectories(tmp.resolve("conf"));
            Files.writeString(conf.resolve("haproxy.cfg"), CFG);
            refused(
                    none,
                    "client-key " + key,
                    "scan",
                    conf.toString(),
                    "--kubeconfig",
                    k,
                    "--report-configmap",
                    "deja/report",
                    "-o",
                    key.toString());
            // ~/.kube/config
            Path home = Files.createDirectories(tmp.resolve("home"));
            Files.createDirectories(home.resolve(".kube"));
            Files.writeString(
                    home.resolve(".kube/config"),
                    kubeconfig.replace("certs/", "../../kube/certs/"));
            refused(
                    Map.of("HOME", home.toString()),
                    "client-key "
                            + key
                            + " of user alice in kubeconfig "
                            + home.resolve(".kube/config"),
                    "scan",
                    "--cluster",
                    "-o",
                    key.toString());
            // refused before any work: the cluster was never contacted (a connection would be
            // queued by now)
            server.setSoTimeout(200);
            Assertions.assertThrows(
                    SocketTimeoutException.class,
                    server::accept,
                    "deja connected to the cluster before refusing the output");
        }
        assertEquals("-----BEGIN PRIVATE KEY-----\nsecret\n", Files.readString(key));
        // a scan that does not connect does not read them (nor parse its kubeconfigs for them): the
        // kubeconfig
        // itself stays protected
        Path conf = tmp.resolve("conf");
        Path kc = kube.resolve("kc.yaml");
        refused(
                Map.of("KUBECONFIG", kc.toString()),
                "-o " + kc,
                "scan",
                conf.toString(),
                "-o",
                kc.toString());
        Path report = tmp.resolve("kube/certs/report.txt");
        TestSupport.Run plain =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of("KUBECONFIG", kc.toString()),
                        "scan",
                        conf.toString(),
                        "-o",
                        report.toString());
        assertEquals(0, plain.code(), plain.err());
        // a kubeconfig that is not one (or cannot be read) protects what it can and lets the scan
        // report it
        Path bad = Files.writeString(tmp.resolve("bad.yaml"), "clusters: [unclosed\n");
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of(),
                        "scan",
                        "--cluster",
                        "--kubeconfig",
                        bad.toString(),
                        "-o",
                        tmp.resolve("out.txt").toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("not a valid kubeconfig"), r.err());
    }
}
