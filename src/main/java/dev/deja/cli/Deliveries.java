package dev.deja.cli;

import dev.deja.engine.InputException;
import dev.deja.engine.Suppressions;
import dev.deja.report.Report;
import dev.deja.report.sink.Delivery;
import dev.deja.report.sink.Notifier;
import dev.deja.report.sink.Pushgateway;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * After the report is written: {@code --notify} and {@code --pushgateway}. A failed delivery is one
 * line on stderr; the report is already written and the exit code stays the scan's (alert on a
 * stale {@code deja_last_scan_timestamp_seconds} to notice pushes that stopped).
 */
final class Deliveries {
    private Deliveries() {}

    /**
     * The URL of an option, resolving {@code env:VAR} (keeps webhook tokens out of ConfigMaps and
     * shell history).
     */
    static String url(String value, String option, Map<String, String> env) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.strip();
        if (v.startsWith("env:")) {
            String var = v.substring(4);
            String resolved = env.get(var);
            if (resolved == null || resolved.isBlank()) {
                throw new InputException(
                        option + " " + v + ": environment variable " + var + " is not set");
            }
            v = resolved.strip();
        }
        if (!(v.startsWith("http://") || v.startsWith("https://"))) {
            throw new InputException(option + ": expected an http(s) URL or env:VAR");
        }
        return v;
    }

    static Suppressions merge(Suppressions a, Suppressions b) {
        List<Suppressions.Entry> all = new ArrayList<>(a.entries());
        all.addAll(b.entries());
        return new Suppressions(all);
    }

    static void deliver(Report report, String notifyUrl, String pushUrl, PrintWriter err) {
        if (pushUrl != null) {
            String why = Pushgateway.push(pushUrl, report, Delivery.TIMEOUT);
            if (why != null) {
                err.println("deja: --pushgateway: metrics not pushed: " + why);
            }
        }
        if (notifyUrl != null) {
            String why = Notifier.send(notifyUrl, report, Delivery.TIMEOUT);
            if (why != null) {
                err.println("deja: --notify: notification not sent: " + why);
            }
        }
    }
}
