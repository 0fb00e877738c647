package dev.deja.source.kube;

import dev.deja.engine.Catalog;
import dev.deja.engine.InlineSuppression;
import dev.deja.engine.InputException;
import dev.deja.engine.Location;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.kube.Meta;
import dev.deja.source.ScanRequest;

/**
 * The {@code deja.dev/ignore: "<rule-id>[,<rule-id>] <reason>"} annotation: suppresses those rules'
 * findings on the annotated object. Off under {@code --no-annotation-suppressions}. An unknown rule
 * id or a missing reason is reported on stderr (the annotation still applies to the ids that are
 * known).
 */
final class AnnotationSuppressions {
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
        Catalog catalog = Catalog.packaged();
        for (String id : ids.split(",")) {
            String t = id.strip();
            if (t.isEmpty()) {
                continue;
            }
            if (catalog.rule(t).isEmpty()) {
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
