package dev.deja.report.sink;

import dev.deja.engine.InputException;
import dev.deja.source.ListDeadline;
import dev.deja.source.PageGuard;
import dev.deja.source.SourceUnavailableException;
import dev.deja.source.aws.AwsLiveSource;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.profiles.ProfileFile;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@link ReportStore} on S3 with the AWS SDK's S3 client (URLConnection HTTP client, as the ELBv2
 * source), the credentials the AWS source would use, and path-style addressing when an endpoint is
 * given (S3-compatible stores, tests). Checksums only where S3 requires them, so that S3-compatible
 * stores that know no CRC32 trailer accept the uploads. Created by name from {@link
 * ReportStore#s3}.
 */
public final class S3Store implements ReportStore {
    private final S3Client s3;
    private final long listDeadlineMs;

    public S3Store(Options o) {
        if (!o.verbose()) {
            System.setProperty("org.slf4j.simpleLogger.log.software.amazon.awssdk", "off");
        }
        Map<String, String> env = o.env();
        listDeadlineMs = ListDeadline.millis(env);
        URI endpoint =
                o.endpoint() == null
                        ? null
                        : AwsLiveSource.endpoint(o.endpoint()); // validated by the caller
        ProfileFile profiles;
        try {
            profiles = AwsLiveSource.profileFile(env);
        } catch (SourceUnavailableException e) {
            throw new InputException(e.getMessage());
        }
        String profile =
                o.profile() != null
                        ? o.profile()
                        : AwsLiveSource.nonBlank(env.get("AWS_PROFILE")).orElse(null);
        if (o.profile() != null && profiles.profile(o.profile()).isEmpty()) {
            throw new InputException("--profile " + o.profile() + ": no such AWS profile");
        }
        String region =
                Optional.ofNullable(o.region())
                        .or(() -> AwsLiveSource.nonBlank(env.get("AWS_REGION")))
                        .or(() -> AwsLiveSource.nonBlank(env.get("AWS_DEFAULT_REGION")))
                        .or(
                                () ->
                                        profiles.profile(profile == null ? "default" : profile)
                                                .flatMap(p -> p.property("region")))
                        .orElse("us-east-1");
        AwsCredentialsProvider creds =
                AwsLiveSource.credentials(env, profiles, profile, region, null);
        S3ClientBuilder b =
                S3Client.builder()
                        .region(Region.of(region.strip()))
                        .credentialsProvider(creds)
                        .httpClient(
                                UrlConnectionHttpClient.builder()
                                        .connectionTimeout(Duration.ofSeconds(10))
                                        .socketTimeout(Duration.ofSeconds(60))
                                        .build())
                        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                        .overrideConfiguration(
                                ClientOverrideConfiguration.builder()
                                        .defaultProfileFile(profiles)
                                        .defaultProfileName(profile == null ? "default" : profile)
                                        .apiCallTimeout(Duration.ofMinutes(2))
                                        .build());
        if (endpoint != null) {
            b.endpointOverride(endpoint).forcePathStyle(true);
        } else {
            b.crossRegionAccessEnabled(
                    true); // a bucket in another region than the client's: follow it there
        }
        s3 = b.build();
    }

    @Override
    public void put(String bucket, String key, byte[] body, String contentType) throws IOException {
        try {
            s3.putObject(
                    r -> r.bucket(bucket).key(key).contentType(contentType),
                    RequestBody.fromBytes(body));
        } catch (SdkException e) {
            throw new IOException(why(e), e);
        }
    }

    @Override
    public void put(String bucket, String key, Path file, String contentType) throws IOException {
        try {
            s3.putObject(
                    r -> r.bucket(bucket).key(key).contentType(contentType),
                    RequestBody.fromFile(file));
        } catch (SdkException e) {
            throw new IOException(why(e), e);
        }
    }

    /**
     * Most pages read for one listing (up to 1,000 keys each): an endpoint that pages forever is
     * stopped.
     */
    static final int MAX_PAGES = 1_000;

    /**
     * Every key under the prefix, through the SDK's paginator, with the guards of the ELBv2 lists
     * (issue 17.1): the paginator (SDK 2.57.8, javap) asks for another page while the answer has a
     * non-empty NextContinuationToken, whatever IsTruncated says, and remembers no earlier token
     * (see {@code RegionScan.paged}). Here the listing ends when IsTruncated is not true or no
     * token comes, and a token sent again, more than {@link #MAX_PAGES} pages or a listing past
     * {@code DEJA_LIST_DEADLINE} stops it with an {@link IOException}.
     */
    @Override
    public List<Item> list(String bucket, String prefix) throws IOException {
        List<Item> out = new ArrayList<>();
        PageGuard guard =
                new PageGuard(
                        "the endpoint",
                        "NextContinuationToken",
                        MAX_PAGES,
                        "pages",
                        listDeadlineMs);
        int read = 0;
        try {
            ListObjectsV2Request req =
                    ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).build();
            for (ListObjectsV2Response page : s3.listObjectsV2Paginator(req)) {
                read++;
                for (S3Object o : page.contents()) {
                    Instant t = o.lastModified() == null ? Instant.EPOCH : o.lastModified();
                    out.add(new Item(o.key(), t, o.size() == null ? -1 : o.size()));
                }
                String next = page.nextContinuationToken();
                if (!Boolean.TRUE.equals(page.isTruncated()) || next == null || next.isEmpty()) {
                    break;
                }
                PageGuard.Stop stop = guard.stop(next, read);
                if (stop != null) {
                    throw new IOException(stop.message());
                }
            }
        } catch (SdkException e) {
            throw new IOException(why(e), e);
        }
        return out;
    }

    @Override
    public byte[] get(String bucket, String key) throws IOException {
        try {
            return s3.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asByteArray();
        } catch (SdkException e) {
            throw new IOException(why(e), e);
        }
    }

    /**
     * One line: S3's error code and message ("AccessDenied: Access Denied"), or why the call
     * failed.
     */
    static String why(SdkException e) {
        if (e instanceof S3Exception s && s.awsErrorDetails() != null) {
            String code = s.awsErrorDetails().errorCode();
            String msg = s.awsErrorDetails().errorMessage();
            return AwsLiveSource.oneLine(
                    (code == null ? "HTTP " + s.statusCode() : code)
                            + (msg == null || msg.isBlank() ? "" : ": " + msg));
        }
        if (e instanceof SdkClientException
                && e.getMessage() != null
                && e.getMessage().startsWith("Unable to load credentials from any of")) {
            return "no usable AWS credentials (use --profile NAME, AWS_PROFILE, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY"
                    + " or 'aws sso login')";
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = e.getMessage();
        if (root != e && root.getMessage() != null) {
            m =
                    (m == null ? "" : m + " (")
                            + root.getClass().getSimpleName()
                            + ": "
                            + root.getMessage()
                            + (m == null ? "" : ")");
        }
        return AwsLiveSource.oneLine(m);
    }
}
