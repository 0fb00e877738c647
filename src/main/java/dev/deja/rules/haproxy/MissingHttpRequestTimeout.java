package dev.deja.rules.haproxy;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.Section;
import dev.deja.model.haproxy.Times;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * IL-0264: an HTTP frontend without {@code timeout http-request} (own or inherited): only the
 * inactivity {@code timeout client} bounds a client that sends its headers slowly (Slowloris), so
 * slots can be held at will.
 */
public final class MissingHttpRequestTimeout extends HaproxyRule {
    public static final String ID = "haproxy-missing-http-request-timeout";

    public MissingHttpRequestTimeout() {
        super(ID);
    }

    /**
     * From this timeout client (seconds; parameter, default 30) the missing http-request timeout is
     * high.
     */
    static final String LONG_CLIENT = "longClientTimeoutSeconds";

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
            List<String> nonHttp = nonHttpServers(c, f);
            if (nonHttp != null) {
                // timeout advice cannot help a proxy that cannot work: say what is wrong instead
                mine.add(nonHttpFinding(f, nonHttp, ctx));
                continue;
            }
            mine.add(missingFinding(f, hr, cl, ctx));
        }
        out.addAll(Notes.dedupe(mine, Frontends.of(c)));
        return out;
    }

    /** The finding for a frontend in mode http whose every server speaks another protocol. */
    private static Finding nonHttpFinding(
            Frontends.Frontend f, List<String> nonHttp, RuleContext ctx) {
        return ctx.finding(
                        Notes.at(f.section()),
                        f.section().label()
                                + " is in mode http"
                                + (f.modeDirective() == null
                                        ? ""
                                        : " (" + f.modeDirective().where() + ")")
                                + " but every server it sends to listens on the port of a"
                                + " protocol that is not HTTP ("
                                + String.join(", ", nonHttp)
                                + "): in mode http HAProxy parses what clients send as HTTP"
                                + " and answers anything else with 400 Bad request (checked"
                                + " with haproxy 2.6 and a PostgreSQL startup message), so"
                                + " this proxy cannot carry that traffic; a timeout"
                                + " http-request would not help")
                .severity(Severity.MEDIUM)
                .remediation(
                        "Set `mode tcp` in "
                                + f.section().label()
                                + " and the backends it uses (and give them a timeout"
                                + " client), or point it at HTTP servers if HTTP was"
                                + " meant.")
                .notes(Notes.of(f, f.modeDirective()))
                .key("mode http in front of non-HTTP servers")
                .build();
    }

    /** The finding for an HTTP frontend without (or with a zero) timeout http-request. */
    private static Finding missingFinding(
            Frontends.Frontend f, Frontends.Setting hr, Frontends.Setting cl, RuleContext ctx) {
        String client;
        Severity sev;
        if (!cl.set() || cl.millis() == 0) {
            client = "timeout client is unset too, so a slow client can hold a slot indefinitely";
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
        return ctx.finding(Notes.at(f.section()), msg)
                .severity(sev)
                .notes(Notes.of(f, f.modeDirective(), hr.directive(), cl.directive()))
                .key("no timeout http-request")
                .build();
    }

    /**
     * Well-known ports of protocols that are not HTTP (IANA registrations and the products'
     * defaults).
     */
    static final Map<Integer, String> NON_HTTP_PORTS =
            Map.ofEntries(
                    Map.entry(22, "SSH"),
                    Map.entry(25, "SMTP"),
                    Map.entry(389, "LDAP"),
                    Map.entry(636, "LDAPS"),
                    Map.entry(1433, "SQL Server"),
                    Map.entry(1521, "Oracle"),
                    Map.entry(2181, "ZooKeeper"),
                    Map.entry(3306, "MySQL"),
                    Map.entry(4222, "NATS"),
                    Map.entry(5432, "PostgreSQL"),
                    Map.entry(5671, "AMQP over TLS"),
                    Map.entry(5672, "AMQP"),
                    Map.entry(6379, "Redis"),
                    Map.entry(9042, "Cassandra CQL"),
                    Map.entry(9092, "Kafka"),
                    Map.entry(11211, "memcached"),
                    Map.entry(27017, "MongoDB"));

    /**
     * The servers of the frontend's backends (a listen's own included), "pg1 10.0.0.1:5432
     * (PostgreSQL)", when there is at least one and every one listens on a port of {@link
     * #NON_HTTP_PORTS}; null otherwise (a dynamic use_backend, an unknown backend, a server without
     * a port or on another port).
     */
    static List<String> nonHttpServers(HaproxyConfig c, Frontends.Frontend f) {
        if (f.dynamicBackends() || f.backends().isEmpty()) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (String name : f.backends()) {
            Section b = c.backend(name).orElse(null);
            if (b == null) {
                return null;
            }
            for (Directive d : b.directives()) {
                if (!d.is("server") || d.word(2) == null) {
                    continue;
                }
                String addr = d.word(2);
                int colon = addr.lastIndexOf(':');
                Integer port = null;
                if (colon >= 0 && !d.unresolved(2)) {
                    try {
                        port = Integer.valueOf(addr.substring(colon + 1));
                    } catch (NumberFormatException e) {
                        port = null;
                    }
                }
                String proto = port == null ? null : NON_HTTP_PORTS.get(port);
                if (proto == null) {
                    return null;
                }
                out.add(d.written(1) + " " + d.written(2) + " (" + proto + ")");
            }
        }
        return out.isEmpty() ? null : out;
    }
}
