package dev.deja.source;

import dev.deja.engine.InputException;
import java.util.Map;

/**
 * How long one list of a live source (a Kubernetes kind in a namespace, an AWS Describe call
 * followed through its pages) may take in all, retries included, before it is stopped and reported
 * as failed (exit 3): a server that answers every page with one more page never ends a scan.
 * {@value #ENV} (seconds, 1 to 86400) sets it; default {@value #DEFAULT_SECONDS} s.
 */
public final class ListDeadline {
    public static final String ENV = "DEJA_LIST_DEADLINE";
    public static final int DEFAULT_SECONDS = 600;

    private ListDeadline() {}

    /**
     * The deadline in milliseconds; a value that is not a number of seconds from 1 to 86400 is a
     * usage error.
     */
    public static long millis(Map<String, String> env) {
        return secondsMillis(env, ENV, DEFAULT_SECONDS);
    }

    /**
     * A number of seconds from 1 to 86400 read from an environment variable, in milliseconds: the
     * default when unset or blank; any other value is a usage error naming the variable.
     */
    public static long secondsMillis(Map<String, String> env, String name, int defaultSeconds) {
        String v = env == null ? null : env.get(name);
        if (v == null || v.isBlank()) {
            return defaultSeconds * 1000L;
        }
        try {
            long s = Long.parseLong(v.strip());
            if (s >= 1 && s <= 86_400) {
                return s * 1000L;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new InputException(name + "=" + v + ": expected a number of seconds from 1 to 86400");
    }

    /** "the list did not end within 600 s (DEJA_LIST_DEADLINE, 3 pages read)". */
    public static String passed(long deadlineMillis, int pagesRead) {
        return "the list did not end within "
                + deadlineMillis / 1000
                + " s ("
                + ENV
                + ", "
                + pagesRead
                + " pages read)";
    }

    /** "600 s (DEJA_LIST_DEADLINE)". */
    public static String describe(Map<String, String> env) {
        return millis(env) / 1000 + " s (" + ENV + ")";
    }
}
