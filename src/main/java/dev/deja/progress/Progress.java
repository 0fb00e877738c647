package dev.deja.progress;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a live scan has read so far, told as it goes: each source calls {@link #read} when a scope
 * (a Kubernetes kind, an AWS region) is read whole, from any thread. {@link #NONE} tells nothing
 * (the default; --verbose prints a line per scope instead); {@link #on(StatusLine)} keeps one line
 * on a terminal's stderr up to date: "deja: reading: kubernetes 7 kinds, 1,234 objects; aws 1
 * region".
 */
public interface Progress {
    /** A scope of {@code source} read whole: {@code items} objects (or API calls) in it. */
    void read(String source, String scope, long items);

    /** Says nothing. */
    Progress NONE = (source, scope, items) -> {};

    /** Tells it on {@code line}, one line rewritten in place. */
    static Progress on(StatusLine line) {
        return new Progress() {
            private final Map<String, long[]> bySource = new TreeMap<>();

            @Override
            public synchronized void read(String source, String scope, long items) {
                long[] n = bySource.computeIfAbsent(source, k -> new long[2]);
                n[0]++;
                n[1] += Math.max(0, items);
                StringBuilder sb = new StringBuilder("deja: reading: ");
                String sep = "";
                for (Map.Entry<String, long[]> e : bySource.entrySet()) {
                    boolean kube = e.getKey().equals("kubernetes");
                    long scopes = e.getValue()[0];
                    sb.append(sep)
                            .append(e.getKey())
                            .append(' ')
                            .append(scopes)
                            .append(
                                    kube
                                            ? (scopes == 1 ? " kind" : " kinds")
                                            : scopes == 1 ? " region" : " regions")
                            .append(", ")
                            .append(String.format(Locale.ROOT, "%,d", e.getValue()[1]))
                            .append(kube ? " objects" : " API calls");
                    sep = "; ";
                }
                line.status(sb.append(" (last: ").append(scope).append(')').toString());
            }
        };
    }
}
