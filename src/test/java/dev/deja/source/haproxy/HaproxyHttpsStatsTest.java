package dev.deja.source.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.deja.TestSupport;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code --haproxy-runtime https://...} against a stats page whose certificate a private CA signed:
 * a real TLS server on the loopback interface (the JDK's HttpsServer) with a CA and a server
 * certificate made here, valid from yesterday for ten years from the test's run (nothing committed,
 * nothing that expires). Without {@code --haproxy-runtime-ca-file} the page is a coverage gap
 * saying what to give; with the CA's PEM it is read and judged; another CA is still refused.
 */
class HaproxyHttpsStatsTest {
    @TempDir Path dir;

    /** A key pair and the certificate of it. */
    record Issued(KeyPair key, X509Certificate cert) {}

    private static KeyPair ecKey() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(256);
        return g.generateKeyPair();
    }

    /** A self-signed CA certificate, valid from a day ago for ten years from now. */
    static Issued ca(String cn) throws GeneralSecurityException, IOException {
        KeyPair k = ecKey();
        X500Name name = new X500Name("CN=" + cn);
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder b =
                new JcaX509v3CertificateBuilder(
                        name,
                        BigInteger.valueOf(now.toEpochMilli()),
                        Date.from(now.minus(Duration.ofDays(1))),
                        Date.from(now.plus(Duration.ofDays(3650))),
                        name,
                        k.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        b.addExtension(
                Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        return new Issued(k, sign(b, k));
    }

    /** A server certificate for 127.0.0.1 (subjectAltName IP), signed by {@code ca}. */
    static Issued server(Issued ca) throws GeneralSecurityException, IOException {
        KeyPair k = ecKey();
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder b =
                new JcaX509v3CertificateBuilder(
                        ca.cert(),
                        BigInteger.valueOf(now.toEpochMilli() + 1),
                        Date.from(now.minus(Duration.ofDays(1))),
                        Date.from(now.plus(Duration.ofDays(3650))),
                        new X500Name("CN=haproxy stats"),
                        k.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        b.addExtension(
                Extension.subjectAlternativeName,
                false,
                new GeneralNames(new GeneralName(GeneralName.iPAddress, "127.0.0.1")));
        b.addExtension(
                Extension.extendedKeyUsage,
                false,
                new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
        return new Issued(k, sign(b, ca.key()));
    }

    private static X509Certificate sign(JcaX509v3CertificateBuilder b, KeyPair signer)
            throws GeneralSecurityException {
        try {
            return new JcaX509CertificateConverter()
                    .getCertificate(
                            b.build(
                                    new JcaContentSignerBuilder("SHA256withECDSA")
                                            .build(signer.getPrivate())));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e);
        }
    }

    static String pem(X509Certificate c) throws GeneralSecurityException {
        return "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(c.getEncoded())
                + "\n-----END CERTIFICATE-----\n";
    }

    /**
     * An https stats page on 127.0.0.1 serving the CSV of HaproxyRuntimeTest.STAT (fe_small 10/10).
     */
    static HttpsServer statsPage(Issued server, Issued ca) throws Exception {
        char[] pw = "test".toCharArray();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry(
                "server",
                server.key().getPrivate(),
                pw,
                new Certificate[] {server.cert(), ca.cert()});
        KeyManagerFactory kmf =
                KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, pw);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        HttpsServer s =
                HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        s.setHttpsConfigurator(new HttpsConfigurator(tls));
        byte[] csv = HaproxyRuntimeTest.STAT.getBytes(StandardCharsets.UTF_8);
        s.createContext(
                "/",
                ex -> {
                    ex.getResponseHeaders().set("Content-Type", "text/plain");
                    ex.sendResponseHeaders(200, csv.length);
                    try (OutputStream o = ex.getResponseBody()) {
                        o.write(csv);
                    }
                });
        s.start();
        return s;
    }

    private static String detail(JsonNode report, String scope) {
        for (JsonNode e : report.path("coverage").path("entries")) {
            if (e.path("scope").asString().equals(scope)) {
                return e.path("status").asString() + ": " + e.path("detail").asString();
            }
        }
        throw new AssertionError("no coverage entry " + scope + ": " + report);
    }

    /**
     * {@code deja scan --format json --haproxy-runtime URL MORE... --rules
     * haproxy-sessions-near-limit}.
     */
    private static TestSupport.Run scanPage(String url, String... more) {
        List<String> args =
                new ArrayList<>(List.of("scan", "--format", "json", "--haproxy-runtime", url));
        args.addAll(List.of(more));
        args.addAll(List.of("--rules", "haproxy-sessions-near-limit"));
        return TestSupport.run(args.toArray(String[]::new));
    }

    /** {@code deja scan --haproxy-runtime URL --haproxy-runtime-ca-file FILE}, nothing else. */
    private static TestSupport.Run withCaFile(String url, Path caFile) {
        return TestSupport.run(
                "scan", "--haproxy-runtime", url, "--haproxy-runtime-ca-file", caFile.toString());
    }

    @Test
    void anHttpsStatsPageSignedByAPrivateCaIsReadWithItsCa() throws Exception {
        Issued ca = ca("deja test private CA");
        Issued other = ca("some other CA");
        HttpsServer s = statsPage(server(ca), ca);
        try {
            String url = "https://127.0.0.1:" + s.getAddress().getPort() + "/stats;csv";
            String scope = "stats page " + url;
            Path caPem = dir.resolve("stats-ca.pem");
            Files.writeString(caPem, pem(ca.cert()));
            Path otherPem = dir.resolve("other-ca.pem");
            Files.writeString(otherPem, pem(other.cert()));

            // the JVM's trust store does not know the private CA: a gap saying what to give
            TestSupport.Run r = scanPage(url);
            assertEquals(3, r.code(), r.err() + r.out());
            String d = detail(TestSupport.json(r.out()), scope);
            assertTrue(
                    d.startsWith("failed: TLS failed: ")
                            && d.endsWith(
                                    "(a certificate signed by a private CA: give that CA's certificate"
                                            + " with --haproxy-runtime-ca-file FILE)"),
                    d);

            // with the CA's certificate: read, and the frontend at its limit fires
            r = scanPage(url, "--haproxy-runtime-ca-file", caPem.toString());
            assertEquals(1, r.code(), r.err() + r.out());
            JsonNode report = TestSupport.json(r.out());
            assertTrue(detail(report, scope).startsWith("read"), detail(report, scope));
            assertEquals(1, report.path("findings").size(), r.out());
            assertTrue(
                    report.path("findings")
                            .get(0)
                            .path("message")
                            .asString()
                            .startsWith(
                                    "frontend fe_small at " + url + " reached 10 of 10 sessions"),
                    r.out());

            // a CA file replaces the trust store, it does not add to it: another CA is refused
            r = scanPage(url, "--haproxy-runtime-ca-file", otherPem.toString());
            assertEquals(3, r.code(), r.err() + r.out());
            d = detail(TestSupport.json(r.out()), scope);
            assertTrue(
                    d.startsWith("failed: TLS failed: ")
                            && d.endsWith(
                                    "(trusting only the CA of --haproxy-runtime-ca-file "
                                            + otherPem
                                            + ")"),
                    d);

            // the same from deja.yaml: sources.haproxyRuntime, caFile relative to the file
            Path cfg = dir.resolve("deja.yaml");
            Files.writeString(
                    cfg,
                    "sources:\n  haproxyRuntime:\n    addresses: [\""
                            + url
                            + "\"]\n    timeout: 10s\n    caFile: stats-ca.pem\n"
                            + "rules:\n  enabled: [haproxy-sessions-near-limit]\n");
            r = TestSupport.run("scan", "--config", cfg.toString(), "--format", "json");
            assertEquals(1, r.code(), r.err() + r.out());
            assertEquals(1, TestSupport.json(r.out()).path("findings").size(), r.out());
        } finally {
            s.stop(0);
        }
    }

    @Test
    void aBadCaFileIsOneLineAndExit2() throws Exception {
        String url = "https://127.0.0.1:8404/stats;csv";
        Path notPem = dir.resolve("ca.pem");
        Files.writeString(notPem, "user:password\n");
        TestSupport.Run r = withCaFile(url, notPem);
        assertEquals(2, r.code(), r.err());
        assertEquals(
                "deja: --haproxy-runtime-ca-file "
                        + notPem
                        + ": not a PEM certificate: No certificate data found",
                r.err().strip(),
                r.err());

        Path missing = dir.resolve("missing.pem");
        r = withCaFile(url, missing);
        assertEquals(2, r.code(), r.err());
        assertTrue(
                r.err().contains("--haproxy-runtime-ca-file " + missing + ": cannot read"),
                r.err());
        assertTrue(!r.err().contains("\tat "), r.err());

        Path good = dir.resolve("good.pem");
        Files.writeString(good, pem(ca("deja test private CA").cert()));
        r = TestSupport.run("scan", "--haproxy-runtime-ca-file", good.toString(), "x.cfg");
        assertEquals(2, r.code(), r.err());
        assertTrue(
                r.err().contains("--haproxy-runtime-ca-file: only with --haproxy-runtime"),
                r.err());
    }
}
