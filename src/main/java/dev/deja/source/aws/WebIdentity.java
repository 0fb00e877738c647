package dev.deja.source.aws;

import dev.deja.source.InputFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.auth.StsAssumeRoleWithWebIdentityCredentialsProvider;
import software.amazon.awssdk.services.sts.model.AssumeRoleWithWebIdentityRequest;

/**
 * Credentials for a pod using EKS IAM roles for service accounts: the projected token in {@code
 * AWS_WEB_IDENTITY_TOKEN_FILE} exchanged for the role in {@code AWS_ROLE_ARN} with STS
 * AssumeRoleWithWebIdentity (unsigned). The token file is read again at every refresh, as
 * Kubernetes rotates it. With {@code --aws-endpoint} the STS call goes there too (emulators,
 * tests).
 */
final class WebIdentity {
    private WebIdentity() {}

    static AwsCredentialsProvider provider(
            Path tokenFile, String roleArn, String sessionName, String region, URI endpoint) {
        var sts =
                StsClient.builder()
                        .region(Region.of(region))
                        .credentialsProvider(AnonymousCredentialsProvider.create())
                        .httpClient(
                                UrlConnectionHttpClient.builder()
                                        .connectionTimeout(Duration.ofSeconds(10))
                                        .build());
        if (endpoint != null) {
            sts.endpointOverride(endpoint);
        }
        return StsAssumeRoleWithWebIdentityCredentialsProvider.builder()
                .stsClient(sts.build())
                .refreshRequest(
                        () ->
                                AssumeRoleWithWebIdentityRequest.builder()
                                        .roleArn(roleArn)
                                        .roleSessionName(sessionName)
                                        .webIdentityToken(read(tokenFile))
                                        .build())
                .build();
    }

    private static String read(Path tokenFile) {
        try {
            return InputFiles.readText(tokenFile).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read the web identity token " + tokenFile + ": " + e.getMessage(), e);
        }
    }
}
