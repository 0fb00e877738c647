package dev.deja.prove;

import com.sun.management.UnixOperatingSystemMXBean;
import dev.deja.engine.InputException;
import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.Section;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The configuration haproxy runs in {@code deja prove}, <b>written by deja from what it parsed</b>,
 * never copied: an allowlist of the sections, keywords, options and actions the replay needs (the
 * proxies, their maxconn, timeouts, stick tables, ACLs, rate-limit and tarpit rules, what those
 * reference), each word written out quoted so that haproxy reads exactly the word deja read (no
 * variable, escape or comment left to expand). {@code .if} blocks were decided by the parser with
 * the version of the binary that runs; a directive under a block deja could not decide, a keyword
 * that is a variable, a word with a variable deja has no value for, and everything not on the
 * allowlist are left out, each named with its file:line in {@link #changes()}. Every {@code bind}
 * listens on 127.0.0.1 on a free port, every {@code server} points at the loopback stub, the stats
 * socket is in the sandbox folder, and a file the configuration reads (map, pattern, errorfile) is
 * copied in when it lies inside the configuration's own folder tree and is replaced otherwise.
 */
record Sandbox(String text, Map<String, Integer> frontendPorts, List<String> changes, Path socket) {

    /** Sections written out; every other kind is left out. */
    static final Set<String> SECTIONS =
            Set.of(
                    "global",
                    "defaults",
                    "frontend",
                    "backend",
                    "listen",
                    "userlist",
                    "http-errors");

    /** global keywords kept (plus {@code tune.*}); everything else in global is left out. */
    static final Set<String> GLOBAL_KEPT =
            Set.of(
                    "maxconn",
                    "maxconnrate",
                    "maxsessrate",
                    "maxpipes",
                    "nbthread",
                    "thread-groups",
                    "noepoll",
                    "nopoll",
                    "nosplice",
                    "nogetaddrinfo",
                    "noreuseport",
                    "busy-polling",
                    "stats");

    /** Keywords kept in defaults, frontend, backend and listen sections. */
    static final Set<String> PROXY_KEPT =
            Set.of(
                    "mode",
                    "maxconn",
                    "fullconn",
                    "backlog",
                    "timeout",
                    "option",
                    "no",
                    "acl",
                    "http-request",
                    "http-response",
                    "http-after-response",
                    "tcp-request",
                    "tcp-response",
                    "use_backend",
                    "default_backend",
                    "use-server",
                    "force-persist",
                    "ignore-persist",
                    "balance",
                    "hash-type",
                    "hash-balance-factor",
                    "cookie",
                    "persist",
                    "stick",
                    "stick-table",
                    "retries",
                    "retry-on",
                    "http-reuse",
                    "max-keep-alive-queue",
                    "rate-limit",
                    "redirect",
                    "monitor-uri",
                    "monitor",
                    "stats",
                    "capture",
                    "declare",
                    "unique-id-format",
                    "unique-id-header",
                    "errorfile",
                    "errorfiles",
                    "errorloc",
                    "errorloc302",
                    "errorloc303",
                    "http-error",
                    "id",
                    "disabled",
                    "enabled",
                    "bind",
                    "server",
                    "default-server",
                    "server-template");

    /** {@code option NAME} kept; the others (checks, transparent, http_proxy...) are left out. */
    static final Set<String> OPTIONS_KEPT =
            Set.of(
                    "http-server-close",
                    "http-keep-alive",
                    "httpclose",
                    "forceclose",
                    "http-buffer-request",
                    "abortonclose",
                    "redispatch",
                    "forwardfor",
                    "originalto",
                    "prefer-last-server",
                    "persist",
                    "accept-invalid-http-request",
                    "accept-invalid-http-response",
                    "http-ignore-probes",
                    "http-no-delay",
                    "http-pretend-keepalive",
                    "allbackups",
                    "disable-h2-upgrade",
                    "independent-streams",
                    "idle-close-on-response",
                    "http-restrict-req-hdr-names",
                    "nolinger",
                    "tcpka",
                    "clitcpka",
                    "srvtcpka",
                    "tcp-smart-accept",
                    "tcp-smart-connect",
                    "splice-auto",
                    "splice-request",
                    "splice-response",
                    "contstats",
                    "socket-stats",
                    "http-use-proxy-header",
                    "h1-case-adjust-bogus-client",
                    "h1-case-adjust-bogus-server");

    /** {@code timeout NAME} kept. */
    static final Set<String> TIMEOUTS_KEPT =
            Set.of(
                    "client",
                    "server",
                    "connect",
                    "http-request",
                    "http-keep-alive",
                    "queue",
                    "tarpit",
                    "tunnel",
                    "client-fin",
                    "server-fin");

    /** {@code stats NAME} kept in proxies (the page HAProxy serves itself) and in global. */
    static final Set<String> STATS_KEPT =
            Set.of(
                    "enable",
                    "uri",
                    "realm",
                    "auth",
                    "refresh",
                    "hide-version",
                    "admin",
                    "show-legends",
                    "show-desc",
                    "show-node",
                    "scope",
                    "http-request");

    static final Set<String> GLOBAL_STATS_KEPT = Set.of("timeout", "maxconn");

    /**
     * Actions of http-request/-response/-after-response and tcp-request/-response rules kept (the
     * name before any parenthesis; {@code track-scN}, {@code sc-*} by prefix). Left out: what
     * connects elsewhere or runs code ({@code set-dst}, {@code set-dst-port}, {@code do-resolve},
     * {@code use-service}, {@code lua.*}, {@code send-spoe-group}, {@code cache-use}...).
     */
    static final Set<String> ACTIONS_KEPT =
            Set.of(
                    "allow",
                    "accept",
                    "deny",
                    "reject",
                    "tarpit",
                    "auth",
                    "redirect",
                    "return",
                    "set-var",
                    "set-var-fmt",
                    "unset-var",
                    "set-header",
                    "add-header",
                    "del-header",
                    "replace-header",
                    "replace-value",
                    "set-path",
                    "set-pathq",
                    "set-query",
                    "set-uri",
                    "replace-path",
                    "replace-pathq",
                    "replace-uri",
                    "set-method",
                    "set-status",
                    "set-log-level",
                    "set-nice",
                    "set-mark",
                    "set-tos",
                    "set-priority-class",
                    "set-priority-offset",
                    "set-timeout",
                    "set-src",
                    "set-src-port",
                    "capture",
                    "silent-drop",
                    "disable-l7-retry",
                    "early-hint",
                    "strict-mode",
                    "wait-for-body",
                    "wait-for-handshake",
                    "normalize-uri",
                    "set-map",
                    "del-map",
                    "add-acl",
                    "del-acl",
                    "expect-proxy",
                    "expect-netscaler-cip",
                    "switch-mode",
                    "content",
                    "inspect-delay");

    /** bind options kept, with how many arguments they take. */
    static final Map<String, Integer> BIND_KEPT =
            Map.ofEntries(
                    Map.entry("maxconn", 1),
                    Map.entry("backlog", 1),
                    Map.entry("name", 1),
                    Map.entry("id", 1),
                    Map.entry("nice", 1),
                    Map.entry("thread", 1),
                    Map.entry("tcp-ut", 1),
                    Map.entry("defer-accept", 0),
                    Map.entry("accept-proxy", 0));

    /** server and default-server options kept, with how many arguments they take. */
    static final Map<String, Integer> SERVER_KEPT =
            Map.ofEntries(
                    Map.entry("weight", 1),
                    Map.entry("maxconn", 1),
                    Map.entry("maxqueue", 1),
                    Map.entry("minconn", 1),
                    Map.entry("id", 1),
                    Map.entry("cookie", 1),
                    Map.entry("backup", 0),
                    Map.entry("disabled", 0),
                    Map.entry("enabled", 0),
                    Map.entry("non-stick", 0));

    /**
     * Options of bind/server/default-server that take one argument: an option left out is left out
     * with its argument, so that the argument is never read as an option.
     */
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
                    "check-pool-conn-name",
                    "nice",
                    "backlog",
                    "name",
                    "thread",
                    "process",
                    "log-bufsize",
                    "ocsp-update",
                    "ssl-engine");

    /** Why a keyword is left out, for the report; anything else: not needed for the replay. */
    private static final Map<String, String> WHY =
            Map.ofEntries(
                    Map.entry("lua-load", "it runs Lua code"),
                    Map.entry("lua-load-per-thread", "it runs Lua code"),
                    Map.entry("lua-prepend-path", "it runs Lua code"),
                    Map.entry("insecure-fork-wanted", "it lets haproxy start programs"),
                    Map.entry("external-check", "it starts programs"),
                    Map.entry("setenv", "the sandbox passes no environment on"),
                    Map.entry("presetenv", "the sandbox passes no environment on"),
                    Map.entry("resetenv", "the sandbox passes no environment on"),
                    Map.entry("unsetenv", "the sandbox passes no environment on"),
                    Map.entry("chroot", "it touches the host"),
                    Map.entry("user", "it touches the host"),
                    Map.entry("group", "it touches the host"),
                    Map.entry("uid", "it touches the host"),
                    Map.entry("gid", "it touches the host"),
                    Map.entry("daemon", "haproxy runs in the foreground"),
                    Map.entry("master-worker", "haproxy runs in the foreground"),
                    Map.entry("pidfile", "it touches the host"),
                    Map.entry("unix-bind", "it touches the host"),
                    Map.entry("cpu-map", "it touches the host"),
                    Map.entry("ulimit-n", "the sandbox runs with this host's file limit"),
                    Map.entry("log", "the sandbox reaches no other host"),
                    Map.entry("source", "the sandbox reaches no other host"),
                    Map.entry("dispatch", "the sandbox reaches no other host"),
                    Map.entry("transparent", "the sandbox reaches no other host"),
                    Map.entry("email-alert", "the sandbox reaches no other host"),
                    Map.entry("http-check", "health checks are off: the stub always answers"),
                    Map.entry("tcp-check", "health checks are off: the stub always answers"));

    /** Converters and fetches that read a file at start: {@code map*(FILE...)}. */
    private static final Pattern MAP_FILE = Pattern.compile("\\bmap(?:_[a-z0-9_]+)?\\(([^,)]+)");

    /**
     * Actions whose argument in parentheses is a file: {@code set-map(FILE)}, {@code add-acl}...
     */
    private static final Pattern ACTION_FILE =
            Pattern.compile("^(?:set-map|del-map|add-acl|del-acl)\\(([^)]+)\\)$");

    /** The largest file copied into the sandbox (a map, pattern or errorfile). */
    static final long MAX_FILE_BYTES = 16L << 20;

    /** At most this many files copied or replaced. */
    static final int MAX_FILES = 256;

    private static final Pattern KEYWORD = Pattern.compile("[a-z0-9][a-z0-9._-]*");

    /** Words haproxy reads the same quoted or not; every other word is written in single quotes. */
    private static final Pattern BARE = Pattern.compile("[A-Za-z0-9_.:/@+,=()\\[\\]{}<>!*?^|~%-]+");

    /** A configuration deja will not run at all: the message names file:line (exit 2). */
    static final class Refused extends InputException {
        private static final long serialVersionUID = 1L;

        Refused(String why) {
            super(why);
        }
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

    /**
     * Writes the sandbox configuration for {@code config} (parsed with the running binary's version
     * and no environment) into {@code dir}, for a stub on {@code stubPort}. {@code rewrites}
     * replaces directives (by line) with words deja wrote itself (an abuser ACL mapped to
     * loopback). {@code home} is the folder tree whose files may be copied in (the configuration's
     * own folder), null when there is none.
     */
    static Sandbox write(
            HaproxyConfig config,
            Path dir,
            int stubPort,
            Map<Integer, List<String>> rewrites,
            long maxconnCap,
            Path home)
            throws IOException {
        return new Writer(config, dir, stubPort, rewrites, maxconnCap, home).write();
    }

    private static final class Writer {
        final HaproxyConfig config;
        final Path dir;
        final int stubPort;
        final Map<Integer, List<String>> rewrites;
        final long maxconnCap;
        final Path home;
        final String file;
        final List<String> changes = new ArrayList<>();
        final List<String> leftOut = new ArrayList<>();
        final Map<String, Integer> ports = new LinkedHashMap<>();
        final Map<String, Path> files = new HashMap<>();
        final List<String> out = new ArrayList<>();
        final Path socket;
        int binds;
        int servers;

        Writer(
                HaproxyConfig config,
                Path dir,
                int stubPort,
                Map<Integer, List<String>> rewrites,
                long maxconnCap,
                Path home)
                throws IOException {
            this.config = config;
            this.dir = dir;
            this.stubPort = stubPort;
            this.rewrites = rewrites;
            this.maxconnCap = maxconnCap;
            this.home = home == null ? null : home.toRealPath();
            this.file = config.files().isEmpty() ? null : config.files().get(0);
            this.socket = dir.resolve("s.sock");
        }

        Sandbox write() throws IOException {
            boolean global = false;
            for (Section s : config.sections()) {
                if (s.kind().equals("global") && !global) {
                    global = true;
                    out.add("global");
                    out.add("    stats socket " + socket + " mode 600 level admin");
                    changes.add(
                            "stats socket "
                                    + socket
                                    + " (deja reads show info / show stat from it every 100 ms)");
                    directives(s);
                    continue;
                }
                section(s);
            }
            if (!global) {
                out.add(0, "global");
                out.add(1, "    stats socket " + socket + " mode 600 level admin");
                changes.add("stats socket " + socket + " (a global section added for it)");
            }
            if (binds > 0) {
                changes.add(binds + " bind line(s): each listens on 127.0.0.1 on a free port");
            }
            changes.add(
                    "every server points at the loopback stub 127.0.0.1:"
                            + stubPort
                            + (servers > 0 ? " (" + servers + " server line(s))" : "")
                            + "; health checks off");
            changes.addAll(leftOut);
            return new Sandbox(String.join("\n", out) + "\n", ports, List.copyOf(changes), socket);
        }

        void section(Section s) throws IOException {
            String where = s.where();
            if (s.guard() != null || s.condition() != null) {
                leftOut(s.label(), where, "under an .if deja cannot decide for this haproxy");
                return;
            }
            if (!SECTIONS.contains(s.kind()) || s.kind().equals("global")) {
                leftOut(
                        s.label() + " (the whole section)",
                        where,
                        s.kind().equals("global")
                                ? "a second global section"
                                : s.kind().equals("program")
                                        ? "it starts a program"
                                        : "the replay does not need it and it may reach the host");
                return;
            }
            StringBuilder h = new StringBuilder(s.kind());
            if (s.name() != null) {
                h.append(' ').append(quote(s.name()));
            }
            if (s.from() != null) {
                h.append(" from ").append(quote(s.from()));
            }
            out.add(h.toString());
            directives(s);
        }

        void directives(Section s) throws IOException {
            for (Directive d : s.directives()) {
                String line = directive(s, d);
                if (line != null) {
                    out.add("    " + line);
                }
            }
        }

        /** The line written for d, or null when it is left out (and said so). */
        String directive(Section s, Directive d) throws IOException {
            String kw = d.keyword();
            refuseUnread(d, kw);
            String unsafe = unsafe(d);
            if (unsafe != null) {
                return leftOut(d, unsafe);
            }
            if (d.file() != null && d.file().equals(file) && rewrites.containsKey(d.line())) {
                return join(rewrites.get(d.line()));
            }
            String why = WHY.get(kw);
            if (s.kind().equals("global")) {
                return global(d, kw, why);
            }
            if (s.kind().equals("userlist")) {
                return kw.equals("user") || kw.equals("group")
                        ? words(d, 0)
                        : leftOut(d, "not needed for the replay");
            }
            if (s.kind().equals("http-errors")) {
                return kw.equals("errorfile") ? errorfile(d, 2) : leftOut(d, "not needed");
            }
            if (!PROXY_KEPT.contains(kw)) {
                return leftOut(d, why == null ? "not needed for the replay" : why);
            }
            return proxy(s, d, kw);
        }

        /**
         * Refuses a keyword deja has not read as it is: a variable, or not a keyword's characters.
         */
        private static void refuseUnread(Directive d, String kw) {
            String written = d.written(0);
            if (written != null && (written.contains("$") || !KEYWORD.matcher(kw).matches())) {
                throw new Refused(
                        d.where()
                                + ": the keyword is "
                                + (written.contains("$")
                                        ? "a variable (" + written + ")"
                                        : "'" + written + "'")
                                + ": deja runs only what it has read, and cannot tell what"
                                + " haproxy would make of it; write the keyword itself");
            }
        }

        /**
         * Why d cannot run in the sandbox whatever its keyword (under an .if, an unresolved
         * variable, a control character, Lua), or null.
         */
        private static String unsafe(Directive d) {
            if (d.guard() != null || d.condition() != null) {
                return "under an .if deja cannot decide for this haproxy";
            }
            if (!d.unresolved().isEmpty()) {
                return "it uses ${"
                        + d.unresolved().get(0)
                        + "}, and the sandbox passes no environment on";
            }
            for (String w : d.words()) {
                for (int i = 0; i < w.length(); i++) {
                    char c = w.charAt(i);
                    if (c < 0x20 && c != '\t' || c == 0x7f) {
                        return "a word holds a control character";
                    }
                }
                if (w.startsWith("lua.") || w.contains(",lua.") || w.contains("%[lua.")) {
                    return "it runs Lua code";
                }
            }
            return null;
        }

        /** The line written for d of the global section, or null when it is left out. */
        private String global(Directive d, String kw, String why) {
            if (kw.equals("maxconn")
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
                                + ": haproxy needs two file descriptors per connection and this"
                                + " host allows it "
                                + (maxconnCap * 2 + 200)
                                + " (ulimit -n); frontends whose slots are above it are capped in"
                                + " the sandbox");
                return "maxconn " + maxconnCap;
            }
            if (kw.equals("stats")) {
                return GLOBAL_STATS_KEPT.contains(d.word(1))
                        ? words(d, 0)
                        : leftOut(
                                d,
                                d.is("stats", "socket")
                                        ? "the sandbox has its own stats socket"
                                        : "not needed for the replay");
            }
            if (GLOBAL_KEPT.contains(kw)
                    || kw.startsWith("tune.")
                            && !kw.startsWith("tune.lua")
                            && !kw.startsWith("tune.ssl")) {
                return words(d, 0);
            }
            return leftOut(d, why == null ? "not needed for the replay" : why);
        }

        /** The line written for d of a proxy section, its keyword one the replay keeps. */
        private String proxy(Section s, Directive d, String kw) throws IOException {
            switch (kw) {
                case "bind":
                    return s.acceptsClients() ? bind(s, d) : leftOut(d, "not a frontend");
                case "server":
                case "server-template":
                case "default-server":
                    return server(s, d);
                case "option":
                    return option(d, 1);
                case "no":
                    return d.is("no", "option") ? option(d, 2) : leftOut(d, "not needed");
                case "timeout":
                    return TIMEOUTS_KEPT.contains(d.word(1))
                            ? words(d, 0)
                            : leftOut(d, "not needed for the replay");
                case "stats":
                    return STATS_KEPT.contains(d.word(1))
                            ? words(d, 0)
                            : leftOut(d, "not needed for the replay");
                case "stick-table":
                    return stickTable(d);
                case "errorfile":
                    return errorfile(d, 2);
                case "http-error":
                    return fileArgument(d, Set.of("errorfile", "file", "lf-file"), true);
                case "declare":
                    return d.is("declare", "capture") ? words(d, 0) : leftOut(d, "not needed");
                case "http-request":
                case "http-response":
                case "http-after-response":
                case "tcp-request":
                case "tcp-response":
                    return rule(d);
                default:
                    return patterns(d);
            }
        }

        String rule(Directive d) throws IOException {
            int at = d.is("tcp-request") || d.is("tcp-response") ? 2 : 1;
            if ((d.is("tcp-request") || d.is("tcp-response"))
                    && "inspect-delay".equals(d.word(1))) {
                return words(d, 0);
            }
            String action = d.word(at);
            if (action == null) {
                return leftOut(d, "no action");
            }
            int p = action.indexOf('(');
            String base = p < 0 ? action : action.substring(0, p);
            boolean kept =
                    ACTIONS_KEPT.contains(base)
                            || base.matches("track-sc\\d+")
                            || base.matches("sc-[a-z0-9-]+");
            if (!kept) {
                return leftOut(
                        d,
                        base.startsWith("set-dst") || base.equals("do-resolve")
                                ? "the sandbox reaches no other host"
                                : base.startsWith("lua.") || base.equals("use-service")
                                        ? "it runs code"
                                        : "the replay does not need action '" + base + "'");
            }
            Matcher m = ACTION_FILE.matcher(action);
            if (m.matches()) {
                String to = sandboxFile(d, m.group(1), false);
                return words(d, 0).replace(quote(action), quote(action.replace(m.group(1), to)));
            }
            if (base.equals("return")) {
                return fileArgument(d, Set.of("file", "lf-file", "errorfile"), false);
            }
            return patterns(d);
        }

        /** Writes d with its pattern files ({@code -f FILE}) and map files confined. */
        String patterns(Directive d) throws IOException {
            List<String> words = new ArrayList<>(d.words());
            for (int i = 1; i < words.size(); i++) {
                String w = words.get(i);
                if ("-f".equals(words.get(i - 1)) && !w.startsWith("-")) {
                    words.set(i, sandboxFile(d, w, false));
                    continue;
                }
                Matcher m = MAP_FILE.matcher(w);
                StringBuilder sb = new StringBuilder();
                int last = 0;
                while (m.find()) {
                    sb.append(w, last, m.start(1)).append(sandboxFile(d, m.group(1), false));
                    last = m.end(1);
                }
                if (last > 0) {
                    sb.append(w.substring(last));
                    words.set(i, sb.toString());
                }
            }
            return join(words);
        }

        /** An errorfile-like directive: the file at word i, or the directive left out. */
        String errorfile(Directive d, int i) throws IOException {
            String f = d.word(i);
            if (f == null) {
                return words(d, 0);
            }
            String to = sandboxFile(d, f, true);
            if (to == null) {
                return null;
            }
            List<String> w = new ArrayList<>(d.words());
            w.set(i, to);
            return join(w);
        }

        /** The file after one of {@code keys}; {@code dropWhenOutside}: leave d out instead. */
        String fileArgument(Directive d, Set<String> keys, boolean dropWhenOutside)
                throws IOException {
            List<String> w = new ArrayList<>(d.words());
            for (int i = 1; i + 1 < w.size(); i++) {
                if (keys.contains(w.get(i))) {
                    String to = sandboxFile(d, w.get(i + 1), dropWhenOutside);
                    if (to == null) {
                        return null;
                    }
                    w.set(i + 1, to);
                    i++;
                }
            }
            return patternsOf(d, w);
        }

        private String patternsOf(Directive d, List<String> w) throws IOException {
            Directive copy =
                    new Directive(d.file(), d.line(), w, d.condition(), d.unresolved(), d.guard());
            return patterns(copy);
        }

        /**
         * The sandbox's path for a file the configuration reads: a copy when it is a regular file
         * (links followed) inside the configuration's folder tree and at most {@link
         * #MAX_FILE_BYTES}; otherwise an empty file, or null (the directive left out and said so)
         * when {@code drop}.
         */
        String sandboxFile(Directive d, String name, boolean drop) throws IOException {
            Path cached = files.get(name);
            if (cached != null) {
                return cached.toString();
            }
            if (files.size() >= MAX_FILES) {
                throw new Refused(
                        d.where()
                                + ": the configuration reads more than "
                                + MAX_FILES
                                + " files; deja proves configurations that read fewer");
            }
            String why = null;
            Path real = null;
            try {
                Path p = Path.of(name);
                if (!p.isAbsolute()) {
                    p = (home == null ? Path.of("") : home).resolve(p);
                }
                if (home == null) {
                    why = "the configuration has no folder of its own to read files from";
                } else if (!Files.exists(p)) {
                    why = "it does not exist";
                } else {
                    real = p.toRealPath();
                    if (!real.startsWith(home)) {
                        why = "it is outside the configuration's folder " + home;
                    } else if (!Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS)) {
                        why = "it is not a regular file";
                    } else if (Files.size(real) > MAX_FILE_BYTES) {
                        why = "it is larger than " + (MAX_FILE_BYTES >> 20) + " MiB";
                    }
                }
            } catch (java.nio.file.InvalidPathException | IOException e) {
                why = "it cannot be read (" + e.getMessage() + ")";
            }
            Path to = dir.resolve("f" + (files.size() + 1) + (drop ? ".http" : ".lst"));
            if (why == null) {
                Files.copy(real, to);
                changes.add(name + " (" + d.where() + ") copied into the sandbox");
            } else if (drop) {
                leftOut(d, why);
                return null;
            } else {
                Files.writeString(to, "");
                changes.add(
                        name + " (" + d.where() + "): " + why + "; an empty file in the sandbox");
            }
            files.put(name, to);
            return to.toString();
        }

        String bind(Section s, Directive d) throws IOException {
            int port = freePort();
            binds++;
            ports.putIfAbsent(s.name() == null ? s.label() : s.name(), port);
            StringBuilder b = new StringBuilder("bind 127.0.0.1:" + port);
            List<String> dropped = options(d, 2, BIND_KEPT, b);
            if (!dropped.isEmpty()) {
                changes.add(
                        "bind "
                                + d.written(1)
                                + " ("
                                + d.where()
                                + ") listens on 127.0.0.1:"
                                + port
                                + "; left out: "
                                + String.join(", ", dropped)
                                + (dropped.stream()
                                                .anyMatch(
                                                        x -> x.equals("ssl") || x.startsWith("crt"))
                                        ? " (TLS: the sandbox speaks plain HTTP; certificate files"
                                                + " are not read)"
                                        : ""));
            }
            return b.toString();
        }

        String server(Section s, Directive d) {
            if (!s.isProxy() && !(d.is("default-server") && s.kind().equals("defaults"))) {
                return leftOut(d, "not in a proxy");
            }
            StringBuilder b = new StringBuilder(d.keyword());
            int first;
            if (d.is("default-server")) {
                first = 1;
            } else if (d.is("server-template")) {
                if (d.size() < 4 || !d.word(2).matches("\\d{1,4}(-\\d{1,4})?")) {
                    return leftOut(d, "deja reads server-template PREFIX COUNT ADDRESS only");
                }
                b.append(' ').append(quote(d.word(1))).append(' ').append(d.word(2));
                b.append(" 127.0.0.1:").append(stubPort);
                first = 4;
                servers++;
            } else {
                if (d.size() < 3) {
                    return leftOut(d, "a server without an address");
                }
                b.append(' ').append(quote(d.word(1))).append(" 127.0.0.1:").append(stubPort);
                first = 3;
                servers++;
            }
            List<String> dropped = options(d, first, SERVER_KEPT, b);
            if (!dropped.isEmpty()) {
                changes.add(
                        d.keyword()
                                + (d.is("default-server") ? "" : " " + d.written(1))
                                + " ("
                                + d.where()
                                + "): left out "
                                + String.join(", ", dropped)
                                + " (health checks off: the stub always answers)");
            }
            return b.toString();
        }

        /** Copies the kept options of d from word {@code first} on; returns those left out. */
        List<String> options(Directive d, int first, Map<String, Integer> kept, StringBuilder b) {
            List<String> dropped = new ArrayList<>();
            int i = first;
            while (i < d.size()) {
                String w = d.word(i);
                Integer n = kept.get(w);
                if (n != null && i + n < d.size()) {
                    b.append(' ').append(w);
                    for (int k = 1; k <= n; k++) {
                        b.append(' ').append(quote(d.word(i + k)));
                    }
                    i += 1 + n;
                    continue;
                }
                int skip = ONE_ARG.contains(w) && i + 1 < d.size() ? 1 : 0;
                dropped.add(skip == 1 ? d.written(i) + " " + d.written(i + 1) : d.written(i));
                i += 1 + skip;
            }
            return dropped;
        }

        String option(Directive d, int at) {
            String name = d.word(at);
            if (name != null && OPTIONS_KEPT.contains(name)) {
                return words(d, 0);
            }
            return leftOut(
                    d,
                    "transparent".equals(name) || "http_proxy".equals(name)
                            ? "the sandbox reaches no other host"
                            : name != null && (name.endsWith("chk") || name.endsWith("-check"))
                                    ? "health checks are off: the stub always answers"
                                    : "not needed for the replay");
        }

        String stickTable(Directive d) {
            List<String> w = new ArrayList<>();
            for (int i = 0; i < d.size(); i++) {
                if (i > 0 && d.word(i).equals("peers") && i + 1 < d.size()) {
                    changes.add(
                            "stick-table ("
                                    + d.where()
                                    + "): peers "
                                    + d.written(i + 1)
                                    + " left out: the sandbox reaches no other host");
                    i++;
                    continue;
                }
                w.add(d.word(i));
            }
            return join(w);
        }

        String words(Directive d, int from) {
            return join(d.words().subList(from, d.size()));
        }

        String leftOut(Directive d, String why) {
            leftOut(d.text(), d.where(), why);
            return null;
        }

        void leftOut(String what, String where, String why) {
            leftOut.add("left out " + where + " '" + what + "': " + why);
        }
    }

    /** The words as haproxy must read them: the keyword bare, other words quoted when needed. */
    static String join(List<String> words) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < words.size(); i++) {
            if (i > 0) {
                b.append(' ');
            }
            b.append(quote(words.get(i)));
        }
        return b.toString();
    }

    /**
     * A word haproxy reads back as exactly this word: as it is when it has no character haproxy
     * interprets, else in single quotes (haproxy expands nothing there; a single quote is written
     * {@code '\''}, as in a shell; checked with haproxy 2.6).
     */
    static String quote(String w) {
        if (!w.isEmpty() && BARE.matcher(w).matches()) {
            return w;
        }
        return "'" + w.replace("'", "'\\''") + "'";
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
