package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.engine.InputException;
import dev.deja.source.ScanRequest;
import io.fabric8.kubernetes.client.Config;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kubeconfig resolution as kubectl does it, without a server. */
class KubeClientsTest {
    @TempDir Path tmp;

    @Test
    void mergesKubeconfigFilesFirstWinsAndKeepsRelativePathsRelativeToTheirFile() throws Exception {
        Path a = Files.createDirectories(tmp.resolve("a")).resolve("config");
        Path b = Files.createDirectories(tmp.resolve("b")).resolve("config");
        Files.writeString(tmp.resolve("b/token"), "file-token\n");
        Files.writeString(
                tmp.resolve("a/ca.crt"),
                "not checked before the connection\n"); // relative to a/config
        Files.createDirectories(tmp.resolve("b/certs"));
        Files.writeString(tmp.resolve("b/certs/alice.crt"), "relative to b/config\n");
        Path key =
                Files.writeString(tmp.resolve("alice.key"), "an absolute path\n").toAbsolutePath();
        Files.writeString(
                a,
                """
                apiVersion: v1
                kind: Config
                clusters:
                  - name: prod
                    cluster: {server: "https://prod.example:6443", certificate-authority: ca.crt}
                contexts:
                  - name: prod
                    context: {cluster: prod, user: alice, namespace: shop}
                """);
        Files.writeString(
                b,
                """
                apiVersion: v1
                kind: Config
                current-context: prod
                clusters:
                  - name: prod
                    cluster: {server: "https://ignored.example:6443"}
                users:
                  - name: alice
                    user: {tokenFile: token, client-certificate: certs/alice.crt, client-key: %s}
                contexts:
                  - name: dev
                    context: {cluster: prod, user: alice}
                """
                        .formatted(key));
        ScanRequest.Builder reqB = ScanRequest.builder();
        reqB.processEnv =
                Map.of(
                        "KUBECONFIG",
                        a + File.pathSeparator + b,
                        "HTTPS_PROXY",
                        "http://proxy:3128",
                        "NO_PROXY",
                        "localhost, .internal");
        Config c = KubeClients.config(reqB.build());
        assertEquals("https://prod.example:6443/", c.getMasterUrl());
        assertEquals(tmp.resolve("a/ca.crt").toAbsolutePath().toString(), c.getCaCertFile());
        assertEquals(
                tmp.resolve("b/certs/alice.crt").toAbsolutePath().toString(),
                c.getClientCertFile());
        assertEquals(key.toString(), c.getClientKeyFile());
        assertEquals("file-token", c.getOauthToken());
        assertEquals("shop", c.getNamespace());
        assertEquals("prod", c.getCurrentContext().getName());
        assertEquals("http://proxy:3128", c.getHttpsProxy());
        assertArrayEquals(new String[] {"localhost", ".internal"}, c.getNoProxy());
        assertEquals(KubeClients.CONNECT_TIMEOUT_MS, c.getConnectionTimeout());
        assertEquals(0, c.getRequestRetryBackoffLimit());

        reqB.processEnv =
                Map.of(
                        "KUBECONFIG",
                        a + File.pathSeparator + b,
                        KubeClients.CONNECT_TIMEOUT_ENV,
                        "20");
        assertEquals(20_000, KubeClients.config(reqB.build()).getConnectionTimeout());
        reqB.processEnv =
                Map.of(
                        "KUBECONFIG",
                        a + File.pathSeparator + b,
                        KubeClients.CONNECT_TIMEOUT_ENV,
                        "5s");
        assertEquals(
                "DEJA_KUBE_CONNECT_TIMEOUT=5s: not a number of seconds from 1 to 600",
                assertThrows(InputException.class, () -> KubeClients.config(reqB.build()))
                        .getMessage());
        reqB.processEnv = Map.of("KUBECONFIG", a + File.pathSeparator + b);

        reqB.context = "dev";
        assertEquals(null, KubeClients.config(reqB.build()).getNamespace());
        reqB.context = "staging";
        InputException e =
                assertThrows(InputException.class, () -> KubeClients.config(reqB.build()));
        assertTrue(
                e.getMessage().startsWith("--context staging: no such context in KUBECONFIG="),
                e.getMessage());
        assertTrue(e.getMessage().endsWith("(contexts: prod, dev)"), e.getMessage());
    }

