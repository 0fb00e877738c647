package dev.deja.source.aws;

import dev.deja.engine.Coverage;
import dev.deja.engine.InputException;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.aws.AwsInventory;
import dev.deja.model.aws.AwsInventoryBuilder;
import dev.deja.source.ListDeadline;
import dev.deja.source.LiveSource;
import dev.deja.source.Retry;
import dev.deja.source.ScanRequest;
import dev.deja.source.ScanTrace;
import dev.deja.source.SourceUnavailableException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.profiles.ProfileFile;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.elasticloadbalancingv2.ElasticLoadBalancingV2Client;

/**
 * {@code deja scan --aws}: reads the ELBv2 load balancers of each region into an {@link
 * dev.deja.model.aws.AwsInventory} (see {@link RegionScan} for the calls). AWS SDK v2 on the JDK's
 * URLConnection client, adaptive retry for throttling. Credentials: {@code --profile} (or {@code
 * AWS_PROFILE}), else {@code AWS_ACCESS_KEY_ID}/{@code AWS_SECRET_ACCESS_KEY} of the scan's
 * environment, else the SDK's default chain. Regions: {@code --region} (repeatable), else {@code
 * AWS_REGION}/{@code AWS_DEFAULT_REGION}, else the profile's region. The SDK's own logging stays
 * off unless {@code --verbose}.
 */
public final class AwsLiveSource implements LiveSource {
    /**
     * Attempts per call, retries included: deja's one policy, {@link Retry#ATTEMPTS}, as the
     * Kubernetes source's (README "Retries"); the SDK's adaptive strategy makes them.
     */
    static final int ATTEMPTS = Retry.ATTEMPTS;

    /** Concurrent calls per region (DescribeTargetHealth and the other per-object calls). */
    public static final int CONCURRENCY = 8;

    /** Regions scanned at the same time. */
    static final int REGIONS_AT_ONCE = 4;

    @Override
    public void collect(ScanRequest req, SnapshotBuilder out, ScanTrace trace) {
        if (!req.verbose) {
            System.setProperty("org.slf4j.simpleLogger.log.software.amazon.awssdk", "off");
        }
        Map<String, String> env = req.processEnv == null ? Map.of() : req.processEnv;
        URI endpoint = endpoint(req.awsEndpoint);
        ProfileFile profiles = profileFile(env);
        String profileName =
                req.profile != null ? req.profile : nonBlank(env.get("AWS_PROFILE")).orElse(null);
        checkProfile(req.profile, env, profiles);
        List<String> regions = regions(req, env, profiles, profileName);
        AwsCredentialsProvider base =
                credentials(env, profiles, profileName, regions.get(0), endpoint);
        AwsCredentialsProvider creds =
                req.roleArn == null
                        ? base
                        : AssumeRole.provider(
                                base, req.roleArn, req.externalId, regions.get(0), endpoint);
        checkCredentials(creds, req.roleArn, profileName);
        trace.accountRead = AssumeRole.account(creds, req.roleArn, regions.get(0), endpoint);

        ClientOverrideConfiguration override = clientOverride(profiles, profileName);
        SdkHttpClient http =
                UrlConnectionHttpClient.builder()
                        .connectionTimeout(Duration.ofSeconds(10))
                        .socketTimeout(Duration.ofSeconds(60))
                        .build();
        AwsInventoryBuilder inventory =
                out.builder(AwsInventoryBuilder.class, AwsInventoryBuilder::new);
        ExecutorService regionPool = regionPool(regions.size());
        List<String> unreachableWhy = new ArrayList<>();
        try {
            List<Future<AwsInventory>> scans = new ArrayList<>();
            // each region reports what it read into a builder of its own, merged here in order: a
            // region still
            // running after another failed the whole source cannot add to the report afterwards
            List<SnapshotBuilder> regionOut = new ArrayList<>();
            for (String region : regions) {
                SnapshotBuilder own = new SnapshotBuilder();
                regionOut.add(own);
                scans.add(
                        regionPool.submit(
                                () ->
                                        scanRegion(
                                                region, creds, http, override, endpoint, req,
                                                own)));
            }
            // merged in the order the regions were given, whatever order they finish in
            for (int i = 0; i < regions.size(); i++) {
                merge(
                        regions.get(i),
                        scans.get(i),
                        regionOut.get(i),
                        out,
                        inventory,
                        unreachableWhy);
            }
        } finally {
            regionPool.shutdownNow();
            http.close();
        }
        if (unreachableWhy.size() == regions.size()) {
            throw new SourceUnavailableException("aws", unreachableWhy.get(0));
        }
    }

