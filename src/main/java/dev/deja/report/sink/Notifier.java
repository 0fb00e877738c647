package dev.deja.report.sink;

import dev.deja.engine.Finding;
import dev.deja.report.JsonReporter;
import dev.deja.report.Report;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code --notify URL}: POSTs the new findings (all findings without a baseline) as JSON. The body
 * works as a Slack incoming-webhook message (its {@code text} field: a summary line, then one line
 * per new finding with its case id) and carries the findings themselves for other receivers ({@code
 * findings}, same fields as the JSON report). Nothing is sent when there is nothing new.
 */
public final class Notifier {
    static final int MAX_LINES = 50;

    private Notifier() {}

    /** The JSON body, or null when there is nothing new to tell. */
    public static String body(Report report) {
        List<Finding> fresh =
                report.baseline() == null
                        ? report.result().findings()
                        : report.baseline().newFindings();
        if (fresh.isEmpty()) {
            return null;
        }
        StringBuilder text = new StringBuilder();
        int n = fresh.size();
        text.append("deja: ")
                .append(n)
                .append(report.baseline() == null ? "" : " new")
                .append(n == 1 ? " finding" : " findings");
        if (report.baseline() != null && report.baseline().found()) {
            text.append(" since the baseline (")
                    .append(report.baseline().unchanged())
                    .append(" unchanged, ")
                    .append(report.baseline().fixed())
                    .append(" fixed)");
        }
        if (!report.result().coverage().complete()) {
            text.append("; scan incomplete");
        }
        int shown = 0;
        for (Finding f : fresh) {
            if (shown == MAX_LINES) {
                text.append("\n... and ").append(n - shown).append(" more (see the report)");
                break;
            }
            text.append("\n• ")
                    .append(f.severity().id().toUpperCase(Locale.ROOT))
                    .append(' ')
                    .append(f.caseIds().isEmpty() ? "" : String.join(",", f.caseIds()) + " ")
                    .append(f.ruleId())
                    .append(": ")
                    .append(slack(f.location().display()))
                    .append(" — ")
                    .append(slack(firstLine(f.message())));
            shown++;
        }
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        root.put("text", text.toString());
        root.put("newFindings", n);
        root.put("complete", report.result().coverage().complete());
        ArrayNode arr = root.putArray("findings");
        for (Finding f : fresh) {
            arr.add(JsonReporter.findingNode(f, report));
        }
        return JsonMapper.builder().build().writeValueAsString(root);
    }

    /** Null when sent or nothing to send, else why not (one line). */
    public static String send(String url, Report report, Duration timeout) {
        String body = body(report);
        if (body == null) {
            return null;
        }
        return Delivery.send("POST", url, "application/json", body, timeout);
    }

    /**
     * Slack reads {@code <...>} as links and mentions: escape the three control characters it
     * documents.
     */
    static String slack(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl) + " ...";
    }
}
