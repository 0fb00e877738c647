package dev.deja.source.kube;

import dev.deja.engine.Catalog;
import dev.deja.engine.InlineSuppression;
import dev.deja.engine.InputException;
import dev.deja.engine.Location;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.kube.FleetWorkloads;
import dev.deja.model.kube.Meta;
import dev.deja.source.ScanRequest;

/**
 * The {@code deja.dev/ignore: "<rule-id>[,<rule-id>] <reason>"} annotation: suppresses those rules'
 * findings on the annotated object. Off under {@code --no-annotation-suppressions}. An unknown rule
 * id or a missing reason is reported on stderr (the annotation still applies to the ids that are
 * known).
 */
public final class AnnotationSuppressions {
    static final String ANNOTATION = "deja.dev/ignore";

    private AnnotationSuppressions() {}

    static void record(Meta meta, ScanRequest req, SnapshotBuilder out) {
        String value = meta.annotation(ANNOTATION);
        if (value == null || req.noAnnotationSuppressions) {
            return;
        }
        String v = value.strip();
        int sp = idsEnd(v);
        String ids = v.substring(0, sp);
        String reason = v.substring(sp).strip();
        String origin =
                meta.file() == null
                        ? "annotation " + ANNOTATION + " on " + meta.display()
                        : meta.file() + (meta.line() == null ? "" : ":" + meta.line());
        if (reason.isEmpty()) {
            // one rule for every suppression (--ignore-file, # deja:ignore): a reason is required.
            // In a file it is an
            // input error naming file:line; on a live object (which the scan cannot refuse up
            // front) the
            // suppression does not apply and a warning says why
            String why =
                    ANNOTATION
                            + " on "
                            + meta.display()
                            + " gives no reason (write \"<rule-id> <reason>\": why"
                            + " the risk is accepted)";
            if (meta.file() != null) {
                throw new InputException(origin + ": " + why);
            }
            req.err.println("deja: warning: " + origin + ": " + why + "; it suppresses nothing");
            return;
        }
        suppress(meta, ids, reason, origin, req, true, out);
    }

    /**
     * The annotations on the workloads a fleet scan kept of each cluster ({@link FleetWorkloads}),
     * for the findings of the rules that compare clusters (k8s-critical-in-one-cluster): the same
     * annotation as on any other object, read from the workload in the cluster where it runs. The
     * warnings (no reason, an unknown rule) were printed when each cluster was read (or, for a
     * saved fleet view, are printed here once), and an annotation without a reason suppresses
     * nothing.
     */
    public static void recordFleet(
            FleetWorkloads fleet, ScanRequest req, SnapshotBuilder out, boolean warn) {
        if (req.noAnnotationSuppressions) {
            return;
        }
        for (FleetWorkloads.Cluster c : fleet.clusters()) {
            for (Meta meta : c.workloads()) {
                String value = meta.annotation(ANNOTATION);
                if (value == null) {
                    continue;
                }
                String v = value.strip();
                int sp = idsEnd(v);
                String origin =
                        "annotation "
                                + ANNOTATION
                                + " on "
                                + meta.display()
                                + " in cluster "
                                + c.name();
                String reason = v.substring(sp).strip();
                if (reason.isEmpty()) {
                    if (warn) {
                        req.err.println(
                                "deja: warning: "
                                        + origin
                                        + " gives no reason (write \"<rule-id> <reason>\": why"
                                        + " the risk is accepted); it suppresses nothing");
                    }
                    continue;
                }
                suppress(meta, v.substring(0, sp), reason, origin, req, warn, out);
            }
        }
    }

    /** {@code warn} false: unknown rule ids are skipped without a warning. */
    private static void suppress(
            Meta meta,
            String ids,
            String reason,
            String origin,
            ScanRequest req,
            boolean warn,
            SnapshotBuilder out) {
        Catalog catalog = Catalog.packaged();
        for (String id : ids.split(",")) {
            String t = id.strip();
            if (t.isEmpty()) {
                continue;
            }
            if (catalog.rule(t).isEmpty()) {
                if (!warn) {
                    continue;
                }
                req.err.println(
                        "deja: warning: "
                                + origin
                                + ": "
                                + ANNOTATION
                                + " on "
                                + meta.display()
                                + " names unknown rule '"
                                + t
                                + "'");
                continue;
            }
            out.suppress(
                    new InlineSuppression(
                            catalog.canonicalRuleId(t),
                            Location.kube(meta.kind(), meta.namespace(), meta.name())
                                    .withFile(meta.file(), null),
                            reason,
                            origin));
        }
    }

    /**
     * Where the rule ids end: at the first space that does not follow a comma, so that "a,b reason"
     * and "a, b reason" both name two rules.
     */
    static int idsEnd(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (Character.isWhitespace(s.charAt(i))) {
                int j = i;
                while (j < s.length() && Character.isWhitespace(s.charAt(j))) {
                    j++;
                }
                boolean listGoesOn = s.charAt(i - 1) == ',' || j < s.length() && s.charAt(j) == ',';
                if (!listGoesOn) {
                    return i;
                }
                i = j - 1;
            }
        }
        return s.length();
    }
}
