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
import java.io.IOException;
import java.io.Writer;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON report, schema {@value #SCHEMA_VERSION}
 * (src/main/resources/dev/deja/report/deja-report.schema.json). Deterministic: no timestamps or
 * durations, findings in engine order, so the same input gives the same bytes.
 */
public final class JsonReporter implements Reporter {
    public static final String SCHEMA_VERSION = "1.4";

    /**
     * Writes the report as it is made, straight through the streaming generator: no tree, not even
     * per finding (a fleet report holds 100,000s of findings; a scan with thousands of findings
     * paid more for the tree than for the text). Same bytes as {@link #tree} printed by {@link
     * JsonText#writePretty}.
     */
    @Override
    public void write(Report report, Writer out) throws IOException {
        try (JsonGenerator g = JsonText.generator(out)) {
            report(report, JsonOut.to(g));
        }
        out.write("\n");
        out.flush();
    }

    /** The report as a JSON tree (also used by other outputs that embed it). */
    public static ObjectNode tree(Report report) {
        JsonOut.Tree t = new JsonOut.Tree();
        report(report, t);
        return (ObjectNode) t.root();
    }

    /** The whole report: its one definition, for the text and the tree alike. */
    private static void report(Report report, JsonOut o) {
        ScanResult r = report.result();
        o.startObject();
        o.put("schemaVersion", SCHEMA_VERSION);
        o.startObject("tool");
        o.put("name", "deja");
        o.put("version", report.toolVersion());
        o.put("informationUri", "https://github.com/deja-dev/deja");
        o.endObject();

        summary(report, o);
        if (ScanNotes.scanned(report)
                != null) { // the live cluster read: context, server, namespaces
            o.startObject("scanned");
            for (Map.Entry<String, String> e : ScanNotes.scope(report).entrySet()) {
                o.put(e.getKey(), e.getValue());
            }
            o.endObject();
        }
        baseline(report.baseline(), o);
        if (report.fleet() != null) {
            o.name("fleet");
            fleet(report.fleet(), o);
        }
        TreeSet<String> caseIds = findings(report, o);
        cases(caseIds, report, o);
        targets(r, o);
        coverage(r, o);
        o.endObject();
    }

    /** The {@code summary} object: counts by severity, the fail-on verdict, what was run. */
    private static void summary(Report report, JsonOut o) {
        ScanResult r = report.result();
        o.startObject("summary");
        o.put("total", r.findings().size());
        o.startObject("bySeverity");
        for (int i = Severity.values().length - 1; i >= 0; i--) {
            o.put(Severity.values()[i].id(), r.count(Severity.values()[i]));
        }
        o.endObject();
        o.put("suppressed", r.suppressed().size());
        o.put("failOn", report.failOn() == null ? "none" : report.failOn().id());
        o.put("failed", report.failed());
        o.put("complete", r.coverage().complete());
        o.strings("sources", r.coverage().sources());
        o.strings("rulesRun", r.rulesRun());
        o.endObject();
    }

    /** The {@code baseline} object, when the scan was compared with one. */
    private static void baseline(BaselineDiff b, JsonOut o) {
        if (b != null) {
            o.startObject("baseline");
            o.put("source", b.source());
            o.put("found", b.found());
            o.put("findings", b.baselineTotal());
            o.put("new", b.newFindings().size());
            o.put("unchanged", b.unchanged());
            o.put("fixed", b.fixed());
            o.endObject();
        }
    }

    /**
     * The {@code findings}, {@code suppressed} and {@code expiredSuppressions} arrays; returns the
     * case ids of the findings.
     */
    private static TreeSet<String> findings(Report report, JsonOut o) {
        ScanResult r = report.result();
        o.startArray("findings");
        TreeSet<String> caseIds = new TreeSet<>();
        for (Finding f : r.findings()) {
            finding(f, report, o, true);
            caseIds.addAll(f.caseIds());
        }
        o.endArray();
        o.startArray("suppressed");
        for (ScanResult.Suppressed s : r.suppressed()) {
            findingMembers(s.finding(), report, o.startObject());
            o.put("suppressionReason", s.reason());
            o.put("suppressedBy", s.origin());
            o.endObject();
        }
        o.endArray();
        o.startArray("expiredSuppressions");
        for (Suppressions.Entry e : r.expired()) {
            o.startObject();
            o.put("rule", e.rule());
            o.put("object", e.object());
            o.put("reason", e.reason());
            o.put("expires", String.valueOf(e.expires()));
            o.put("origin", e.origin());
            o.endObject();
        }
        o.endArray();
        return caseIds;
    }

    /** The {@code cases} array: the incident cases of those ids that the catalog knows. */
    private static void cases(TreeSet<String> caseIds, Report report, JsonOut o) {
        o.startArray("cases");
        for (String id : caseIds) {
            CaseInfo ci = report.catalog().caseInfo(id).orElse(null);
            if (ci != null) {
                o.startObject();
                o.put("id", ci.id());
                o.put("title", ci.title());
                o.put("organisation", ci.organisation());
                o.put("date", ci.date());
                o.put("summary", ci.oneLine());
                o.put("url", ci.libraryUrl());
                o.endObject();
            }
        }
        o.endArray();
    }

    /** The {@code targets} array: each target, whether it was read fully, its counts. */
    private static void targets(ScanResult r, JsonOut o) {
        o.startArray("targets");
        for (Target t : r.targets()) {
            o.startObject();
            targetMembers(t, o);
            o.put("complete", r.coverage().complete(t));
            o.startObject("findings").startObject("bySeverity");
            for (int i = Severity.values().length - 1; i >= 0; i--) {
                o.put(Severity.values()[i].id(), r.count(t, Severity.values()[i]));
            }
            o.endObject().endObject();
            o.endObject();
        }
        o.endArray();
    }

    /** The {@code coverage} object: what each source read, or why not. */
    private static void coverage(ScanResult r, JsonOut o) {
        o.startObject("coverage");
        o.put("complete", r.coverage().complete());
        o.startArray("entries");
        for (Coverage.Entry e : r.coverage().entries()) {
            o.startObject();
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
                o.startObject("target");
                targetMembers(e.target(), o);
                o.endObject();
            }
            o.endObject();
        }
        o.endArray();
        o.endObject();
    }

    /**
     * The {@code fleet} object of a merged report: when, the stale limit, each target's status,
     * what was read.
     */
    private static void fleet(Fleet fl, JsonOut o) {
        o.startObject();
        o.put("asOf", fl.asOf().toString());
        o.put("staleAfterSeconds", fl.stale().toSeconds());
        o.put("reportsRead", fl.reportsRead());
        o.put("superseded", fl.superseded());
        o.strings("unreadable", fl.unreadable());
        o.startArray("targets");
        for (Fleet.TargetStatus t : fl.targets()) {
            o.startObject();
            o.put("name", t.name());
            if (t.cluster() != null) {
                o.put("cluster", t.cluster());
            }
            if (t.account() != null) {
                o.put("account", t.account());
            }
            o.put("report", t.origin());
            o.put("lastScan", t.lastScan().truncatedTo(ChronoUnit.SECONDS).toString());
            o.put("ageSeconds", Math.max(0, t.age(fl.asOf()).toSeconds()));
            o.put("stale", t.isStale());
            o.put("complete", t.complete());
            o.put("total", t.total());
            o.startObject("bySeverity");
            for (int i = Severity.values().length - 1; i >= 0; i--) {
                o.put(
                        Severity.values()[i].id(),
                        t.bySeverity().getOrDefault(Severity.values()[i], 0).intValue());
            }
            o.endObject();
            o.strings("notChecked", t.gaps());
            o.endObject();
        }
        o.endArray();
        o.endObject();
    }

    /**
     * One finding as in the report's {@code findings} (used by --notify), with "new" when there is
     * a baseline.
     */
    public static ObjectNode findingNode(Finding f, Report report) {
        JsonOut.Tree t = new JsonOut.Tree();
        finding(f, report, t, false);
        return (ObjectNode) t.root();
    }

    /**
     * A finding as listed in {@code findings}: with "new" against a baseline and, with {@code
     * targets}, its targets in a fleet report.
     */
    private static void finding(Finding f, Report report, JsonOut o, boolean targets) {
        findingMembers(f, report, o.startObject());
        if (report.baseline() != null) {
            o.put("new", report.baseline().isNew(f));
        }
        if (targets && report.fleet() != null) {
            o.strings("targets", report.fleet().targetsOf(f));
        }
        o.endObject();
    }

    /** The members every finding has (listed or suppressed), into the object just opened. */
    private static void findingMembers(Finding f, Report report, JsonOut o) {
        o.put("ruleId", f.ruleId());
        RuleMetadata meta = report.catalog().rule(f.ruleId()).orElse(null);
        if (meta != null) {
            o.put("title", meta.title());
            o.put("source", meta.source().id());
        }
        o.put("severity", f.severity().id());
        o.strings("caseIds", f.caseIds());
        o.put("object", f.location().display());
        o.put("message", f.message());
        o.put("remediation", f.remediation());
        o.startObject("location");
        locationMembers(f.location(), o);
        o.endObject();
        o.strings("related", f.related());
        o.strings("notes", f.notes());
        if (f.key() != null) {
            o.put("key", f.key());
        }
        o.put("fingerprint", f.fingerprint());
        if (f.target() != null) {
            o.startObject("target");
            targetMembers(f.target(), o);
            o.endObject();
        }
        if (f.figure() != null) {
            o.name("figure");
            FigureJson.write(f.figure(), o);
        }
        Evidence ev = report.evidence(f);
        if (ev != null) {
            o.name("evidence").node(ev.json());
        }
        if (!f.caseIds().isEmpty()) {
            o.put("helpUri", "https://incidentlib-api.benchlet.com/cases/" + f.caseIds().get(0));
        }
    }

    /** {"cluster": ..., "account": ...}, absent fields left out. */
    static ObjectNode target(Target t) {
        JsonOut.Tree tree = new JsonOut.Tree();
        targetMembers(t, tree.startObject());
        tree.endObject();
        return (ObjectNode) tree.root();
    }

    private static void targetMembers(Target t, JsonOut o) {
        if (t.cluster() != null) {
            o.put("cluster", t.cluster());
        }
        if (t.account() != null) {
            o.put("account", t.account());
        }
    }

    private static void locationMembers(Location l, JsonOut o) {
        if (l.file() != null) {
            o.put("file", l.file());
        }
        if (l.key() != null) {
            o.put("key", l.key());
        }
        if (l.line() != null) {
            o.put("line", l.line().intValue());
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
    }
}