    /**
     * A kubeconfig given as a pipe is refused at once (never opened: it is read more than once).
     */
    @Test
    void aPipeAsKubeconfigIsRefusedByName() throws Exception {
        ScanRequest.Builder reqB = ScanRequest.builder();
        reqB.processEnv = Map.of();
        reqB.kubeconfig = TestSupport.mkfifo(tmp.resolve("fifo"));
        ScanRequest req = reqB.build();
        assertEquals(
                "--kubeconfig "
                        + req.kubeconfig
                        + ": not a regular file (a pipe, <(command) or device: deja reads"
                        + " the kubeconfig more than once; write it to a file)",
                assertThrows(InputException.class, () -> KubeClients.config(req)).getMessage());
    }

    /**
     * A KUBECONFIG entry that exists but is not a regular file is refused by name, as --kubeconfig
     * is (kubectl reads every entry and fails on one it cannot read; it skips only missing files
     * and empty entries, and so does deja); /dev/null is kubectl's empty kubeconfig.
     */
    @Test
    void aKubeconfigEntryThatIsNotAFileIsRefusedByName() throws Exception {
        Path kc =
                Files.writeString(
                        tmp.resolve("kc"),
                        """
                        apiVersion: v1
                        kind: Config
                        current-context: prod
                        clusters: [{name: prod, cluster: {server: "https://prod.example:6443"}}]
                        contexts: [{name: prod, context: {cluster: prod}}]
                        """);
        Path fifo = TestSupport.mkfifo(tmp.resolve("fifo"));
        Path folder = Files.createDirectories(tmp.resolve("folder"));
        ScanRequest.Builder reqB = ScanRequest.builder();
        for (String list :
                new String[] {
                    kc + File.pathSeparator + fifo, fifo.toString(), fifo + File.pathSeparator + kc
                }) {
            reqB.processEnv = Map.of("KUBECONFIG", list);
            assertEquals(
                    "KUBECONFIG entry "
                            + fifo
                            + ": not a regular file (a pipe, <(command) or device: deja reads"
                            + " the kubeconfig more than once; write it to a file)",
                    assertThrows(InputException.class, () -> KubeClients.config(reqB.build()))
                            .getMessage(),
                    list);
        }
        reqB.processEnv = Map.of("KUBECONFIG", kc + File.pathSeparator + folder);
        assertEquals(
                "KUBECONFIG entry " + folder + ": a folder, not a kubeconfig file",
                assertThrows(InputException.class, () -> KubeClients.contexts(reqB.build()))
                        .getMessage());

        String skipped =
                String.join(
                        File.pathSeparator,
                        "",
                        tmp.resolve("missing").toString(),
                        "/dev/null",
                        kc.toString());
        reqB.processEnv = Map.of("KUBECONFIG", skipped);
        assertEquals("https://prod.example:6443/", KubeClients.config(reqB.build()).getMasterUrl());
        assertEquals(
                List.of("prod"),
                KubeClients.contexts(reqB.build()).names(),
                "empty entries, missing files and /dev/null are passed over, as kubectl does");
    }

