package dev.deja.rules.haproxy;

import dev.deja.engine.Finding;
import dev.deja.engine.RuleContext;
import dev.deja.engine.Severity;
import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.Section;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * IL-0011 (Skyscanner): a backend balanced round robin ({@code roundrobin}, {@code static-rr}, or
 * no {@code balance} at all, HAProxy's default) over servers listed in ascending address order, in
 * a configuration that several HAProxy instances run (its {@code peers} section names {@value
 * #MIN_INSTANCES} or more, or {@code --haproxy-instances} says so). HAProxy starts round robin at
 * the first server of the list on every start, and a reload is a start: a new process reads the
 * configuration again (the server-state file carries server states and weights, not the round-robin
 * position). Every instance that restarts or reloads at the same time sends its first requests to
 * the same first servers.
 *
 * <p>Not reported: {@code leastconn} (it too starts at the first server, then follows each server's
 * connections), {@code random} (not in list order), hash-based algorithms, fewer than {@value
 * #MIN_SERVERS} servers, servers given by name (their order is not an address order), and a
 * configuration that gives no sign of running as several instances.
 */
public final class RoundRobinSameStart extends HaproxyRule {
    public static final String ID = "haproxy-roundrobin-same-start";

    public RoundRobinSameStart() {
        super(ID);
    }

    static final int MIN_SERVERS = 3;
    static final int MIN_INSTANCES = 2;

    /**
     * Parameter: the least concentration (instances in step, at most the servers) that keeps the
     * rule's severity; below it the finding is low.
     */
    static final String MEDIUM_FACTOR = "mediumFactor";

    @Override
    List<Finding> check(HaproxyConfig c, RuleContext ctx) {
        List<Finding> out = new ArrayList<>();
        Fleet fleet = fleet(c, ctx.settings().getInt("haproxy-instances", 0));
        if (fleet == null) {
            return out;
        }
        for (Section s : c.sections()) {
            if (!s.kind().equals("backend") && !s.kind().equals("listen")) {
                continue;
            }
            Directive balance = s.effective("balance");
            String algo =
                    balance == null
                            ? "roundrobin"
                            : String.valueOf(balance.word(1)).toLowerCase(Locale.ROOT);
            if (!algo.equals("roundrobin") && !algo.equals("static-rr")) {
                continue;
            }
            List<Directive> servers = ascendingServers(s);
            if (servers == null) {
                continue;
            }
            out.add(finding(s, balance, servers, fleet, ctx));
        }
        return out;
    }

    /**
     * The active servers of s (not backup, not disabled), when there are {@value #MIN_SERVERS} or
     * more, each given by an IPv4 address, listed in ascending address order; else null.
     */
    private static List<Directive> ascendingServers(Section s) {
        List<Directive> servers = new ArrayList<>();
        List<long[]> keys = new ArrayList<>();
        boolean allAddresses = true;
        for (Directive d : s.directives()) {
            if (!d.is("server")
                    || d.size() < 3
                    || d.words().contains("backup")
                    || d.words().contains("disabled")) {
                continue;
            }
            long[] k = address(d.word(2));
            if (k == null) {
                allAddresses = false;
                break;
            }
            servers.add(d);
            keys.add(k);
        }
        if (!allAddresses || servers.size() < MIN_SERVERS || !ascending(keys)) {
            return null;
        }
        return servers;
    }

    /** The finding for backend s, balanced round robin over servers in ascending order. */
    private static Finding finding(
            Section s, Directive balance, List<Directive> servers, Fleet fleet, RuleContext ctx) {
        Directive first = servers.get(0);
        // in step, each instance's k-th request goes to the same server: while they restart
        // together, one server takes the requests of every instance where a spread would give
        // it one share of them (I of I, not I/S, when I < S; every instance's request, S times
        // its share, when I >= S)
        int factor = Math.min(fleet.instances(), servers.size());
        int mediumFactor = ctx.intParameter(MEDIUM_FACTOR);
        boolean lesser = factor < mediumFactor;
        String arithmetic = arithmetic(fleet.instances(), servers.size(), factor);
        String how =
                balance == null
                        ? "round robin (no balance line: HAProxy's default is roundrobin)"
                        : "'" + balance.text() + "' (" + balance.where() + ")";
        return ctx.finding(
                        Notes.at(s, first),
                        s.label()
                                + " balances "
                                + how
                                + " over "
                                + servers.size()
                                + " servers listed in ascending address order ("
                                + first.written(2)
                                + " ... "
                                + servers.get(servers.size() - 1).written(2)
                                + "), and "
                                + fleet.why()
                                + ": HAProxy starts round"
                                + " robin at the first server on every start and every reload (a reload is a new process; the"
                                + " server-state file does not carry the round-robin position), so instances that restart together"
                                + " all send their first requests to server "
                                + first.written(1)
                                + " ("
                                + first.written(2)
                                + "), then "
                                + servers.get(1).written(1)
                                + ", in step; "
                                + arithmetic
                                + (lesser
                                        ? " (under "
                                                + mediumFactor
                                                + "x: a lesser risk than Skyscanner's"
                                                + " fleet of many instances; a pair such"
                                                + " as keepalived's often has one"
                                                + " instance active)"
                                        : ", as Skyscanner's ingress fleet did"))
                .notes(Notes.of(s, balance, first, fleet.directive()))
                .severity(lesser ? Severity.LOW : ctx.metadata().severity())
                .key("round robin from the same server" + (lesser ? ", lesser concentration" : ""))
                .build();
    }

    /** How much more than its share the first server takes while the instances restart together. */
    private static String arithmetic(int instances, int servers, int factor) {
        return instances < servers
                ? instances
                        + " instances in step send their first "
                        + instances
                        + " requests to that one server where round robin from different"
                        + " starts would spread them over "
                        + instances
                        + " of the "
                        + servers
                        + " servers: up to "
                        + factor
                        + "x its share while they restart together"
                : instances
                        + " instances in step send every request of a round to that one"
                        + " server where a spread gives each of the "
                        + servers
                        + " servers "
                        + instances
                        + "/"
                        + servers
                        + " of them: up to "
                        + factor
                        + "x its share while they restart together";
    }

    /**
     * How many instances run the configuration, why deja thinks so, and the directive that says so.
     */
    record Fleet(int instances, String why, Directive directive) {}

    /**
     * A peers section with at least two peers (the configuration is shared by that many instances),
     * else the user's word ({@code --haproxy-instances N}, N >= 2).
     */
    static Fleet fleet(HaproxyConfig c, int declared) {
        for (Section s : c.sections()) {
            if (!s.kind().equals("peers")) {
                continue;
            }
            List<Directive> peers = s.all(d -> d.is("peer") || d.is("server"));
            if (peers.size() >= MIN_INSTANCES) {
                return new Fleet(
                        peers.size(),
                        "peers section "
                                + (s.name() == null ? "" : s.name() + " ")
                                + "("
                                + s.where()
                                + ") names "
                                + peers.size()
                                + " HAProxy instances that run this configuration",
                        peers.get(0));
            }
        }
        return declared >= MIN_INSTANCES
                ? new Fleet(
                        declared,
                        "--haproxy-instances says "
                                + declared
                                + " HAProxy instances run this configuration",
                        null)
                : null;
    }

    static boolean ascending(List<long[]> keys) {
        for (int i = 1; i < keys.size(); i++) {
            long[] a = keys.get(i - 1);
            long[] b = keys.get(i);
            if (a[0] > b[0] || a[0] == b[0] && a[1] >= b[1]) {
                return false;
            }
        }
        return true;
    }

    /** "10.0.0.12:8080" -> {address as a number, port}; null when not an IPv4 literal. */
    static long[] address(String w) {
        if (w == null) {
            return null;
        }
        String host = w;
        long port = 0;
        int colon = w.indexOf(':');
        if (colon >= 0) {
            host = w.substring(0, colon);
            try {
                port = w.length() > colon + 1 ? Long.parseLong(w.substring(colon + 1)) : 0;
            } catch (NumberFormatException e) {
                return null;
            }
        }
        String[] parts = host.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        long v = 0;
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit)) {
                return null;
            }
            int n = Integer.parseInt(p);
            if (n > 255) {
                return null;
            }
            v = v * 256 + n;
        }
        return new long[] {v, port};
    }
}
