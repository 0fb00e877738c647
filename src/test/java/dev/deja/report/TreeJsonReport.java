package dev.deja.report;

import dev.deja.engine.CaseInfo;
import dev.deja.engine.Coverage;
import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.RuleMetadata;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import dev.deja.engine.Suppressions;
import dev.deja.engine.Target;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.TreeSet;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON report as it was built before it was streamed (JsonReporter at 0.1.0, schema 1.2): a
 * whole Jackson tree, then printed. Kept only to prove the streamed report gives the same bytes and
 * the same tree.
 */
final class TreeJsonReport {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private TreeJsonReport() {}

    static ObjectNode tree(Report report) {
        return tree(report, true);
    }

    /**
     * A finding as listed in {@code findings}: with "new" against a baseline and its targets in a
     * fleet report.
     */
    private static ObjectNode listed(Finding f, Report report) {
        ObjectNode o = finding(f, report);
        if (report.baseline() != null) {
            o.put("new", report.baseline().isNew(f));
        }
        if (report.fleet() != null) {
            ArrayNode on = o.putArray("targets");
            report.fleet().targetsOf(f).forEach(on::add);
        }
        return o;
    }

    /**
     * With {@code withFindings} false, {@code findings} is an empty array for the caller to fill.
     */
    private static ObjectNode tree(Report report, boolean withFindings) {
        ScanResult r = report.result();
        ObjectNode root = F.objectNode();
        root.put("schemaVersion", JsonReporter.SCHEMA_VERSION);
        ObjectNode tool = root.putObject("tool");
        tool.put("name", "deja");
        tool.put("version", report.toolVersion());
        tool.put("informationUri", "https://github.com/deja-dev/deja");

        ObjectNode summary = root.putObject("summary");
        summary.put("total", r.findings().size());
        ObjectNode bySev = summary.putObject("bySeverity");
        for (int i = Severity.values().length - 1; i >= 0; i--) {
            bySev.put(Severity.values()[i].id(), r.count(Severity.values()[i]));
        }
        summary.put("suppressed", r.suppressed().size());
        summary.put("failOn", report.failOn() == null ? "none" : report.failOn().id());
        summary.put("failed", report.failed());
        summary.put("complete", r.coverage().complete());
        ArrayNode srcs = summary.putArray("sources");
        r.coverage().sources().forEach(srcs::add);
        ArrayNode rules = summary.putArray("rulesRun");
        r.rulesRun().forEach(rules::add);

        BaselineDiff b = report.baseline();
        if (b != null) {
            ObjectNode bo = root.putObject("baseline");
            bo.put("source", b.source());
            bo.put("found", b.found());
            bo.put("findings", b.baselineTotal());
            bo.put("new", b.newFindings().size());
            bo.put("unchanged", b.unchanged());
            bo.put("fixed", b.fixed());
        }
        if (report.fleet() != null) {
            root.set("fleet", fleet(report.fleet()));
        }
        ArrayNode findings = root.putArray("findings");
        TreeSet<String> caseIds = new TreeSet<>();
        for (Finding f : r.findings()) {
            if (withFindings) {
                findings.add(listed(f, report));
            }
            caseIds.addAll(f.caseIds());
        }
        ArrayNode suppressed = root.putArray("suppressed");
        for (ScanResult.Suppressed s : r.suppressed()) {
            ObjectNode o = finding(s.finding(), report);
            o.put("suppressionReason", s.reason());
            o.put("suppressedBy", s.origin());
            suppressed.add(o);
        }
        ArrayNode expired = root.putArray("expiredSuppressions");
        for (Suppressions.Entry e : r.expired()) {
            ObjectNode o = expired.addObject();
            o.put("rule", e.rule());
            o.put("object", e.object());
            o.put("reason", e.reason());
            o.put("expires", String.valueOf(e.expires()));
            o.put("origin", e.origin());
        }
        ArrayNode cases = root.putArray("cases");
        for (String id : caseIds) {
            CaseInfo ci = report.catalog().caseInfo(id).orElse(null);
            if (ci != null) {
                ObjectNode o = cases.addObject();
                o.put("id", ci.id());
                o.put("title", ci.title());
                o.put("organisation", ci.organisation());
                o.put("date", ci.date());
                o.put("summary", ci.oneLine());
                o.put("url", ci.libraryUrl());
            }
        }
        ArrayNode targets = root.putArray("targets");
        for (Target t : r.targets()) {
            ObjectNode o = target(t);
            o.put("complete", r.coverage().complete(t));
            ObjectNode tb = o.putObject("findings").putObject("bySeverity");
            for (int i = Severity.values().length - 1; i >= 0; i--) {
                tb.put(Severity.values()[i].id(), r.count(t, Severity.values()[i]));
            }
            targets.add(o);
        }
        ObjectNode cov = root.putObject("coverage");
        cov.put("complete", r.coverage().complete());
        ArrayNode entries = cov.putArray("entries");
        for (Coverage.Entry e : r.coverage().entries()) {
            ObjectNode o = entries.addObject();
            o.put("source", e.source());
            o.put("scope", e.scope());
            o.put("status", e.status().name().toLowerCase(Locale.ROOT));
            if (e.detail() != null) {
                o.put("detail", e.detail());
            }
            if (e.count() >= 0) {
                o.put("count", e.count());
            }
            if (e.target() != null) {
                o.set("target", target(e.target()));
            }
        }
        return root;
    }

