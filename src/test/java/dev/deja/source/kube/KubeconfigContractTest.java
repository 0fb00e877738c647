package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.source.ScanRequest;
import io.fabric8.kubernetes.client.Config;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Contract of deja's kubeconfig handling ({@link KubeClients#config}) with Fabric8's own: for each
 * kind of kubeconfig (token, token file, client certificate as files and as data, basic auth,
 * insecure-skip-tls-verify, exec plugin, auth-provider, proxy-url, impersonation, several files in
 * KUBECONFIG, a context other than the current one), the server, credentials, TLS settings,
 * namespace, context and proxy deja connects with are the ones Fabric8's {@link
 * Config#autoConfigure(String)} reads from the same files (through its {@code kubeconfig} system
 * property, the KUBECONFIG list). deja's timeouts and concurrency limits are its own and are not
 * compared. One divergence, on purpose: a user's {@code tokenFile} (see {@link
 * #assertSameContract(List, String, String)}).
 */
class KubeconfigContractTest {
    @TempDir Path tmp;

    private Properties saved;

    @BeforeEach
    void isolateFabric8() {
        saved = (Properties) System.getProperties().clone();
        // Fabric8 must read only the files given: no service account, no other system property
        System.setProperty("kubernetes.auth.tryServiceAccount", "false");
    }

    @AfterEach
    void restore() {
        System.setProperties(saved);
    }

    static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    Path file(String name, String text) throws Exception {
        Path f = tmp.resolve(name);
        Files.createDirectories(f.getParent());
        return Files.writeString(f, text);
    }

    /** What a connection is made with, from a Config. */
    static Map<String, Object> contract(Config c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("masterUrl", c.getMasterUrl());
        m.put("caCertData", c.getCaCertData());
        m.put("caCertFile", normalized(c.getCaCertFile()));
        m.put("clientCertData", c.getClientCertData());
        m.put("clientCertFile", normalized(c.getClientCertFile()));
        m.put("clientKeyData", c.getClientKeyData());
        m.put("clientKeyFile", normalized(c.getClientKeyFile()));
        m.put("username", c.getUsername());
        m.put("password", c.getPassword());
        // the bearer token sent: Fabric8 keeps a kubeconfig's token in autoOAuthToken (re-read from
        // the kubeconfig
        // on a 401), deja's direct path sets oauthToken (fixed for the scan); either is what goes
        // on the wire
        m.put("token", c.getOauthToken() != null ? c.getOauthToken() : c.getAutoOAuthToken());
        m.put("trustCerts", c.isTrustCerts());
        m.put("disableHostnameVerification", c.isDisableHostnameVerification());
        m.put("namespace", c.getNamespace());
        m.put("context", c.getCurrentContext() == null ? null : c.getCurrentContext().getName());
        m.put("httpsProxy", c.getHttpsProxy());
        m.put("httpProxy", c.getHttpProxy());
        m.put("impersonateUsername", c.getImpersonateUsername());
        m.put(
                "impersonateGroups",
                c.getImpersonateGroups() == null ? null : Arrays.asList(c.getImpersonateGroups()));
        m.put("authProvider", c.getAuthProvider() == null ? null : c.getAuthProvider().getName());
        return m;
    }

    static String normalized(String path) {
        return path == null ? null : Path.of(path).toAbsolutePath().normalize().toString();
    }

    /**
     * deja's Config and Fabric8's for the same KUBECONFIG list and context (null: the current one).
     */
    void assertSameContract(List<Path> files, String context) {
        assertSameContract(files, context, null);
    }

    /**
     * As {@link #assertSameContract(List, String)}, with the one divergence found: a user's {@code
     * tokenFile}. kubectl reads it (client-go's clientcmd AuthInfo {@code tokenFile}: "a pointer to
     * a file that contains a bearer token"; {@code token} wins when both are set) and so does deja;
     * Fabric8 8.0's Config ignores it and sends no token. {@code tokenFromFile}: the token deja
     * must read from the file where Fabric8 reads none.
     */
    void assertSameContract(List<Path> files, String context, String tokenFromFile) {
        String list = String.join(File.pathSeparator, files.stream().map(Path::toString).toList());
        ScanRequest.Builder reqB = ScanRequest.builder();
        reqB.processEnv =
                Map.of(
                        "KUBECONFIG",
                        list,
                        "PATH",
                        Objects.requireNonNullElse(System.getenv("PATH"), "/usr/bin:/bin"));
        reqB.context = context;
        ScanRequest req = reqB.build();
        Map<String, Object> deja = contract(KubeClients.config(req));
        System.setProperty("kubeconfig", list);
        Map<String, Object> fabric8 = contract(Config.autoConfigure(context));
        if (tokenFromFile != null) {
            assertEquals(
                    null, fabric8.get("token"), "Fabric8 now reads tokenFile: drop this exception");
            assertEquals(tokenFromFile, deja.get("token"), "deja reads tokenFile as kubectl does");
            fabric8.put("token", tokenFromFile);
        }
        assertEquals(
                fabric8, deja, "deja (right) and Fabric8 (left) read " + list + " differently");
        assertTrue(deja.get("masterUrl") != null, "a server was read");
    }

    void assertSameContract(String kubeconfig) throws Exception {
        assertSameContract(List.of(file("config", kubeconfig)), null);
    }