    /** {@code --profile NAME} names a profile of the shared config or credentials file. */
    private static void checkProfile(
            String profile, Map<String, String> env, ProfileFile profiles) {
        if (profile != null && profiles.profile(profile).isEmpty()) {
            throw new SourceUnavailableException(
                    "aws",
                    "--profile "
                            + profile
                            + ": no such profile in "
                            + configPath(env)
                            + " or "
                            + credentialsPath(env));
        }
    }

    /** Resolves the credentials once, before any region: none usable ends the source. */
    private static void checkCredentials(
            AwsCredentialsProvider creds, String roleArn, String profileName) {
        try {
            AwsCredentials c = creds.resolveCredentials();
            if (c == null) {
                throw new IllegalStateException("no credentials");
            }
        } catch (RuntimeException e) {
            String why =
                    e.getMessage() != null
                                    && e.getMessage()
                                            .startsWith("Unable to load credentials from any of")
                            ? "none found (looked at the environment, web identity token, the shared config and credentials"
                                    + " files, container and instance roles)"
                            : oneLine(e.getMessage());
            if (roleArn != null) {
                throw new SourceUnavailableException(
                        "aws", "cannot assume role " + roleArn + ": " + why);
            }
            throw new SourceUnavailableException(
                    "aws",
                    "no usable AWS credentials"
                            + (profileName == null ? "" : " for profile " + profileName)
                            + ": "
                            + why
                            + " (use --profile NAME, AWS_PROFILE, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or 'aws sso login')");
        }
    }

    /** The clients' retry policy, profile and call timeout, shared by every region. */
    private static ClientOverrideConfiguration clientOverride(
            ProfileFile profiles, String profileName) {
        String pn = profileName == null ? "default" : profileName;
        return ClientOverrideConfiguration.builder()
                // one retry policy with the Kubernetes source: 4 attempts
                // (Retry.ATTEMPTS), exponential
                // back-off; adaptive, so throttling also slows the client's own rate
                .retryStrategy(
                        AwsRetryStrategy.adaptiveRetryStrategy().toBuilder()
                                .maxAttempts(ATTEMPTS)
                                .build())
                .defaultProfileFile(profiles)
                .defaultProfileName(pn)
                .apiCallTimeout(Duration.ofMinutes(2))
                .build();
    }

