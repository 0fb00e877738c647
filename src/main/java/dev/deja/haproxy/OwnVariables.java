package dev.deja.haproxy;

import java.util.List;
import java.util.Set;

/**
 * Variables HAProxy sets itself (configuration manual, section 2.3 "Environment variables"): a
 * configuration that uses them does not miss a value the user forgot, so deja never asks for them
 * with {@code --env}. Their values depend on the host or on how HAProxy is started (the host name,
 * the binary's exact version, master-worker mode, the stats sockets) or on the version (the default
 * log formats), so deja reads a directive using one as set to a value it does not know, as for any
 * unknown variable.
 *
 * <p>Which are set while the configuration is parsed was measured with {@code haproxy -c} 2.6
 * ({@code .notice "${NAME}"} for each): HAPROXY_LOCALPEER (the host name, or {@code -L} / {@code
 * localpeer}) and HAPROXY_STARTUP_VERSION are set; HAPROXY_CFGFILES, HAPROXY_MWORKER, HAPROXY_CLI
 * and HAPROXY_MASTER_CLI are empty then (HAProxy sets them after parsing, for {@code program}
 * sections and reloads; 3.x sets HAPROXY_MWORKER=1 before a master-worker's worker parses); the
 * default log formats and HAPROXY_BRANCH are not set by 2.6 (a {@code log-format
 * "${HAPROXY_HTTP_LOG_FMT}"} fails there: "log-format expects an argument") but by later versions
 * (haproxy.c read_cfg() sets them around parsing).
 */
final class OwnVariables {
    private OwnVariables() {}

    /** Set before the configuration is parsed, by every version deja reads (2.6 measured). */
    static final Set<String> WHILE_PARSING = Set.of("HAPROXY_LOCALPEER", "HAPROXY_STARTUP_VERSION");

    /**
     * Set while the configuration is parsed by versions after 2.6 (not by 2.6: measured; by 3.x:
     * haproxy.c).
     */
    static final Set<String> WHILE_PARSING_AFTER_2_6 =
            Set.of(
                    "HAPROXY_HTTP_LOG_FMT",
                    "HAPROXY_HTTPS_LOG_FMT",
                    "HAPROXY_TCP_LOG_FMT",
                    "HAPROXY_HTTP_CLF_LOG_FMT",
                    "HAPROXY_TCP_CLF_LOG_FMT",
                    "HAPROXY_KEYLOG_FC_LOG_FMT",
                    "HAPROXY_KEYLOG_BC_LOG_FMT",
                    "HAPROXY_BRANCH");

    /**
     * Set by HAProxy depending on how it runs (master-worker, stats sockets, files loaded): empty
     * while 2.6 parses, meant for programs.
     */
    static final Set<String> AT_RUN_TIME =
            Set.of("HAPROXY_CFGFILES", "HAPROXY_MWORKER", "HAPROXY_CLI", "HAPROXY_MASTER_CLI");

    /** Whether HAProxy {@code version} sets the variable itself (while parsing or at run time). */
    static boolean own(String name, String version) {
        return WHILE_PARSING.contains(name)
                || AT_RUN_TIME.contains(name)
                || WHILE_PARSING_AFTER_2_6.contains(name) && after26(version);
    }

    /**
     * {@code defined(NAME)} of a variable the environment does not set: true for those HAProxy
     * {@code version} sets before parsing, null (undecided) otherwise.
     */
    static Boolean definedWhileParsing(String name, String version) {
        if (WHILE_PARSING.contains(name)
                || WHILE_PARSING_AFTER_2_6.contains(name) && after26(version)) {
            return Boolean.TRUE;
        }
        return null;
    }

    /**
     * Why a directive using these variables cannot be read, as a phrase: "uses HAPROXY_LOCALPEER,
     * set by HAProxy itself (value unknown to deja)" or "uses unset variable X (give --env
     * X=VALUE)"; own variables of any version count as own here (the directive does not carry the
     * version).
     */
    static String why(List<String> names) {
        List<String> asked =
                names.stream().filter(n -> !own(n, HaproxyParser.DEFAULT_VERSION)).toList();
        if (asked.isEmpty()) {
            return "uses "
                    + String.join(", ", names)
                    + ", set by HAProxy itself (value unknown to deja)";
        }
        return "uses unset variable"
                + (names.size() > 1 ? "s " : " ")
                + String.join(", ", names)
                + " (give --env "
                + asked.get(0)
                + "=VALUE)";
    }

    private static boolean after26(String version) {
        String v = version == null || version.isBlank() ? HaproxyParser.DEFAULT_VERSION : version;
        return Conditions.compareVersions(v.strip(), "2.7") >= 0;
    }
}
