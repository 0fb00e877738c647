package dev.deja.source.aws;

import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.auth.StsAssumeRoleCredentialsProvider;
import software.amazon.awssdk.services.sts.model.AssumeRoleRequest;

/**
 * {@code --role-arn}: credentials for another account by STS AssumeRole (session name {@value
 * #SESSION}, with {@code --external-id} when given), signed with the base credentials (the default
 * chain); and the account id a target's credentials belong to, for the report's {@code
 * target.account}. With {@code --aws-endpoint} the STS calls go there too (emulators, tests).
 */
final class AssumeRole {
    static final String SESSION = "deja";

    private AssumeRole() {}

    private static StsClient sts(AwsCredentialsProvider creds, String region, URI endpoint) {
        var b =
                StsClient.builder()
                        .region(Region.of(region))
                        .credentialsProvider(creds)
                        .httpClient(
                                UrlConnectionHttpClient.builder()
                                        .connectionTimeout(Duration.ofSeconds(10))
                                        .socketTimeout(Duration.ofSeconds(30))
                                        .build());
        if (endpoint != null) {
            b.endpointOverride(endpoint);
        }
        return b.build();
    }

    static AwsCredentialsProvider provider(
            AwsCredentialsProvider base,
            String roleArn,
            String externalId,
            String region,
            URI endpoint) {
        return StsAssumeRoleCredentialsProvider.builder()
                .stsClient(sts(base, region, endpoint))
                .refreshRequest(
                        () -> {
                            AssumeRoleRequest.Builder r =
                                    AssumeRoleRequest.builder()
                                            .roleArn(roleArn)
                                            .roleSessionName(SESSION);
                            if (externalId != null && !externalId.isBlank()) {
                                r.externalId(externalId);
                            }
                            return r.build();
                        })
                .build();
    }

    /**
     * The account id of these credentials: STS GetCallerIdentity; when that fails, the account of
     * the role ARN (arn:aws:iam::ACCOUNT:role/NAME); else null (the report then names the target by
     * its profile).
     */
    static String account(
            AwsCredentialsProvider creds, String roleArn, String region, URI endpoint) {
        try (StsClient sts = sts(creds, region, endpoint)) {
            String a = sts.getCallerIdentity().account();
            if (a != null && !a.isBlank()) {
                return a.strip();
            }
        } catch (RuntimeException e) {
            // GetCallerIdentity needs no permission, but an endpoint may not offer it (an emulator)
        }
        return accountOf(roleArn);
    }

    /** The account of an IAM ARN, or null. */
    static String accountOf(String arn) {
        if (arn == null) {
            return null;
        }
        String[] p = arn.split(":", 6);
        return p.length == 6 && p[0].equals("arn") && p[4].matches("\\d{12}") ? p[4] : null;
    }
}
