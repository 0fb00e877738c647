package dev.deja.report;

import dev.deja.engine.Finding;
import dev.deja.engine.Location;
import dev.deja.engine.RuleMetadata;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;
import java.io.IOException;
import java.io.Writer;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * SARIF 2.1.0 (what GitHub code scanning and other CI dashboards read). One run; every rule that
 * ran or found something is a {@code reportingDescriptor} whose {@code helpUri} is the incident
 * case page; file findings sit at a {@code file:line} region, Kubernetes and AWS findings (no file)
 * at a {@code logicalLocation} (kind/namespace/ name, ARN). Suppressed findings are kept with a
 * {@code suppressions} entry (inline or ignore file), as code scanning expects. Deterministic: no
 * timestamps.
 */
public final class SarifReporter implements Reporter {
    public static final String SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    @Override
    public void write(Report report, Writer out) throws IOException {
        JsonText.writePretty(tree(report), out);
        out.write("\n");
        out.flush();
    }

    /**
     * The base of relative artifact URIs (SARIF 2.1.0 3.4.4, the name GitHub code scanning
     * documents).
     */
    static final String SRCROOT = "%SRCROOT%";

    static ObjectNode tree(Report report) {
        ObjectNode root = F.objectNode();
        root.put("$schema", SCHEMA);
        root.put("version", "2.1.0");
        ObjectNode run = root.putArray("runs").addObject();
        Map<String, Integer> index = driver(run, report);
        ArrayNode results = results(run, report, index);
        if (results.findValue("uriBaseId") != null) {
            ObjectNode base = run.putObject("originalUriBaseIds").putObject(SRCROOT);
            base.put("uri", Path.of("").toAbsolutePath().toUri().toString());
            base.putObject("description")
                    .put(
                            "text",
                            "The folder deja ran in: relative paths are as given on the"
                                    + " command line or in deja.yaml's paths (relative to that file's folder, as given)");
        }
        invocation(run, report);
        run.put("columnKind", "unicodeCodePoints");
        return root;
    }

    /**
     * The run's tool driver with its rules: every rule run, plus any rule with a finding; returns
     * each rule id's index in that list.
     */
    private static Map<String, Integer> driver(ObjectNode run, Report report) {
        ScanResult r = report.result();
        ObjectNode driver = run.putObject("tool").putObject("driver");
        driver.put("name", "deja");
        driver.put("semanticVersion", semver(report.toolVersion()));
        driver.put("version", report.toolVersion());
        driver.put("informationUri", "https://github.com/deja-dev/deja");
        TreeSet<String> ids = new TreeSet<>(r.rulesRun());
        r.findings().forEach(f -> ids.add(f.ruleId()));
        r.suppressed().forEach(s -> ids.add(s.finding().ruleId()));
        BaselineDiff baseline = report.baseline();
        if (baseline != null) {
            baseline.gone().forEach(g -> ids.add(g.ruleId()));
        }
        Map<String, Integer> index = new LinkedHashMap<>();
        ArrayNode rules = driver.putArray("rules");
        for (String id : ids) {
            index.put(id, index.size());
            rules.add(rule(id, report));
        }
        return index;
    }

    /** The run's results: the findings, the suppressed ones, and those fixed since the baseline. */
    private static ArrayNode results(ObjectNode run, Report report, Map<String, Integer> index) {
        ScanResult r = report.result();
        BaselineDiff baseline = report.baseline();
        ArrayNode results = run.putArray("results");
        for (Finding f : r.findings()) {
            ObjectNode res = result(f, index, null, null);
            Evidence ev = report.evidence(f);
            if (ev != null) {
                ((ObjectNode) res.get("properties")).set("evidence", ev.json());
            }
            if (baseline != null) { // SARIF 2.1.0 3.27.24
                res.put("baselineState", baseline.state(f));
            }
            results.add(res);
        }
        for (ScanResult.Suppressed s : r.suppressed()) {
            ObjectNode res = result(s.finding(), index, s.reason(), s.origin());
            if (baseline != null) {
                res.put("baselineState", baseline.suppressedState(s.finding()));
            }
            results.add(res);
        }
        if (baseline != null) {
            // fixed since the baseline: "absent" results, as the baseline had them; the rule now
            // passes on that object, so kind "pass" (level "none", SARIF 3.27.9-10): a consumer
            // that ignores baselineState does not take them for open problems
            for (BaselineDiff.Gone g : baseline.gone()) {
                ObjectNode res = result(g.finding(report.catalog()), index, null, null);
                res.put("kind", "pass");
                res.put("level", "none");
                res.put("baselineState", "absent");
                ObjectNode msg = (ObjectNode) res.get("message");
                msg.put("text", "Fixed since the baseline: " + msg.get("text").asString());
                results.add(res);
            }
        }
        return results;
    }

