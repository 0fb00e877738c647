package dev.deja.model.haproxy;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Keywords HAProxy removed, with the version that refuses them and, for the old timeout spellings,
 * what older versions read them as. Checked against HAProxy's source (the commits that made them
 * fatal: 86e6b6ebf "Make '(cli|con|srv)timeout' directive fatal", a6a56e648 "Remove parsing of req*
 * and rsp* directives", 7b7c47f05 'block', dac168bc1 'redispatch', all first in v2.1-dev1/dev2;
 * b63dbb7b2 "remove parsing of the global nbproc directive", first in v2.5-dev1; 6e62fb640, first
 * in v1.6-dev2, stopped reading a listening address on the section line) and with haproxy 2.6.12
 * -c, whose messages are quoted.
 */
final class RemovedKeywords {
    private RemovedKeywords() {}

    /**
     * A removed keyword: the version that refuses it, what HAProxy says, and the timeout it was
     * read as before (null for the others).
     */
    record Removed(String since, String haproxySays, String timeout) {}

    static final Set<String> PROXY_SECTIONS = Set.of("defaults", "frontend", "backend", "listen");

    private static Removed since21(String kw, String use) {
        return new Removed(
                "2.1",
                "The '" + kw + "' directive is not supported anymore since HAProxy 2.1. " + use,
                null);
    }

    private static Removed timeout(String kw, String name) {
        return new Removed(
                "2.1",
                "the '"
                        + kw
                        + "' directive is not supported anymore since HAProxy 2.1. Use 'timeout "
                        + name
                        + "'.",
                name);
    }

    /** Removed keywords of the proxy sections (defaults, frontend, backend, listen). */
    static final Map<String, Removed> PROXY =
            Map.ofEntries(
                    Map.entry("contimeout", timeout("contimeout", "connect")),
                    Map.entry("clitimeout", timeout("clitimeout", "client")),
                    Map.entry("srvtimeout", timeout("srvtimeout", "server")),
                    Map.entry(
                            "reqrep",
                            since21(
                                    "reqrep",
                                    "Use 'http-request replace-path', 'http-request replace-uri'"
                                            + " or 'http-request replace-header' instead.")),
                    Map.entry(
                            "reqirep",
                            since21("reqirep", "Use 'http-request replace-header' instead.")),
                    Map.entry(
                            "reqadd", since21("reqadd", "Use 'http-request add-header' instead.")),
                    Map.entry(
                            "reqdel", since21("reqdel", "Use 'http-request del-header' instead.")),
                    Map.entry(
                            "reqidel",
                            since21("reqidel", "Use 'http-request del-header' instead.")),
                    Map.entry("reqallow", since21("reqallow", "Use 'http-request allow' instead.")),
                    Map.entry("reqdeny", since21("reqdeny", "Use 'http-request deny' instead.")),
                    Map.entry(
                            "reqtarpit",
                            since21("reqtarpit", "Use 'http-request tarpit' instead.")),
                    Map.entry("reqpass", since21("reqpass", "")),
                    Map.entry(
                            "rsprep",
                            since21("rsprep", "Use 'http-response replace-header' instead.")),
                    Map.entry(
                            "rspirep",
                            since21("rspirep", "Use 'http-response replace-header' instead.")),
                    Map.entry(
                            "rspadd", since21("rspadd", "Use 'http-response add-header' instead.")),
                    Map.entry("rspdel", since21("rspdel", "Use 'http-response del-header'.")),
                    Map.entry("rspidel", since21("rspidel", "Use 'http-response del-header'.")),
                    Map.entry("rspdeny", since21("rspdeny", "Use 'http-response deny' instead.")),
                    Map.entry("rspideny", since21("rspideny", "Use 'http-response deny' instead.")),
                    Map.entry(
                            "block",
                            since21(
                                    "block",
                                    "Use 'http-request deny' which uses the exact same syntax.")),
                    Map.entry(
                            "redispatch",
                            new Removed(
                                    "2.1",
                                    "keyword 'redispatch' directive is not supported anymore since"
                                            + " HAProxy 2.1. Use 'option redispatch'.",
                                    null)));

    /** Removed keywords of the global section. */
    static final Map<String, Removed> GLOBAL =
            Map.of(
                    "nbproc",
                    new Removed(
                            "2.5",
                            "nbproc is not supported any more since HAProxy 2.5. Threads will"
                                    + " automatically be used on multi-processor machines if available.",
                            null));

    /** The removed keyword a directive of a section of this kind uses, or null. */
    static Removed of(String sectionKind, Directive d) {
        Map<String, Removed> m =
                sectionKind.equals("global")
                        ? GLOBAL
                        : PROXY_SECTIONS.contains(sectionKind) ? PROXY : Map.of();
        return m.get(d.keyword());
    }

    /** {@code clitimeout 50000} read as {@code timeout client 50000}, as HAProxy before 2.1 did. */
    static Directive asTimeout(Directive d, Removed r) {
        List<String> words =
                d.size() > 1
                        ? List.of("timeout", r.timeout(), d.word(1))
                        : List.of("timeout", r.timeout());
        List<String> written =
                d.size() > 1
                        ? List.of("timeout", r.timeout(), d.written(1))
                        : List.of("timeout", r.timeout());
        return new Directive(
                d.file(), d.line(), words, d.condition(), d.unresolved(), d.guard(), written);
    }
}