    @Test
    void missingFilesAndContextsAreInputErrors() throws Exception {
        ScanRequest.Builder reqB = ScanRequest.builder();
        reqB.processEnv = Map.of();
        reqB.kubeconfig = tmp.resolve("nope");
        assertEquals(
                "--kubeconfig " + tmp.resolve("nope") + ": no such file",
                assertThrows(InputException.class, () -> KubeClients.config(reqB.build()))
                        .getMessage());
        Path kc = tmp.resolve("kc");
        Files.writeString(
                kc,
                "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: [{name: x, context: {cluster: gone}}]\n");
        reqB.kubeconfig = kc;
        assertTrue(
                assertThrows(InputException.class, () -> KubeClients.config(reqB.build()))
                        .getMessage()
                        .contains("no current-context set; pick one with --context (contexts: x)"));
        reqB.context = "x";
        assertEquals(
                kc + ": context x names cluster gone, which has no server",
                assertThrows(InputException.class, () -> KubeClients.config(reqB.build()))
                        .getMessage());
        Files.writeString(kc, "- not\n- a kubeconfig\n");
        assertTrue(
                assertThrows(InputException.class, () -> KubeClients.config(reqB.build()))
                        .getMessage()
                        .endsWith("not a valid kubeconfig (expected a mapping)"));
    }

    /**
     * A kubeconfig deja cannot use is a usage error naming the file and what is wrong: exit 2, one
     * line.
     */
    @Test
    void unusableKubeconfigsAreOneLineNamingTheFile() throws Exception {
        Path kc = tmp.resolve("bad-config");
        String[][] cases = {
            {
                "server: \"https://127.0.0.1:9\", certificate-authority: /no/such/ca.crt",
                "token: x",
                "u",
                ": cluster t: certificate-authority /no/such/ca.crt: no such readable file"
            },
            {
                "server: \"https://127.0.0.1:9\", certificate-authority-data: \"%%%\"",
                "token: x",
                "u",
                ": cluster t: certificate-authority-data is not base64"
            },
            {
                "server: \"not a url\"",
                "token: x",
                "u",
                ": cluster t: server \"not a url\" is not an http(s) URL"
            },
            {
                "server: \"ftp://127.0.0.1:9\"",
                "token: x",
                "u",
                ": cluster t: server \"ftp://127.0.0.1:9\" is not an http(s) URL"
            },
            {
                "server: \"https://127.0.0.1:9\"",
                "client-certificate: /no/such.crt, client-key: /no/such.key",
                "u",
                ": user u: client-certificate /no/such.crt: no such readable file"
            },
            {
                "server: \"https://127.0.0.1:9\"",
                "token: x",
                "ghost",
                ": context t names user ghost, which is not defined"
            },
            {
                "server: \"http://127.0.0.1:9\"",
                "exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: "
                        + tmp.resolve("no-such-plugin")
                        + "}",
                "u",
                ": context t: the exec credential plugin "
                        + tmp.resolve("no-such-plugin")
                        + " is not an executable file"
            },
            {
                "server: \"http://127.0.0.1:9\"",
                "exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: "
                        + "no-such-plugin-on-path}",
                "u",
                ": context t: the exec credential plugin no-such-plugin-on-path"
                        + " is not on the PATH"
            },
        };
        for (String[] c : cases) {
            Files.writeString(
                    kc,
                    "apiVersion: v1\nkind: Config\nclusters: [{name: t, cluster: {"
                            + c[0]
                            + "}}]\n"
                            + "users: [{name: u, user: {"
                            + c[1]
                            + "}}]\ncontexts: [{name: t, context: {cluster: t, user: "
                            + c[2]
                            + "}}]\ncurrent-context: t\n");
            TestSupport.Run r = TestSupport.run("scan", "--cluster", "--kubeconfig", kc.toString());
            assertEquals(2, r.code(), c[3] + "\n" + r.err());
            assertTrue(r.err().startsWith("deja: " + kc + c[3]), r.err());
            assertEquals(1, r.err().lines().count(), r.err());
        }
        TestSupport.Run folder =
                TestSupport.run("scan", "--cluster", "--kubeconfig", tmp.toString());
        assertEquals(2, folder.code());
        assertEquals(
                "deja: --kubeconfig " + tmp + ": a folder, not a kubeconfig file\n", folder.err());
    }
}
