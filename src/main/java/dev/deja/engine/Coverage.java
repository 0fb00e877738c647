package dev.deja.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * What a scan read and what it could not: one entry per source scope (a file, a Kubernetes kind in
 * a namespace, an AWS call in a region). Any entry that is not {@code READ} makes the scan
 * incomplete (exit 3) unless the user allowed partial results.
 */
public record Coverage(List<Entry> entries) {
    /** The scope of an entry for a source that failed as a whole ("all of kubernetes"). */
    public static String whole(String source) {
        return "all of " + source;
    }

    /**
     * NOTE: read, with something the user should know (an object defined more than once); not a
     * gap.
     */
    public enum Status {
        READ,
        DENIED,
        FAILED,
        SKIPPED,
        NOTE
    }

    /**
     * One scope read, or not, by one source.
     *
     * @param source haproxy | kubernetes | aws
     * @param scope what was read: "examples/haproxy/a.cfg", "Deployment in namespace prod",
     *     "DescribeTargetHealth eu-west-2"
     * @param status read, denied (403/AccessDenied), failed (error, throttled to the end), skipped
     *     (not needed)
     * @param detail why, in one line (null when read)
     * @param count objects read (files: directives or documents), or -1 when not applicable
     * @param target the cluster or account this scope belongs to when the run read live targets;
     *     null for files
     */
    public record Entry(
            String source, String scope, Status status, String detail, long count, Target target) {
        public Entry(String source, String scope, Status status, String detail, long count) {
            this(source, scope, status, detail, count, null);
        }

        public Entry withTarget(Target t) {
            return new Entry(source, scope, status, detail, count, t);
        }
    }

    public Coverage {
        List<Entry> sorted = new ArrayList<>(entries);
        sorted.sort(
                Comparator.comparing(Entry::target, Target.NULLS_FIRST)
                        .thenComparing(Entry::source)
                        .thenComparing(Entry::scope)
                        .thenComparing(e -> e.status().name()));
        entries = List.copyOf(sorted);
    }

    public boolean complete() {
        return entries.stream()
                .allMatch(
                        e ->
                                e.status() == Status.READ
                                        || e.status() == Status.SKIPPED
                                        || e.status() == Status.NOTE);
    }

    public List<Entry> notChecked() {
        return entries.stream()
                .filter(e -> e.status() == Status.DENIED || e.status() == Status.FAILED)
                .toList();
    }

    /** The notes ("Deployment a/b: defined in 2 files ..."). */
    public List<Entry> notes() {
        return entries.stream().filter(e -> e.status() == Status.NOTE).toList();
    }

    /** Whether every entry of this target (null: the files) is read, skipped or a note. */
    public boolean complete(Target t) {
        return entries.stream()
                .filter(e -> Objects.equals(e.target(), t))
                .allMatch(
                        e ->
                                e.status() == Status.READ
                                        || e.status() == Status.SKIPPED
                                        || e.status() == Status.NOTE);
    }

    /** The targets that have an entry, in {@link Target#ORDER}. */
    public List<Target> targets() {
        return entries.stream()
                .map(Entry::target)
                .filter(Objects::nonNull)
                .distinct()
                .sorted()
                .toList();
    }

    public List<String> sources() {
        return entries.stream()
                .filter(e -> e.status() == Status.READ)
                .map(Entry::source)
                .distinct()
                .sorted()
                .toList();
    }
}
