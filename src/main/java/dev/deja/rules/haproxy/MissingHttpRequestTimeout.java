package dev.deja.rules.haproxy;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.haproxy.Frontends;
import dev.deja.haproxy.HaproxyConfig;
import dev.deja.haproxy.Times;
import java.util.ArrayList;
import java.util.List;

/**
 * IL-0264: an HTTP frontend without {@code timeout http-request} (own or inherited): only the
 * inactivity {@code timeout client} bounds a client that sends its headers slowly (Slowloris), so
 * slots can be held at will.
 */
public final class MissingHttpRequestTimeout extends HaproxyRule {
    public static final String ID = "haproxy-missing-http-request-timeout";

    /**
     * From this timeout client (seconds; parameter, default 30) the missing http-request timeout is
     * high.
     */
    static final String LONG_CLIENT = "longClientTimeoutSeconds";

    @Override
    public String id() {
        return ID;
    }

    @Override
    List<Finding> check(HaproxyConfig c, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        List<Finding> mine = new ArrayList<>();
        for (Frontends.Frontend f : Frontends.of(c)) {
            if (!f.http()) {
                continue;
            }
            Frontends.Setting hr = f.httpRequest();
            Frontends.Setting cl = f.client();
            boolean missing = !hr.set() || hr.millis() == 0;
            if (!missing) {
                continue;
            }
            String client;
            Severity sev;
            if (!cl.set() || cl.millis() == 0) {
                client =
                        "timeout client is unset too, so a slow client can hold a slot indefinitely";
                sev = Severity.HIGH;
            } else if (!cl.known()) {
                client =
                        "timeout client at "
                                + cl.directive().where()
                                + " cannot be read, so what bounds a slow"
                                + " client is unknown";
                sev = Severity.HIGH;
            } else {
                client =
                        "only timeout client "
                                + Times.format(cl.millis())
                                + " ("
                                + cl.directive().where()
                                + ") bounds a slow client, and it restarts with every byte: a client that sends one"
                                + " header byte just inside every "
                                + Times.format(cl.millis())
                                + " holds its slot for as long"
                                + " as it likes";
                sev =
                        cl.millis() >= ctx.intParameter(LONG_CLIENT) * 1000L
                                ? Severity.HIGH
                                : Severity.MEDIUM;
            }
            String msg =
                    f.section().label()
                            + " (mode http) has no timeout http-request, own or from its defaults"
                            + (hr.set() ? " (it is 0 at " + hr.directive().where() + ")" : "")
                            + ": "
                            + client;
            mine.add(
                    ctx.finding(Notes.at(f.section()), msg)
                            .severity(sev)
                            .notes(Notes.of(f, f.modeDirective(), hr.directive(), cl.directive()))
                            .key("no timeout http-request")
                            .build());
        }
        out.addAll(Notes.dedupe(mine, Frontends.of(c)));
        return out;
    }
}