    static final String CLUSTER =
            """
            apiVersion: v1
            kind: Config
            current-context: prod
            clusters:
              - name: prod
                cluster:
                  server: https://api.prod.example:6443
                  certificate-authority-data: %s
            contexts:
              - name: prod
                context: {cluster: prod, user: alice, namespace: shop}
            users:
              - name: alice
                user:
            """
                    .formatted(b64("-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n"));

    @Test
    void bearerToken() throws Exception {
        assertSameContract(CLUSTER + "      token: abc.def.ghi\n");
    }

    @Test
    void tokenFileRelativeToTheKubeconfig() throws Exception {
        file("secrets/token", "file-token\n");
        assertSameContract(
                List.of(file("config", CLUSTER + "      tokenFile: secrets/token\n")),
                null,
                "file-token");
        // token wins over tokenFile, for both
        assertSameContract(CLUSTER + "      token: inline\n      tokenFile: secrets/token\n");
    }

    @Test
    void clientCertificateAsFilesAndAsData() throws Exception {
        file("certs/alice.crt", "-----BEGIN CERTIFICATE-----\nalice\n-----END CERTIFICATE-----\n");
        file("certs/alice.key", "-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----\n");
        assertSameContract(
                CLUSTER
                        + "      client-certificate: certs/alice.crt\n      client-key: certs/alice.key\n");
        assertSameContract(
                CLUSTER
                        + "      client-certificate-data: "
                        + b64("cert")
                        + "\n      client-key-data: "
                        + b64("key")
                        + "\n");
    }

    @Test
    void basicAuth() throws Exception {
        assertSameContract(CLUSTER + "      username: admin\n      password: s3cret\n");
    }

    @Test
    void insecureSkipTlsVerifyAndACaFile() throws Exception {
        file("ca.crt", "-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n");
        assertSameContract(
                """
                apiVersion: v1
                kind: Config
                current-context: lab
                clusters:
                  - name: lab
                    cluster: {server: "https://10.0.0.1:6443", insecure-skip-tls-verify: true}
                  - name: ca
                    cluster: {server: "https://10.0.0.2:6443", certificate-authority: ca.crt}
                contexts:
                  - name: lab
                    context: {cluster: lab, user: bob}
                  - name: with-ca
                    context: {cluster: ca, user: bob}
                users:
                  - name: bob
                    user: {token: t}
                """);
        assertSameContract(List.of(tmp.resolve("config")), "with-ca");
    }

    @Test
    void execPlugin() throws Exception {
        Path plugin =
                file(
                        "bin/credential-plugin",
                        """
                #!/bin/sh
                echo '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"exec-token"}}'
                """);
        Files.setPosixFilePermissions(plugin, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertSameContract(
                CLUSTER
                        + """
                      exec:
                        apiVersion: client.authentication.k8s.io/v1beta1
                        command: %s
                        args: [token]
                """
                                .formatted(plugin));
    }

    /**
     * An exec command with a separator but relative is a path from the kubeconfig's own folder
     * (client-go's GetAuthInfoFileReferences resolves it; Fabric8 too when it reads the file), not
     * from the folder deja runs in.
     */
    @Test
    void execPluginWithARelativeCommand() throws Exception {
        Path plugin =
                file(
                        "kube/bin/credential-plugin",
                        """
                #!/bin/sh
                echo '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"rel-token"}}'
                """);
        Files.setPosixFilePermissions(plugin, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path kc =
                file(
                        "kube/config",
                        CLUSTER
                                + """
                      exec:
                        apiVersion: client.authentication.k8s.io/v1beta1
                        command: ./bin/credential-plugin
                """);
        assertSameContract(List.of(kc), null);
        ScanRequest.Builder reqB = ScanRequest.builder();
        reqB.kubeconfig = kc;
        reqB.processEnv = Map.of("PATH", "/usr/bin:/bin");
        ScanRequest req = reqB.build();
        assertEquals("rel-token", contract(KubeClients.config(req)).get("token"));
    }

    @Test
    void authProvider() throws Exception {
        assertSameContract(
                CLUSTER
                        + """
                      auth-provider:
                        name: oidc
                        config:
                          client-id: deja
                          id-token: header.payload.signature
                          idp-issuer-url: https://issuer.example
                """);
    }

    @Test
    void proxyUrlAndImpersonation() throws Exception {
        assertSameContract(
                CLUSTER.replace(
                                "server: https://api.prod.example:6443",
                                "server: https://api.prod.example:6443\n      proxy-url: http://proxy.corp:3128")
                        + "      token: t\n");
        assertSameContract(
                CLUSTER
                        + "      token: t\n      as: system:serviceaccount:ops:viewer\n      as-groups: [ops, audit]\n");
    }

    @Test
    void severalFilesInKubeconfigFirstDefinitionWins() throws Exception {
        file("b/token", "file-token\n");
        file("a/ca.crt", "-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n");
        Path a =
                file(
                        "a/config",
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
        Path b =
                file(
                        "b/config",
                        """
                apiVersion: v1
                kind: Config
                current-context: prod
                clusters:
                  - name: prod
                    cluster: {server: "https://ignored.example:6443"}
                  - name: staging
                    cluster: {server: "https://staging.example:6443", insecure-skip-tls-verify: true}
                users:
                  - name: alice
                    user: {tokenFile: token}
                contexts:
                  - name: prod
                    context: {cluster: staging, user: alice}
                  - name: staging
                    context: {cluster: staging, user: alice, namespace: qa}
                """);
        assertSameContract(List.of(a, b), null, "file-token");
        assertSameContract(List.of(a, b), "staging", "file-token");
        assertSameContract(List.of(b, a), null, "file-token");
    }
}