    /**
     * The {@code fleet} object of a merged report: when, the stale limit, each target's status,
     * what was read.
     */
    static ObjectNode fleet(Fleet fl) {
        ObjectNode o = F.objectNode();
        o.put("asOf", fl.asOf().toString());
        o.put("staleAfterSeconds", fl.stale().toSeconds());
        o.put("reportsRead", fl.reportsRead());
        o.put("superseded", fl.superseded());
        ArrayNode bad = o.putArray("unreadable");
        fl.unreadable().forEach(bad::add);
        ArrayNode ts = o.putArray("targets");
        for (Fleet.TargetStatus t : fl.targets()) {
            ObjectNode to = ts.addObject();
            to.put("name", t.name());
            if (t.cluster() != null) {
                to.put("cluster", t.cluster());
            }
            if (t.account() != null) {
                to.put("account", t.account());
            }
            to.put("report", t.origin());
            to.put("lastScan", t.lastScan().truncatedTo(ChronoUnit.SECONDS).toString());
            to.put("ageSeconds", Math.max(0, t.age(fl.asOf()).toSeconds()));
            to.put("stale", t.isStale());
            to.put("complete", t.complete());
            to.put("total", t.total());
            ObjectNode bySev = to.putObject("bySeverity");
            for (int i = Severity.values().length - 1; i >= 0; i--) {
                bySev.put(
                        Severity.values()[i].id(),
                        t.bySeverity().getOrDefault(Severity.values()[i], 0));
            }
            ArrayNode gaps = to.putArray("notChecked");
            t.gaps().forEach(gaps::add);
        }
        return o;
    }

    /**
     * One finding as in the report's {@code findings} (used by --notify), with "new" when there is
     * a baseline.
     */
    public static ObjectNode findingNode(Finding f, Report report) {
        ObjectNode o = finding(f, report);
        if (report.baseline() != null) {
            o.put("new", report.baseline().isNew(f));
        }
        return o;
    }

    static ObjectNode finding(Finding f, Report report) {
        ObjectNode o = F.objectNode();
        o.put("ruleId", f.ruleId());
        RuleMetadata meta = report.catalog().rule(f.ruleId()).orElse(null);
        if (meta != null) {
            o.put("title", meta.title());
            o.put("source", meta.source().id());
        }
        o.put("severity", f.severity().id());
        ArrayNode ids = o.putArray("caseIds");
        f.caseIds().forEach(ids::add);
        o.put("object", f.location().display());
        o.put("message", f.message());
        o.put("remediation", f.remediation());
        o.set("location", location(f.location()));
        ArrayNode rel = o.putArray("related");
        f.related().forEach(rel::add);
        ArrayNode notes = o.putArray("notes");
        f.notes().forEach(notes::add);
        if (f.key() != null) {
            o.put("key", f.key());
        }
        o.put("fingerprint", f.fingerprint());
        if (f.target() != null) {
            o.set("target", target(f.target()));
        }
        Evidence ev = report.evidence(f);
        if (ev != null) {
            o.set("evidence", ev.json());
        }
        if (!f.caseIds().isEmpty()) {
            o.put("helpUri", "https://incidentlib-api.benchlet.com/cases/" + f.caseIds().get(0));
        }
        return o;
    }

    /** {"cluster": ..., "account": ...}, absent fields left out. */
    static ObjectNode target(Target t) {
        ObjectNode o = F.objectNode();
        if (t.cluster() != null) {
            o.put("cluster", t.cluster());
        }
        if (t.account() != null) {
            o.put("account", t.account());
        }
        return o;
    }

    static ObjectNode location(Location l) {
        ObjectNode o = F.objectNode();
        if (l.file() != null) {
            o.put("file", l.file());
        }
        if (l.key() != null) {
            o.put("key", l.key());
        }
        if (l.line() != null) {
            o.put("line", l.line());
        }
        if (l.kind() != null) {
            o.put("kind", l.kind());
        }
        if (l.namespace() != null) {
            o.put("namespace", l.namespace());
        }
        if (l.name() != null) {
            o.put("name", l.name());
        }
        if (l.arn() != null) {
            o.put("arn", l.arn());
        }
        if (l.region() != null) {
            o.put("region", l.region());
        }
        return o;
    }
}
