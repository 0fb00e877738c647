package dev.deja.source;

import dev.deja.engine.InputException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TLS context that trusts the CA certificate(s) of a PEM file instead of the JVM's trust store:
 * {@code --prometheus-ca-file}, {@code --haproxy-runtime-ca-file}. Certificates are still verified
 * (chain and host name); only the roots change.
 */
public final class TrustedCa {
    private TrustedCa() {}

    /**
     * The context trusting {@code caFile}'s certificates; a file that cannot be read or holds no
     * certificate is an {@link InputException} in one line naming the option and the file (exit 2).
     */
    public static SSLContext sslContext(String option, Path caFile) {
        try {
            byte[] pem = Files.readAllBytes(caFile);
            List<Certificate> certs =
                    new ArrayList<>(
                            CertificateFactory.getInstance("X.509")
                                    .generateCertificates(new ByteArrayInputStream(pem)));
            if (certs.isEmpty()) {
                throw new InputException(
                        option + " " + caFile + ": no certificate in it (expected PEM)");
            }
            KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(null, null);
            for (int i = 0; i < certs.size(); i++) {
                ks.setCertificateEntry("ca" + i, certs.get(i));
            }
            TrustManagerFactory tmf =
                    TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (IOException e) {
            throw new InputException(option + " " + caFile + ": cannot read: " + e.getMessage());
        } catch (GeneralSecurityException e) {
            throw new InputException(
                    option
                            + " "
                            + caFile
                            + ": not a PEM certificate: "
                            + String.valueOf(e.getMessage()).lines().findFirst().orElse(""));
        }
    }
}
