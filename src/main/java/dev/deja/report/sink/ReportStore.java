package dev.deja.report.sink;

import dev.deja.engine.InputException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * An object store that keeps reports: S3 ({@code --output json=s3://bucket/key}, {@code deja report
 * merge s3://bucket/prefix/}). The implementation, {@link S3Store}, is loaded only when {@link #s3}
 * is called, so that runs which do not use S3 load none of the AWS SDK's S3 classes. Errors are
 * {@link IOException}s whose message is one line naming the object.
 */
public interface ReportStore {

    /** One stored object: its key, when it was last written, its size in bytes. */
    record Item(String key, Instant lastModified, long size) {}

    /**
     * How to reach the store: the AWS source's credential options ({@code --profile}, the
     * environment, the shared config and credentials files, web identity), a region ({@code
     * --region}, else {@code AWS_REGION}, else the profile's; S3 follows a bucket to its own
     * region), and an endpoint for S3-compatible stores and tests (path-style addressing then).
     */
    record Options(
            String profile,
            String region,
            String endpoint,
            Map<String, String> env,
            boolean verbose) {
        public Options {
            env = env == null ? Map.of() : env;
        }
    }

    void put(String bucket, String key, byte[] body, String contentType) throws IOException;

    /** Uploads a file's content (a report too large to hold in memory). */
    void put(String bucket, String key, Path file, String contentType) throws IOException;

    /** Every object under {@code prefix} (all pages), in key order. */
    List<Item> list(String bucket, String prefix) throws IOException;

    byte[] get(String bucket, String key) throws IOException;

    /** The S3 store. */
    static ReportStore s3(Options options) {
        return new S3Store(options);
    }

    /** {@code s3://bucket/key}: a bucket and a key (or key prefix, possibly empty). */
    record S3Uri(String bucket, String key) {
        /**
         * S3's bucket naming rules (3-63 lowercase letters, digits, dots and hyphens, a letter or
         * digit at each end).
         */
        private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

        public static boolean is(String s) {
            return s != null && s.strip().regionMatches(true, 0, "s3://", 0, 5);
        }

        /**
         * Parses {@code s3://bucket/key}; {@code what} starts the error message ("--output
         * json=s3://...").
         */
        public static S3Uri parse(String s, String what) {
            String v = s.strip().substring(5);
            int slash = v.indexOf('/');
            String bucket = slash < 0 ? v : v.substring(0, slash);
            String key = slash < 0 ? "" : v.substring(slash + 1);
            if (!BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
                throw new InputException(
                        what
                                + ": '"
                                + bucket
                                + "' is not an S3 bucket name (3-63 lowercase letters,"
                                + " digits, '.' and '-'), e.g. s3://my-reports/deja/{cluster}/{date}.json");
            }
            return new S3Uri(bucket, key);
        }

        @Override
        public String toString() {
            return "s3://" + bucket + "/" + key;
        }
    }
}
