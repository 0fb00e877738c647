package dev.deja.prove;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * What {@code deja prove} found: the proofs of one frontend, the workload, the haproxy version, the
 * sandbox changes.
 */
public record ProveReport(
        String config,
        String frontend,
        String haproxyVersion,
        AbuserPlan abuser,
        String workload,
        List<String> sandboxChanges,
        List<Proof> proofs,
        long runMillis) {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    public ProveReport(
            String config,
            String frontend,
            String haproxyVersion,
            AbuserPlan abuser,
            String workload,
            List<String> sandboxChanges,
            List<Proof> proofs) {
        this(config, frontend, haproxyVersion, abuser, workload, sandboxChanges, proofs, 0);
    }

    /**
     * Exit code: 1 when a finding was reproduced, 3 when a proof could not run (and none was
     * reproduced), else 0.
     */
    public int exitCode() {
        if (proofs.stream().anyMatch(p -> p.verdict().equals(Proof.REPRODUCED))) {
            return 1;
        }
        return proofs.stream()
                        .anyMatch(
                                p ->
                                        p.verdict().equals(Proof.COULD_NOT_RUN)
                                                || p.verdict().equals(Proof.INCONCLUSIVE))
                ? 3
                : 0;
    }

    /** The rule ids proved, for matching findings of a scan. */
    public List<String> ruleIds() {
        return proofs.stream().map(Proof::ruleId).toList();
    }

    // ---------------------------------------------------------------- text

    public String text() {
        StringBuilder t = new StringBuilder();
        t.append("deja prove ")
                .append(config)
                .append(": frontend ")
                .append(frontend)
                .append(" on HAProxy ")
                .append(haproxyVersion)
                .append(" (loopback sandbox)\n");
        t.append("workload: ").append(workload).append('\n');
        for (String n : abuser == null ? List.<String>of() : abuser.notes()) {
            t.append("note: ").append(n).append('\n');
        }
        for (Proof p : proofs) {
            t.append('\n').append(p.ruleId()).append(": ").append(p.headline());
            t.append('\n').append("  ").append(p.reason()).append('\n');
            if (p.findLimit() != null) {
                t.append("  margin: ").append(p.findLimit().describe()).append('\n');
            }
            if (p.before() != null && p.before().ran()) {
                t.append(
                        String.format(
                                Locale.ROOT,
                                "  %-34s %10s %9s %8s %9s %9s %10s  %s%n",
                                "run",
                                "legit ok",
                                "timed out",
                                "refused",
                                "p50",
                                "p99",
                                "slots full",
                                p.ruleId().equals(Prover.TIMEOUT) ? "slow clients" : "abuser"));
                row(t, p.before(), p.ruleId());
                if (p.after() != null) {
                    row(t, p.after(), p.ruleId());
                }
            }
            if (p.fixNote() != null) {
                t.append("  ").append(p.fixNote()).append('\n');
            }
            if (p.remedy() != null && !p.remedy().diff().isEmpty()) {
                t.append("  applied: ").append(p.remedy().description()).append('\n');
                for (String d : p.remedy().diff()) {
                    t.append("    ").append(d).append('\n');
                }
            }
        }
        if (!sandboxChanges.isEmpty()) {
            t.append(
                    "\nsandbox (written by deja from what it read of your config: maxconn, timeouts, stick tables, ACLs and rules as you wrote them; the rest replaced or left out):\n");
            for (String c : sandboxChanges) {
                t.append("  - ").append(c).append('\n');
            }
        }
        return t.toString();
    }

    private static void row(StringBuilder t, RunResult r, String rule) {
        if (!r.ran()) {
            t.append(
                    String.format(
                            Locale.ROOT, "  %-34s could not run: %s%n", r.label(), r.error()));
            return;
        }
        LoadGenerator.Outcome a = r.abuser();
        String abuser =
                rule.equals(Prover.TIMEOUT)
                        ? a.sent + " held, " + a.closedByServer + " closed by HAProxy"
                        : a.sent
                                + " sent: "
                                + a.limited
                                + " x 429 (median wait "
                                + RunResult.ms(a.limitedP50Micros())
                                + "), "
                                + a.ok
                                + " ok, "
                                + a.timedOut
                                + " timed out"
                                + (a.refused > 0 ? ", " + a.refused + " refused" : "")
                                + (a.notSent > 0
                                        ? ", " + a.notSent + " not sent (connection cap)"
                                        : "");
        t.append(
                String.format(
                        Locale.ROOT,
                        "  %-34s %10s %9d %8d %9s %9s %9.1fs  %s%n",
                        r.label(),
                        r.legit().ok + "/" + r.legitTotal(),
                        r.legit().timedOut,
                        r.legit().refused + r.legit().otherStatus,
                        RunResult.ms(r.p50Micros()),
                        RunResult.ms(r.p99Micros()),
                        r.fullMillis() / 1000.0,
                        abuser));
    }

    // ---------------------------------------------------------------- JSON

    public ObjectNode json() {
        ObjectNode root = F.objectNode();
        root.put("config", config);
        root.put("frontend", frontend);
        root.put("haproxyVersion", haproxyVersion);
        root.put("runMillis", runMillis);
        ArrayNode proofsNode = root.putArray("proofs");
        for (Proof p : proofs) {
            proofsNode.add(evidence(p));
        }
        return root;
    }

    /**
     * One finding's {@code evidence}: verdict, figures, workload, haproxy version, sandbox changes,
     * applied diff.
     */
    public ObjectNode evidence(Proof p) {
        ObjectNode o = F.objectNode();
        o.put("ruleId", p.ruleId());
        o.put("frontend", p.frontend());
        o.put("verdict", p.verdict());
        o.put("headline", p.headline());
        o.put("reason", p.reason());
        if (p.fixWorks() != null) {
            o.put("fixWorks", p.fixWorks());
        }
        if (p.fixNote() != null) {
            o.put("fixNote", p.fixNote());
        }
        o.put("haproxyVersion", haproxyVersion);
        ObjectNode w = o.putObject("workload");
        w.put("description", workload);
        ArrayNode notes = w.putArray("notes");
        if (abuser != null) {
            w.put("abuserKey", abuser.key());
            if (abuser.how() != null) {
                w.put("abuser", abuser.how());
            }
            abuser.notes().forEach(notes::add);
        }
        if (p.before() != null) {
            o.set("before", run(p.before()));
        }
        if (p.after() != null) {
            o.set("after", run(p.after()));
        }
        if (p.remedy() != null) {
            ObjectNode r = o.putObject("applied");
            r.put("description", p.remedy().description());
            ArrayNode d = r.putArray("diff");
            p.remedy().diff().forEach(d::add);
        }
        if (p.findLimit() != null) {
            ObjectNode fl = o.putObject("findLimit");
            if (p.findLimit().before() != null) {
                fl.put("breaksAtRps", p.findLimit().before());
            } else {
                fl.putNull("breaksAtRps");
            }
            if (p.findLimit().after() != null) {
                fl.put("afterFixBreaksAtRps", p.findLimit().after());
            } else {
                fl.putNull("afterFixBreaksAtRps");
            }
            fl.put("ceilingRps", p.findLimit().ceiling());
            fl.put("summary", p.findLimit().describe());
            ArrayNode pts = fl.putArray("runs");
            for (double[] pt : p.findLimit().points()) {
                ObjectNode x = pts.addObject();
                x.put("phase", pt[0] == 0 ? "before" : "after");
                x.put("clientRps", pt[1]);
                x.put("degraded", pt[2] != 0);
                if (pt[2] == Prover.HOST_LIMITED) {
                    x.put("hostLimited", true); // the host could not drive the rate: not counted
                }
                x.put("legitSuccessPct", Math.round(pt[3] * 10) / 10.0);
            }
        }
        ArrayNode sc = o.putArray("sandboxChanges");
        sandboxChanges.forEach(sc::add);
        return o;
    }

    private static ObjectNode run(RunResult r) {
        ObjectNode o = F.objectNode();
        o.put("label", r.label());
        if (!r.ran()) {
            o.put("error", r.error());
            return o;
        }
        o.put("clientRps", r.clientRps());
        o.put("durationMs", r.durationMs());
        o.put("slots", r.slots());
        ObjectNode l = o.putObject("legitimate");
        l.put("sent", r.legitTotal());
        l.put("ok", r.legit().ok);
        l.put("timedOut", r.legit().timedOut);
        l.put("refused", r.legit().refused);
        l.put("otherStatus", r.legit().otherStatus + r.legit().limited);
        l.put("successPct", Math.round(r.legitSuccessPct() * 10) / 10.0);
        l.put("p50Ms", r.p50Micros() < 0 ? -1 : r.p50Micros() / 1000.0);
        l.put("p99Ms", r.p99Micros() < 0 ? -1 : r.p99Micros() / 1000.0);
        l.put("baselineP50Ms", r.baselineP50Micros() < 0 ? -1 : r.baselineP50Micros() / 1000.0);
        ObjectNode a = o.putObject("abuser");
        a.put("sent", r.abuser().sent);
        a.put("limited429", r.abuser().limited);
        a.put(
                "limitedP50Ms",
                r.abuser().limitedP50Micros() < 0 ? -1 : r.abuser().limitedP50Micros() / 1000.0);
        a.put("ok", r.abuser().ok);
        a.put("timedOut", r.abuser().timedOut);
        a.put("refused", r.abuser().refused);
        a.put("notSent", r.abuser().notSent);
        a.put("closedByHaproxy", r.abuser().closedByServer);
        o.put("slotsFullMs", r.fullMillis());
        o.put("peakSessions", r.peakSessions());
        o.put("degraded", r.degraded());
        ArrayNode s = o.putArray("sessions");
        for (StatsSampler.Sample x : r.samples()) {
            ArrayNode pt = s.addArray();
            pt.add(x.atMillis());
            pt.add(x.scur());
            pt.add(x.slim());
        }
        return o;
    }

    // ---------------------------------------------------------------- HTML

    public String html() {
        StringBuilder h =
                new StringBuilder(
                        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                                + "<title>deja prove "
                                + esc(config)
                                + "</title><style>"
                                + CSS
                                + "</style></head><body>\n");
        h.append("<h1>deja prove ")
                .append(esc(config))
                .append("</h1>\n<p>frontend <code>")
                .append(esc(frontend))
                .append("</code> on HAProxy ")
                .append(esc(haproxyVersion))
                .append(" in a loopback sandbox</p>\n<p>")
                .append(esc(workload))
                .append("</p>\n");
        for (Proof p : proofs) {
            h.append(evidenceHtml(p));
        }
        h.append("<h2>Sandbox</h2><ul>");
        for (String c : sandboxChanges) {
            h.append("<li>").append(esc(c)).append("</li>");
        }
        return h.append("</ul></body></html>\n").toString();
    }

    static final String CSS =
            "body{font-family:system-ui,sans-serif;max-width:70em;margin:2em auto;padding:0 1em}"
                    + "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}"
                    + "td:first-child,th:first-child{text-align:left}.reproduced{color:#b00}.not-reproduced{color:#070}"
                    + ".could-not-run{color:#777}pre{background:#f6f6f6;padding:.5em}";

    /**
     * One proof as an HTML fragment: verdict, before/after table, sessions-vs-limit charts, applied
     * diff.
     */
    public String evidenceHtml(Proof p) {
        StringBuilder h =
                new StringBuilder("<div class=\"evidence\"><h3>")
                        .append(esc(p.ruleId()))
                        .append(": <span class=\"")
                        .append(p.verdict())
                        .append("\">")
                        .append(esc(p.headline()))
                        .append("</span>");
        h.append("</h3><p>").append(esc(p.reason())).append("</p>");
        if (p.findLimit() != null) {
            h.append("<p>margin: ").append(esc(p.findLimit().describe())).append("</p>");
        }
        if (p.before() != null && p.before().ran()) {
            h.append(
                    "<table><tr><th>run</th><th>legit ok</th><th>timed out</th><th>refused</th><th>p50</th><th>p99</th>"
                            + "<th>slots full</th></tr>");
            for (RunResult r : new RunResult[] {p.before(), p.after()}) {
                if (r == null || !r.ran()) {
                    continue;
                }
                h.append("<tr><td>")
                        .append(esc(r.label()))
                        .append("</td><td>")
                        .append(r.legit().ok)
                        .append('/')
                        .append(r.legitTotal())
                        .append("</td><td>")
                        .append(r.legit().timedOut)
                        .append("</td><td>")
                        .append(r.legit().refused + r.legit().otherStatus)
                        .append("</td><td>")
                        .append(RunResult.ms(r.p50Micros()))
                        .append("</td><td>")
                        .append(RunResult.ms(r.p99Micros()))
                        .append("</td><td>")
                        .append(String.format(Locale.ROOT, "%.1f s", r.fullMillis() / 1000.0))
                        .append("</td></tr>");
            }
            h.append("</table>");
            h.append(timeline(p.before(), p.after()));
        }
        if (p.fixNote() != null) {
            h.append("<p>").append(esc(p.fixNote())).append("</p>");
        }
        if (p.remedy() != null && !p.remedy().diff().isEmpty()) {
            h.append("<p>Applied: ").append(esc(p.remedy().description())).append("</p><pre>");
            for (String d : p.remedy().diff()) {
                h.append(esc(d)).append('\n');
            }
            h.append("</pre>");
        }
        return h.append("</div>\n").toString();
    }

    /** Plotting width and one panel's height of {@link #timeline}. */
    private static final int TW = 600;

    private static final int TH = 110;

    /**
     * Before and after on one time axis, one panel each: the legitimate clients' success per second
     * of the run (bars: answered by the backend, of those sent that second) and the slots in use
     * against the limit (line: scur, dashed: slim), as inline SVG (no script). Each second's bar
     * carries its counts ({@code data-ok}, {@code data-sent}), each panel its run's totals.
     */
    static String timeline(RunResult before, RunResult after) {
        List<RunResult> runs = new ArrayList<>();
        for (RunResult r : new RunResult[] {before, after}) {
            if (r != null && r.ran()) {
                runs.add(r);
            }
        }
        if (runs.isEmpty()) {
            return "";
        }
        long endMs = 1000;
        for (RunResult r : runs) {
            endMs = Math.max(endMs, r.durationMs());
            for (long[] e : r.legit().events) {
                endMs = Math.max(endMs, e[0] + 1);
            }
        }
        int seconds = (int) ((endMs + 999) / 1000);
        double perSec = TW / (double) seconds;
        int height = 30 + runs.size() * (TH + 40) + 20;
        StringBuilder h =
                new StringBuilder(
                                "<figure class=\"fig fig-prove\"><svg xmlns=\"http://www.w3.org/2000/svg\""
                                        + " data-figure=\"prove-timeline\" viewBox=\"0 0 ")
                        // right of the plot: "limit N" (at 13 px, "limit 100000" is about 80 wide)
                        .append(TW + 150)
                        .append(' ')
                        .append(height)
                        .append(
                                "\" width=\"100%\" role=\"img\" aria-label=\"Legitimate success and slots in"
                                        + " use over time, before and after the fix\"><title>Legitimate success"
                                        + " and slots in use over time, before and after the fix</title>");
        int y0 = 30;
        for (RunResult r : runs) {
            runBand(h, r, seconds, perSec, endMs, y0);
            y0 += TH + 40;
        }
        for (int i = 0; i <= seconds; i += Math.max(1, seconds / 8)) {
            text(h, 60 + i * perSec, y0 - 22, "middle", i + " s");
        }
        return h.append(
                        "</svg><figcaption>Each run of the replay: bars, the legitimate clients' requests"
                                + " answered by the backend each second (green: 95% or more; red: fewer);"
                                + " blue line, the slots in use (scur) against the limit (dashed red)."
                                + "</figcaption></figure>")
                .toString();
    }

    /**
     * One run's band at {@code y0}: its legitimate success each second as bars, the slots in use
     * against the limit as a line.
     */
    private static void runBand(
            StringBuilder h, RunResult r, int seconds, double perSec, long endMs, int y0) {
        int[] ok = new int[seconds];
        int[] sent = new int[seconds];
        for (long[] e : r.legit().events) {
            int sec = (int) Math.min(seconds - 1, Math.max(0, e[0] / 1000));
            sent[sec]++;
            ok[sec] += e[1] == LoadGenerator.EV_OK ? 1 : 0;
        }
        int okAll = 0;
        int sentAll = 0;
        for (int i = 0; i < seconds; i++) {
            okAll += ok[i];
            sentAll += sent[i];
        }
        h.append("<g class=\"run\" data-run=\"")
                .append(esc(r.label()))
                .append("\" data-ok=\"")
                .append(okAll)
                .append("\" data-sent=\"")
                .append(sentAll)
                .append("\" data-slots=\"")
                .append(r.slots())
                .append("\">");
        text(
                h,
                10,
                y0 - 8,
                "start",
                esc(r.label())
                        + ": "
                        + okAll
                        + " of "
                        + sentAll
                        + " legitimate requests answered; slots (maxconn) "
                        + r.slots());
        h.append(
                String.format(
                        Locale.ROOT,
                        "<rect x=\"60\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fafafa\""
                                + " stroke=\"#ccc\"/>",
                        y0,
                        TW,
                        TH));
        bars(h, ok, sent, perSec, y0);
        slotsInUse(h, r, endMs, y0);
        text(h, 55, y0 + 10, "end", "100%");
        text(h, 55, y0 + TH, "end", "0%");
        h.append("</g>");
    }

    /** A bar per second with requests: the share of them answered, green from 95% up, else red. */
    private static void bars(StringBuilder h, int[] ok, int[] sent, double perSec, int y0) {
        int seconds = sent.length;
        for (int i = 0; i < seconds; i++) {
            if (sent[i] == 0) {
                continue;
            }
            double frac = ok[i] / (double) sent[i];
            double bh = frac * TH;
            h.append(
                    String.format(
                            Locale.ROOT,
                            "<rect class=\"second\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
                                    + " height=\"%.1f\" fill=\"%s\" data-second=\"%d\" data-ok=\"%d\""
                                    + " data-sent=\"%d\"/>",
                            60 + i * perSec + 1,
                            y0 + TH - bh,
                            Math.max(1, perSec - 2),
                            bh,
                            frac >= 0.95 ? "#9cc5a1" : "#e8a09a",
                            i,
                            ok[i],
                            sent[i]));
        }
    }

    /** The slots in use (scur) over the run as a line, against the limit (dashed) and its label. */
    private static void slotsInUse(StringBuilder h, RunResult r, long endMs, int y0) {
        long limit = r.slots() > 0 ? r.slots() : 1;
        long max = limit;
        for (StatsSampler.Sample x : r.samples()) {
            max = Math.max(max, x.scur());
        }
        StringBuilder pts = new StringBuilder();
        for (StatsSampler.Sample x : r.samples()) {
            if (x.scur() >= 0) {
                pts.append(
                        String.format(
                                Locale.ROOT,
                                "%.1f,%.1f ",
                                60 + Math.min(endMs, x.atMillis()) * TW / (double) endMs,
                                y0 + TH - x.scur() * (double) TH / max));
            }
        }
        double ly = y0 + TH - limit * (double) TH / max;
        h.append(
                String.format(
                        Locale.ROOT,
                        "<line x1=\"60\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#b3261e\""
                                + " stroke-dasharray=\"5 4\" data-limit=\"%d\"/>"
                                + "<polyline fill=\"none\" stroke=\"#1f5f99\" stroke-width=\"2\""
                                + " points=\"%s\"/>",
                        ly,
                        60 + TW,
                        ly,
                        r.slots(),
                        pts.toString().strip()));
        text(h, 64 + TW, ly + 4, "start", "limit " + r.slots());
    }

    private static void text(StringBuilder h, double x, double y, String anchor, String escaped) {
        h.append(
                        String.format(
                                Locale.ROOT,
                                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"12\""
                                        + " fill=\"#222\">",
                                x,
                                y,
                                anchor))
                .append(escaped)
                .append("</text>");
    }

    static String esc(String s) {
        if (s == null) {
            return "";
        }
        return s.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}
