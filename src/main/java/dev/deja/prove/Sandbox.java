package dev.deja.prove;

import com.sun.management.UnixOperatingSystemMXBean;
import dev.deja.haproxy.Directive;
import dev.deja.haproxy.HaproxyConfig;
import dev.deja.haproxy.Section;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The user's configuration made safe to run: a copy, line by line, in which every {@code bind}
 * listens on 127.0.0.1 on a free port (plain HTTP: TLS options dropped), every {@code server}
 * points at the loopback stub, what would touch the host or the network ({@code chroot}, {@code
 * user}/{@code group}, {@code daemon}, {@code pidfile}, log targets, Lua, resolvers, peers,
 * programs, missing files...) is removed, and the stats socket is in the temporary folder.
 * Everything that decides the outcome (maxconn, timeouts, stick tables, ACLs, tarpit, deny and
 * track rules) stays exactly as written. Every change is listed in {@link #changes()}.
 */
record Sandbox(String text, Map<String, Integer> frontendPorts, List<String> changes, Path socket) {

    /** Sections that reach the network or the host and play no part in the connection slots. */
    static final Set<String> DROPPED_SECTIONS =
            Set.of(
                    "resolvers",
                    "crt-store",
                    "peers",
                    "mailers",
                    "program",
                    "log-forward",
                    "ring",
                    "acme",
                    "traces",
                    "dynamic-update");

    /** global keywords that touch the host or the outside. */
    static final Set<String> DROPPED_GLOBAL =
            Set.of(
                    "chroot",
                    "user",
                    "group",
                    "uid",
                    "gid",
                    "daemon",
                    "pidfile",
                    "lua-load",
                    "lua-load-per-thread",
                    "lua-prepend-path",
                    "master-worker",
                    "cpu-map",
                    "ca-base",
                    "crt-base",
                    "key-base",
                    "server-state-file",
                    "server-state-base",
                    "localpeer",
                    "unix-bind",
                    "external-check",
                    "ssl-engine",
                    "ssl-dh-param-file",
                    "issuers-chain-path",
                    "h1-case-adjust-file",
                    "setcap",
                    "node",
                    "log-send-hostname",
                    "zero-warning",
                    "default-path",
                    "quic-socket",
                    "httpclient.resolvers.id",
                    "ssl-load-extra-files");

    /** bind options kept, with how many arguments they take. */
    static final Map<String, Integer> BIND_KEPT =
            Map.ofEntries(
                    Map.entry("maxconn", 1),
                    Map.entry("backlog", 1),
                    Map.entry("name", 1),
                    Map.entry("id", 1),
                    Map.entry("nice", 1),
                    Map.entry("process", 1),
                    Map.entry("thread", 1),
                    Map.entry("tcp-ut", 1),
                    Map.entry("defer-accept", 0),
                    Map.entry("v4v6", 0),
                    Map.entry("v6only", 0));

    /** Options of bind/server/default-server that take one argument (for dropping them with it). */
    static final Set<String> ONE_ARG =
            Set.of(
                    "crt",
                    "crt-list",
                    "ca-file",
                    "ca-verify-file",
                    "crl-file",
                    "ciphers",
                    "ciphersuites",
                    "curves",
                    "ecdhe",
                    "verify",
                    "verifyhost",
                    "alpn",
                    "npn",
                    "ssl-min-ver",
                    "ssl-max-ver",
                    "interface",
                    "namespace",
                    "mode",
                    "uid",
                    "gid",
                    "user",
                    "group",
                    "tls-ticket-keys",
                    "sigalgs",
                    "client-sigalgs",
                    "ca-sign-file",
                    "ca-sign-pass",
                    "proto",
                    "severity-output",
                    "expose-fd",
                    "accept-netscaler-cip",
                    "label",
                    "quic-cc-algo",
                    "quic-socket",
                    "level",
                    "ca-ignore-err",
                    "crt-ignore-err",
                    "sni",
                    "resolvers",
                    "resolve-prefer",
                    "resolve-net",
                    "resolve-opts",
                    "init-addr",
                    "source",
                    "usesrc",
                    "socks4",
                    "addr",
                    "port",
                    "agent-port",
                    "agent-addr",
                    "agent-send",
                    "agent-inter",
                    "check-sni",
                    "check-alpn",
                    "check-proto",
                    "proxy-v2-options",
                    "set-proxy-v2-tlv-fmt",
                    "mss",
                    "shards",
                    "nbconn",
                    "idle-ping",
                    "guid",
                    "pool-conn-name",
                    "hash-key",
                    "ws",
                    "cookie",
                    "weight",
                    "maxconn",
                    "maxqueue",
                    "minconn",
                    "inter",
                    "fastinter",
                    "downinter",
                    "rise",
                    "fall",
                    "slowstart",
                    "on-error",
                    "on-marked-down",
                    "on-marked-up",
                    "error-limit",
                    "observe",
                    "track",
                    "pool-max-conn",
                    "pool-purge-delay",
                    "pool-low-conn",
                    "max-reuse",
                    "redir",
                    "id",
                    "tcp-ut",
                    "log-proto",
                    "ssl-reuse",
                    "tfo",
                    "check-pool-conn-name");

    /**
     * server options dropped (TLS, DNS, PROXY protocol, health checks against something else than
     * the stub).
     */
    static final Set<String> SERVER_DROPPED =
            Set.of(
                    "ssl",
                    "check",
                    "check-ssl",
                    "agent-check",
                    "send-proxy",
                    "send-proxy-v2",
                    "send-proxy-v2-ssl",
                    "send-proxy-v2-ssl-cn",
                    "check-send-proxy",
                    "no-ssl-reuse",
                    "no-tls-tickets",
                    "tls-tickets",
                    "force-sslv3",
                    "force-tlsv10",
                    "force-tlsv11",
                    "force-tlsv12",
                    "force-tlsv13",
                    "no-sslv3",
                    "no-tlsv10",
                    "no-tlsv11",
                    "no-tlsv12",
                    "no-tlsv13",
                    "allow-0rtt",
                    "check-via-socks4",
                    "ca-file",
                    "crt",
                    "crl-file",
                    "sni",
                    "verify",
                    "verifyhost",
                    "ciphers",
                    "ciphersuites",
                    "alpn",
                    "npn",
                    "proto",
                    "resolvers",
                    "resolve-prefer",
                    "resolve-net",
                    "resolve-opts",
                    "init-addr",
                    "source",
                    "usesrc",
                    "namespace",
                    "socks4",
                    "addr",
                    "port",
                    "agent-port",
                    "agent-addr",
                    "agent-send",
                    "agent-inter",
                    "check-sni",
                    "check-alpn",
                    "check-proto",
                    "ssl-min-ver",
                    "ssl-max-ver",
                    "curves",
                    "sigalgs",
                    "client-sigalgs",
                    "proxy-v2-options",
                    "set-proxy-v2-tlv-fmt",
                    "interface",
                    "ws",
                    "tfo",
                    "check-pool-conn-name",
                    "no-check",
                    "no-check-ssl");

    /**
     * Writes the sandbox copy of {@code original} (the text {@code config} was parsed from) for a
     * stub on {@code stubPort}. {@code rewrites} replaces whole lines (1-based), e.g. an abuser ACL
     * mapped to loopback.
     */
    static Sandbox write(
            String original,
            HaproxyConfig config,
            Path dir,
            int stubPort,
            Map<Integer, String> rewrites)
            throws IOException {
        return write(original, config, dir, stubPort, rewrites, globalMaxconnCap());
    }

    /**
     * The highest global maxconn haproxy can start with here: it needs about two file descriptors
     * per connection, and an unprivileged process cannot raise its hard limit (haproxy refuses to
     * start instead).
     */
    static long globalMaxconnCap() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof UnixOperatingSystemMXBean u && u.getMaxFileDescriptorCount() > 0) {
            return Math.max(100, (u.getMaxFileDescriptorCount() - 200) / 2);
        }
        return Long.MAX_VALUE;
    }

    static Sandbox write(
            String original,
            HaproxyConfig config,
            Path dir,
            int stubPort,
            Map<Integer, String> rewrites,
            long maxconnCap)
            throws IOException {
        String[] lines = original.split("\r?\n", -1);
        Map<Integer, Directive> byLine = new HashMap<>();
        Map<Integer, Section> headers = new HashMap<>();
        Map<Integer, Section> sectionOf = new HashMap<>();
        String file = config.files().isEmpty() ? null : config.files().get(0);
        for (Section s : config.sections()) {
            if (s.file().equals(file)) {
                headers.put(s.line(), s);
            }
            for (Directive d : s.directives()) {
                if (d.file().equals(file)) {
                    byLine.put(d.line(), d);
                    sectionOf.put(d.line(), s);
                }
            }
        }
        Set<String> changes = new LinkedHashSet<>();
        Map<String, Integer> ports = new LinkedHashMap<>();
        Path socket = dir.resolve("s.sock");
        List<String> out = new ArrayList<>();
        boolean globalSeen = false;
        boolean dropping = false;
        int logLines = 0;
        int missing = 0;
        String stats = "    stats socket " + socket + " mode 600 level admin";
        for (int i = 0; i < lines.length; i++) {
            int ln = i + 1;
            String line = lines[i];
            Section header = headers.get(ln);
            if (header != null) {
                dropping = DROPPED_SECTIONS.contains(header.kind());
                if (dropping) {
                    changes.add(
                            header.label()
                                    + " ("
                                    + header.where()
                                    + ") removed: the sandbox reaches no other host");
                    out.add("# deja-prove: removed " + header.label());
                    continue;
                }
                out.add(line);
                if (header.kind().equals("global") && !globalSeen) {
                    globalSeen = true;
                    out.add(stats);
                    changes.add(
                            "stats socket "
                                    + socket
                                    + " (deja reads show info / show stat from it every 100 ms)");
                }
                continue;
            }
            Directive d = byLine.get(ln);
            if (d == null || dropping) {
                out.add(dropping && d != null ? "# deja-prove: removed" : line);
                continue;
            }
            Section s = sectionOf.get(ln);
            if (rewrites.containsKey(ln)) {
                out.add(rewrites.get(ln));
                continue;
            }
            String kw = d.keyword();
            String indent = line.substring(0, line.length() - line.stripLeading().length());
            if (s.kind().equals("global")
                    && (DROPPED_GLOBAL.contains(kw) || d.is("stats", "socket"))) {
                changes.add("'" + d.text() + "' (" + d.where() + ") removed");
                out.add("# deja-prove: removed " + kw);
                continue;
            }
            if (s.kind().equals("global")
                    && kw.equals("maxconn")
                    && d.size() > 1
                    && d.word(1).matches("\\d{1,12}")
                    && Long.parseLong(d.word(1)) > maxconnCap) {
                changes.add(
                        "global maxconn "
                                + d.word(1)
                                + " ("
                                + d.where()
                                + ") lowered to "
                                + maxconnCap
                                + ": haproxy"
                                + " needs two file descriptors per connection and this host allows it "
                                + (maxconnCap * 2 + 200)
                                + " (ulimit -n); frontends whose slots are above it are capped in the sandbox");
                out.add(indent + "maxconn " + maxconnCap);
                continue;
            }
            if (kw.equals("log") && !"global".equals(d.word(1))) {
                logLines++;
                out.add("# deja-prove: removed log target");
                continue;
            }
            if (kw.equals("bind") && s.acceptsClients()) {
                int port = freePort();
                String name = s.name() == null ? s.label() : s.name();
                ports.putIfAbsent(name, port);
                out.add(indent + bind(d, port, changes));
                continue;
            }
            if ((kw.equals("server") || kw.equals("server-template") || kw.equals("default-server"))
                            && s.isProxy()
                    || kw.equals("default-server") && s.kind().equals("defaults")) {
                out.add(indent + server(d, stubPort, changes));
                continue;
            }
            if (kw.equals("dispatch")
                    || kw.equals("source")
                    || kw.equals("email-alert")
                    || kw.equals("external-check")
                    || d.is("option", "external-check")
                    || d.words().stream()
                            .anyMatch(
                                    w ->
                                            w.startsWith("lua.")
                                                    || w.equals("do-resolve")
                                                    || w.startsWith("do-resolve("))) {
                changes.add(
                        "'"
                                + d.text()
                                + "' ("
                                + d.where()
                                + ") removed: it reaches outside the sandbox");
                out.add("# deja-prove: removed " + kw);
                continue;
            }
            if (kw.equals("errorfile")
                    && d.size() > 2
                    && !Files.isRegularFile(Path.of(d.word(2)))) {
                changes.add(
                        "'"
                                + d.text()
                                + "' ("
                                + d.where()
                                + ") removed: the file does not exist here");
                out.add("# deja-prove: removed errorfile");
                continue;
            }
            // pattern and map files that do not exist here: an empty file in the sandbox
            String rewritten = line;
            for (int w = 1; w < d.size(); w++) {
                String word = d.word(w);
                List<String> paths = new ArrayList<>();
                if ("-f".equals(d.word(w - 1)) && word.startsWith("/")) {
                    paths.add(word);
                }
                Matcher m = MAP_FILE.matcher(word);
                while (m.find()) {
                    paths.add(m.group(1));
                }
                for (String p : paths) {
                    if (!Files.isRegularFile(Path.of(p))) {
                        Path empty = dir.resolve("missing-" + (++missing) + ".lst");
                        Files.writeString(empty, "");
                        rewritten = rewritten.replace(p, empty.toString());
                        changes.add(
                                p
                                        + " ("
                                        + d.where()
                                        + ") does not exist here: an empty file in the sandbox");
                    }
                }
            }
            out.add(rewritten);
        }
        if (!globalSeen) {
            out.add(0, "global");
            out.add(1, stats);
            changes.add("stats socket " + socket + " (a global section added for it)");
        }
        if (logLines > 0) {
            changes.add(
                    logLines
                            + " log target line"
                            + (logLines == 1 ? "" : "s")
                            + " removed (log global kept)");
        }
        changes.add("every server points at the loopback stub 127.0.0.1:" + stubPort);
        return new Sandbox(String.join("\n", out) + "\n", ports, List.copyOf(changes), socket);
    }

    private static final Pattern MAP_FILE = Pattern.compile("map(?:_[a-z_]+)?\\((/[^,)]+)");

    /**
     * {@code bind ADDR [options]} on 127.0.0.1:port with only the options that shape connection
     * slots.
     */
    static String bind(Directive d, int port, Set<String> changes) {
        StringBuilder b = new StringBuilder("bind 127.0.0.1:" + port);
        List<String> dropped = new ArrayList<>();
        int i = 2;
        while (i < d.size()) {
            String w = d.word(i);
            Integer kept = BIND_KEPT.get(w);
            if (kept != null) {
                b.append(' ').append(w);
                for (int k = 1; k <= kept && i + k < d.size(); k++) {
                    b.append(' ').append(d.word(i + k));
                }
                i += 1 + kept;
                continue;
            }
            int n = ONE_ARG.contains(w) ? 1 : 0;
            dropped.add(
                    n == 1 && i + 1 < d.size()
                            ? d.written(i) + " " + d.written(i + 1)
                            : d.written(i));
            i += 1 + n;
        }
        changes.add(
                "bind "
                        + d.written(1)
                        + " ("
                        + d.where()
                        + ") listens on 127.0.0.1:"
                        + port
                        + (dropped.isEmpty()
                                ? ""
                                : "; dropped: "
                                        + String.join(", ", dropped)
                                        + (dropped.stream()
                                                        .anyMatch(
                                                                x ->
                                                                        x.equals("ssl")
                                                                                || x.startsWith(
                                                                                        "crt"))
                                                ? " (TLS: the sandbox speaks plain HTTP; certificate files are not read)"
                                                : "")));
        return b.toString();
    }

    /**
     * {@code server NAME ADDR [options]} against the stub; options that reach elsewhere are
     * dropped.
     */
    static String server(Directive d, int stubPort, Set<String> changes) {
        StringBuilder b = new StringBuilder(d.keyword());
        int first;
        if (d.is("default-server")) {
            first = 1;
        } else if (d.is("server-template")) {
            b.append(' ')
                    .append(d.word(1))
                    .append(' ')
                    .append(d.word(2))
                    .append(" 127.0.0.1:")
                    .append(stubPort);
            first = 4;
        } else {
            b.append(' ').append(d.word(1)).append(" 127.0.0.1:").append(stubPort);
            first = 3;
        }
        List<String> dropped = new ArrayList<>();
        int i = first;
        while (i < d.size()) {
            String w = d.word(i);
            int n = ONE_ARG.contains(w) ? 1 : 0;
            if (SERVER_DROPPED.contains(w)) {
                dropped.add(
                        n == 1 && i + 1 < d.size()
                                ? d.written(i) + " " + d.written(i + 1)
                                : d.written(i));
            } else {
                b.append(' ').append(w);
                if (n == 1 && i + 1 < d.size()) {
                    b.append(' ').append(d.word(i + 1));
                }
            }
            i += 1 + n;
        }
        if (!dropped.isEmpty()) {
            changes.add(
                    d.keyword()
                            + (d.is("default-server") ? "" : " " + d.written(1))
                            + " ("
                            + d.where()
                            + "): dropped "
                            + String.join(", ", dropped)
                            + " (health checks off: the stub always answers)");
        }
        return b.toString();
    }

    /** A free TCP port on 127.0.0.1 (above 1024: unprivileged). */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            return s.getLocalPort();
        }
    }
}
