package dev.deja.engine;

import java.util.Comparator;

/**
 * Which live target a finding, coverage entry or snapshot part belongs to, when one run reads
 * several: a Kubernetes cluster ({@code cluster}: the kubeconfig context name, or {@code
 * --cluster-name}) and/or an AWS account ({@code account}: the 12-digit account id). Files have no
 * target (null). At least one field is set.
 */
public record Target(String cluster, String account) implements Comparable<Target> {

    public Target {
        if (cluster != null && cluster.isBlank()) {
            cluster = null;
        }
        if (account != null && account.isBlank()) {
            account = null;
        }
        if (cluster == null && account == null) {
            throw new IllegalArgumentException("a target names a cluster or an account");
        }
    }

    public static Target cluster(String name) {
        return new Target(name, null);
    }

    public static Target account(String id) {
        return new Target(null, id);
    }

    /** "cluster prod", "account 123456789012", "cluster prod, account 123456789012". */
    public String label() {
        if (cluster != null && account != null) {
            return "cluster " + cluster + ", account " + account;
        }
        return cluster != null ? "cluster " + cluster : "account " + account;
    }

    /**
     * A stable key ("c:prod", "a:123456789012", "c:prod|a:1234..."): identity in a fleet is (key,
     * fingerprint).
     */
    public String key() {
        return (cluster == null ? "" : "c:" + cluster)
                + (cluster != null && account != null ? "|" : "")
                + (account == null ? "" : "a:" + account);
    }

    private static final Comparator<String> NULLS_LAST =
            Comparator.nullsLast(Comparator.naturalOrder());

    /** Clusters (by name) first, then accounts; null (no target: files) before every target. */
    public static final Comparator<Target> ORDER =
            Comparator.comparing((Target t) -> t.cluster(), NULLS_LAST)
                    .thenComparing(Target::account, NULLS_LAST);

    public static final Comparator<Target> NULLS_FIRST = Comparator.nullsFirst(ORDER);

    @Override
    public int compareTo(Target o) {
        return ORDER.compare(this, o);
    }
}