    /** Daemon threads for the regions, at most {@value #REGIONS_AT_ONCE} at a time. */
    private static ExecutorService regionPool(int regions) {
        AtomicInteger threadNo = new AtomicInteger();
        return Executors.newFixedThreadPool(
                Math.min(REGIONS_AT_ONCE, regions),
                r -> {
                    Thread t = new Thread(r, "deja-aws-region-" + threadNo.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
    }

    /**
     * Waits for one region's scan and merges what it read into {@code out}; an unreachable region
     * adds its reason to {@code unreachableWhy}, rejected credentials end the source.
     */
    private static void merge(
            String region,
            Future<AwsInventory> scan,
            SnapshotBuilder regionOut,
            SnapshotBuilder out,
            AwsInventoryBuilder inventory,
            List<String> unreachableWhy) {
        try {
            AwsInventory inv = scan.get();
            regionOut.build().coverage().entries().forEach(out::coverage);
            inventory.add(inv);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RegionScan.Unreachable u) {
                // one entry for the region: its calls' own entries would say the same thing
                // again
                unreachableWhy.add(u.getMessage());
                out.notRead("aws", "region " + region, Coverage.Status.FAILED, u.getMessage());
            } else if (e.getCause() instanceof RegionScan.AuthRejected a) {
                throw new SourceUnavailableException("aws", a.getMessage());
            } else if (e.getCause() instanceof RuntimeException re) {
                throw re;
            } else {
                throw new IllegalStateException(e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SourceUnavailableException("aws", "interrupted");
        }
    }

    /**
     * One region, on a thread of its own: its clients, and {@value #CONCURRENCY} threads for its
     * calls (API rate limits are per region, so regions scanned at the same time do not slow each
     * other).
     */
    private static AwsInventory scanRegion(
            String region,
            AwsCredentialsProvider creds,
            SdkHttpClient http,
            ClientOverrideConfiguration override,
            URI endpoint,
            ScanRequest req,
            SnapshotBuilder out) {
        var elbB =
                ElasticLoadBalancingV2Client.builder()
                        .region(Region.of(region))
                        .credentialsProvider(creds)
                        .httpClient(http)
                        .overrideConfiguration(override);
        var ec2B =
                Ec2Client.builder()
                        .region(Region.of(region))
                        .credentialsProvider(creds)
                        .httpClient(http)
                        .overrideConfiguration(override);
        if (endpoint != null) {
            elbB.endpointOverride(endpoint);
            ec2B.endpointOverride(endpoint);
        }
        AtomicInteger threadNo = new AtomicInteger();
        ExecutorService pool =
                Executors.newFixedThreadPool(
                        CONCURRENCY,
                        r -> {
                            Thread t =
                                    new Thread(
                                            r,
                                            "deja-aws-"
                                                    + region
                                                    + "-"
                                                    + threadNo.incrementAndGet());
                            t.setDaemon(true);
                            return t;
                        });
        Lazy<Ec2Client> ec2 =
                new Lazy<>(ec2B::build); // the EC2 model is large: built only when needed
        try (ElasticLoadBalancingV2Client elb = elbB.build();
                ec2) {
            long start = System.nanoTime();
            RegionScan scan = new RegionScan(region, elb, ec2, pool, out);
            scan.listDeadlineMs = ListDeadline.millis(req.processEnv);
            AwsInventory inv = scan.run();
            req.progress.read("aws", region, scan.calls());
            if (req.verbose) {
                req.err.printf(
                        "deja: aws: %s: %d API calls in %d ms%n",
                        region, scan.calls(), (System.nanoTime() - start) / 1_000_000);
            }
            return inv;
        } finally {
            pool.shutdownNow();
        }
    }

    /** A client built on first use and closed with the region. */
    static final class Lazy<T extends AutoCloseable> implements Supplier<T>, AutoCloseable {
        private final Supplier<T> factory;
        private T value;

        Lazy(Supplier<T> factory) {
            this.factory = factory;
        }

        @Override
        public synchronized T get() {
            if (value == null) {
                value = factory.get();
            }
            return value;
        }

        @Override
        public synchronized void close() {
            if (value != null) {
                try {
                    value.close();
                } catch (Exception e) {
                    // closing a client releases nothing deja still needs
                }
            }
        }
    }

    public static URI endpoint(String s) {
        if (s == null || s.isBlank()) {
            return null;
        }
        try {
            URI u = new URI(s.strip());
            if (u.getScheme() == null
                    || u.getHost() == null
                    || !(u.getScheme().equals("http") || u.getScheme().equals("https"))) {
                throw new InputException("--aws-endpoint " + s + ": not an http(s) URL");
            }
            return u;
        } catch (URISyntaxException e) {
            throw new InputException("--aws-endpoint " + s + ": not a URL (" + e.getReason() + ")");
        }
    }

    private static Path configPath(Map<String, String> env) {
        return nonBlank(env.get("AWS_CONFIG_FILE"))
                .map(Path::of)
                .orElse(Path.of(System.getProperty("user.home"), ".aws", "config"));
    }

    private static Path credentialsPath(Map<String, String> env) {
        return nonBlank(env.get("AWS_SHARED_CREDENTIALS_FILE"))
                .map(Path::of)
                .orElse(Path.of(System.getProperty("user.home"), ".aws", "credentials"));
    }

    /**
     * The shared config and credentials files named by the scan's environment (or the usual
     * places).
     */
    public static ProfileFile profileFile(Map<String, String> env) {
        ProfileFile.Aggregator agg = ProfileFile.aggregator();
        Path cfg = configPath(env);
        Path cred = credentialsPath(env);
        try {
            if (Files.isRegularFile(cfg)) {
                agg.addFile(
                        ProfileFile.builder()
                                .content(cfg)
                                .type(ProfileFile.Type.CONFIGURATION)
                                .build());
            }
            if (Files.isRegularFile(cred)) {
                agg.addFile(
                        ProfileFile.builder()
                                .content(cred)
                                .type(ProfileFile.Type.CREDENTIALS)
                                .build());
            }
        } catch (RuntimeException e) {
            throw new SourceUnavailableException(
                    "aws",
                    "cannot read AWS config "
                            + cfg
                            + " / "
                            + cred
                            + ": "
                            + oneLine(e.getMessage()));
        }
        return agg.build();
    }

    public static AwsCredentialsProvider credentials(
            Map<String, String> env,
            ProfileFile profiles,
            String profile,
            String region,
            URI endpoint) {
        if (profile != null) {
            return ProfileCredentialsProvider.builder()
                    .profileFile(profiles)
                    .profileName(profile)
                    .build();
        }
        Optional<String> key = nonBlank(env.get("AWS_ACCESS_KEY_ID"));
        Optional<String> secret = nonBlank(env.get("AWS_SECRET_ACCESS_KEY"));
        if (key.isPresent() && secret.isPresent()) {
            Optional<String> token = nonBlank(env.get("AWS_SESSION_TOKEN"));
            return StaticCredentialsProvider.create(
                    token.isPresent()
                            ? AwsSessionCredentials.create(key.get(), secret.get(), token.get())
                            : AwsBasicCredentials.create(key.get(), secret.get()));
        }
        Optional<String> tokenFile = nonBlank(env.get("AWS_WEB_IDENTITY_TOKEN_FILE"));
        Optional<String> roleArn = nonBlank(env.get("AWS_ROLE_ARN"));
        if (tokenFile.isPresent() && roleArn.isPresent()) {
            return WebIdentity.provider(
                    Path.of(tokenFile.get()),
                    roleArn.get(),
                    nonBlank(env.get("AWS_ROLE_SESSION_NAME")).orElse("deja"),
                    region,
                    endpoint);
        }
        return DefaultCredentialsProvider.builder().build();
    }

    private static List<String> regions(
            ScanRequest req, Map<String, String> env, ProfileFile profiles, String profile) {
        Set<String> out = new LinkedHashSet<>();
        for (String r : req.regions) {
            for (String part : r.split(",")) {
                String t = part.strip();
                if (t.isEmpty()) {
                    continue;
                }
                if (!t.matches("[a-z]{2}(-[a-z]+)+-\\d+")) {
                    throw new InputException(
                            "--region " + t + ": not an AWS region name (e.g. eu-west-2)");
                }
                out.add(t);
            }
        }
        if (!out.isEmpty()) {
            return List.copyOf(out);
        }
        Optional<String> r =
                nonBlank(env.get("AWS_REGION")).or(() -> nonBlank(env.get("AWS_DEFAULT_REGION")));
        if (r.isEmpty()) {
            r =
                    profiles.profile(profile == null ? "default" : profile)
                            .flatMap(p -> p.property("region"));
        }
        if (r.isEmpty()) {
            throw new SourceUnavailableException(
                    "aws",
                    "no AWS region: give --region REGION (repeatable), set"
                            + " AWS_REGION, or set a region in the profile");
        }
        return List.of(r.get().strip());
    }

    public static Optional<String> nonBlank(String s) {
        return s == null || s.isBlank() ? Optional.empty() : Optional.of(s.strip());
    }

    public static String oneLine(String s) {
        if (s == null) {
            return "unknown error";
        }
        String t = s.replaceAll("\\s+", " ").strip();
        return t.length() > 300 ? t.substring(0, 297) + "..." : t;
    }
}