    /**
     * The run's invocation: whether the scan was complete, its notifications (not checked, notes,
     * expired suppressions), and the cluster it read.
     */
    private static void invocation(ObjectNode run, Report report) {
        ScanResult r = report.result();
        ObjectNode inv = run.putArray("invocations").addObject();
        inv.put("executionSuccessful", r.coverage().complete());
        ArrayNode notes = F.arrayNode();
        r.coverage().notChecked().forEach(e -> note(notes, "warning", ScanNotes.notChecked(e)));
        r.coverage()
                .notes()
                .forEach(
                        e ->
                                note(
                                        notes,
                                        "note",
                                        e.source() + ": " + e.scope() + ": " + e.detail()));
        r.expired()
                .forEach(
                        e -> {
                            ObjectNode n = note(notes, "warning", ScanNotes.expired(e));
                            n.putObject("descriptor").put("id", "deja/expired-suppression");
                            ObjectNode p = n.putObject("properties");
                            p.put("rule", e.rule());
                            p.put("object", e.object());
                            p.put("expires", String.valueOf(e.expires()));
                            p.put("origin", e.origin());
                        });
        if (!notes.isEmpty()) {
            inv.set("toolExecutionNotifications", notes);
        }
        // the live cluster read (context and API server) and the namespaces: which cluster this is
        if (ScanNotes.scanned(report) != null) {
            ObjectNode scanned = inv.putObject("properties").putObject("scanned");
            ScanNotes.scope(report).forEach(scanned::put);
        }
    }

    /** A tool execution notification of that level, added to the notes. */
    private static ObjectNode note(ArrayNode notes, String level, String text) {
        ObjectNode n = notes.addObject();
        n.put("level", level);
        n.putObject("message").put("text", text);
        return n;
    }

    private static ObjectNode rule(String id, Report report) {
        ObjectNode o = F.objectNode();
        o.put("id", id);
        RuleMetadata m = report.catalog().rule(id).orElse(null);
        if (m == null) {
            return o;
        }
        o.put("name", camel(id));
        o.putObject("shortDescription").put("text", m.title());
        o.putObject("fullDescription").put("text", m.description());
        if (!m.caseIds().isEmpty()) {
            o.put("helpUri", caseUrl(m.caseIds().get(0)));
        }
        StringBuilder md = new StringBuilder();
        md.append(m.description())
                .append("\n\n**Fix:** ")
                .append(m.remediation())
                .append("\n\nIncident cases: ");
        List<String> links = new ArrayList<>();
        for (String c : m.caseIds()) {
            links.add("[" + c + "](" + caseUrl(c) + ")");
        }
        md.append(String.join(", ", links));
        ObjectNode help = o.putObject("help");
        help.put(
                "text",
                m.description()
                        + "\n\nFix: "
                        + m.remediation()
                        + "\n\nIncident cases: "
                        + String.join(
                                ", ", m.caseIds().stream().map(SarifReporter::caseUrl).toList()));
        help.put("markdown", md.toString());
        o.putObject("defaultConfiguration").put("level", level(m.severity()));
        ObjectNode props = o.putObject("properties");
        ArrayNode tags = props.putArray("tags");
        tags.add(m.source().id());
        tags.add("reliability");
        m.caseIds().forEach(tags::add);
        props.put("security-severity", securitySeverity(m.severity()));
        props.put("precision", "high");
        return o;
    }

    private static ObjectNode result(
            Finding f, Map<String, Integer> index, String suppressedWhy, String suppressedBy) {
        ObjectNode o = F.objectNode();
        o.put("ruleId", f.ruleId());
        Integer i = index.get(f.ruleId());
        if (i != null) {
            o.put("ruleIndex", i);
        }
        o.put("level", level(f.severity()));
        StringBuilder text = new StringBuilder(f.message());
        for (String n : f.notes()) {
            text.append("\nNote: ").append(n);
        }
        text.append("\nFix: ").append(f.remediation());
        if (!f.caseIds().isEmpty()) {
            text.append("\nIncident: ").append(caseUrl(f.caseIds().get(0)));
        }
        o.putObject("message").put("text", text.toString());
        ArrayNode locs = o.putArray("locations");
        ObjectNode loc = locs.addObject();
        Location l = f.location();
        String uri = l.file() == null ? null : uri(l.file());
        if (uri != null) {
            ObjectNode phys = loc.putObject("physicalLocation");
            ObjectNode art = phys.putObject("artifactLocation").put("uri", uri);
            if (!uri.startsWith("file:")) {
                art.put(
                        "uriBaseId",
                        SRCROOT); // relative as the user gave it: to the folder deja ran in
            }
            if (l.line() != null && l.line() > 0) {
                phys.putObject("region").put("startLine", l.line());
            }
        }
        ObjectNode logical = logical(l);
        if (logical != null) {
            loc.putArray("logicalLocations").add(logical);
        }
        if (uri == null && logical == null) {
            loc.putObject("message")
                    .put("text", l.display().isEmpty() ? "(no location)" : l.display());
        }
        // the same problem in two clusters is two alerts: the target is part of the identity
        String fp = f.targetedFingerprint();
        o.putObject("partialFingerprints")
                .put(
                        "dejaFingerprint/v2",
                        Integer.toHexString(fp.hashCode())
                                + "-"
                                + Integer.toHexString(
                                        new StringBuilder(fp).reverse().toString().hashCode()));
        ObjectNode props = o.putObject("properties");
        props.put("severity", f.severity().id());
        props.put("security-severity", securitySeverity(f.severity()));
        ArrayNode cases = props.putArray("caseIds");
        f.caseIds().forEach(cases::add);
        props.put("object", l.display());
        if (f.target() != null) { // the cluster (context name) or AWS account the object is in
            props.set("target", JsonReporter.target(f.target()));
        }
        if (!f.related().isEmpty()) {
            ArrayNode rel = props.putArray("related");
            f.related().forEach(rel::add);
        }
        if (suppressedWhy != null) {
            ObjectNode s = o.putArray("suppressions").addObject();
            s.put(
                    "kind",
                    suppressedBy != null
                                    && suppressedBy.contains(":")
                                    && !suppressedBy.startsWith("annotation")
                            ? "inSource"
                            : "external");
            s.put("justification", suppressedWhy);
            s.putObject("properties").put("origin", String.valueOf(suppressedBy));
        }
        return o;
    }

    /**
     * Kubernetes object, HAProxy section or AWS resource as a SARIF logical location; null when
     * there is none.
     */
    private static ObjectNode logical(Location l) {
        if (l.arn() == null && l.name() == null && l.kind() == null) {
            return null;
        }
        ObjectNode o = F.objectNode();
        String name = l.name() != null ? l.name() : l.arn();
        if (name != null) {
            o.put("name", name);
        }
        StringBuilder fq = new StringBuilder();
        if (l.arn() != null) {
            fq.append(l.arn());
        } else {
            if (l.kind() != null) {
                fq.append(l.kind()).append('/');
            }
            if (l.namespace() != null) {
                fq.append(l.namespace()).append('/');
            }
            if (l.name() != null) {
                fq.append(l.name());
            }
        }
        if (l.region() != null) {
            fq.append(" [").append(l.region()).append(']');
        }
        if (fq.length() > 0) {
            o.put("fullyQualifiedName", fq.toString());
        }
        if (l.kind() != null) {
            o.put("kind", "object");
            o.putObject("properties").put("resourceKind", l.kind());
        } else if (l.arn() != null) {
            o.put("kind", "resource");
        }
        return o;
    }

    /**
     * A relative or absolute URI reference for a file path; null for pseudo-files such as {@code
     * <stdin>}.
     */
    static String uri(String file) {
        if (file.startsWith("<")) {
            return null;
        }
        try {
            Path p = Path.of(file);
            if (p.isAbsolute()) {
                return p.toUri().toString();
            }
            String rel = file.replace('\\', '/');
            while (rel.startsWith("./")) {
                rel = rel.substring(2);
            }
            return new URI(null, null, rel, null).toASCIIString();
        } catch (URISyntaxException | InvalidPathException e) {
            return null;
        }
    }

    static String caseUrl(String caseId) {
        return "https://incidentlib-api.benchlet.com/cases/" + caseId;
    }

    static String level(Severity s) {
        return switch (s) {
            case CRITICAL, HIGH -> "error";
            case MEDIUM -> "warning";
            case LOW, INFO -> "note";
        };
    }

    /** GitHub's security-severity score (0-10) per severity. */
    static String securitySeverity(Severity s) {
        return switch (s) {
            case CRITICAL -> "9.5";
            case HIGH -> "8.0";
            case MEDIUM -> "5.5";
            case LOW -> "3.0";
            case INFO -> "1.0";
        };
    }

    private static String camel(String id) {
        StringBuilder sb = new StringBuilder();
        for (String p : id.split("-")) {
            if (!p.isEmpty()) {
                sb.append(Character.toUpperCase(p.charAt(0))).append(p.substring(1));
            }
        }
        return sb.toString();
    }

    private static String semver(String v) {
        return v != null && v.matches("\\d+\\.\\d+\\.\\d+.*") ? v : "0.0.0";
    }
}
