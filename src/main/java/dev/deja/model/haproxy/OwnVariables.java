package dev.deja.model.haproxy;

import java.util.List;
import java.util.Map;
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
 * "${HAPROXY_HTTP_LOG_FMT}"} fails there: "log-format expects an argument").
 *
 * <p>The release that first sets each, from HAProxy's CHANGELOG (haproxy/haproxy at 3.0-dev7):
 *
 * <ul>
 *   <li>HAPROXY_HTTP_LOG_FMT, HAPROXY_HTTPS_LOG_FMT, HAPROXY_TCP_LOG_FMT: 2.8, "MINOR: config: add
 *       environment variables for default log format" in 2.8-dev1 (2023/01/07), after 2.7.0
 *       (2022/12/01): 2.7 does not set them. src/haproxy.c read_cfg() sets them before parsing each
 *       file and unsets them after.
 *   <li>HAPROXY_BRANCH: 2.8, "MINOR: config: add HAPROXY_BRANCH environment variable" in 2.8-dev5
 *       (2023/03/10), set in read_cfg() with the log formats.
 *   <li>HAPROXY_STARTUP_VERSION: 2.8-dev5 too ("MINOR: startup: HAPROXY_STARTUP_VERSION contains
 *       the version used to start"), backported to 2.6.10 (2023/03/10, the changelog of Debian's
 *       haproxy 2.6.12); deja counts it for every version, 2.6 meaning its latest release.
 *   <li>HAPROXY_HTTP_CLF_LOG_FMT, HAPROXY_TCP_CLF_LOG_FMT: set in a later read_cfg(); no CHANGELOG
 *       entry up to 3.0-dev7 names them or "option tcplog clf", so not before 3.0. Their first
 *       release is not confirmed in the sources at hand: deja counts them from 3.2, its default
 *       version, the earliest it can vouch for (counting them earlier would decide a {@code
 *       defined()} true that such a release leaves false).
 *   <li>HAPROXY_KEYLOG_FC_LOG_FMT, HAPROXY_KEYLOG_BC_LOG_FMT (examples/keylog-test.cfg): not in
 *       that read_cfg() nor in the CHANGELOG up to 3.0-dev7; counted from 3.2 likewise.
 * </ul>
 */
public final class OwnVariables {
    private OwnVariables() {}

    /** Set before the configuration is parsed, by every version deja reads (2.6 measured). */
    static final Set<String> WHILE_PARSING = Set.of("HAPROXY_LOCALPEER", "HAPROXY_STARTUP_VERSION");

    /** Set while the configuration is parsed, from the version given (see the class comment). */
    static final Map<String, String> WHILE_PARSING_SINCE =
            Map.of(
                    "HAPROXY_HTTP_LOG_FMT", "2.8",
                    "HAPROXY_HTTPS_LOG_FMT", "2.8",
                    "HAPROXY_TCP_LOG_FMT", "2.8",
                    "HAPROXY_BRANCH", "2.8",
                    "HAPROXY_HTTP_CLF_LOG_FMT", "3.2",
                    "HAPROXY_TCP_CLF_LOG_FMT", "3.2",
                    "HAPROXY_KEYLOG_FC_LOG_FMT", "3.2",
                    "HAPROXY_KEYLOG_BC_LOG_FMT", "3.2");

    /**
     * Set by HAProxy depending on how it runs (master-worker, stats sockets, files loaded): empty
     * while 2.6 parses, meant for programs.
     */
    static final Set<String> AT_RUN_TIME =
            Set.of("HAPROXY_CFGFILES", "HAPROXY_MWORKER", "HAPROXY_CLI", "HAPROXY_MASTER_CLI");

    /** Whether HAProxy {@code version} sets the variable itself (while parsing or at run time). */
    public static boolean own(String name, String version) {
        return WHILE_PARSING.contains(name) || AT_RUN_TIME.contains(name) || since(name, version);
    }

    /**
     * {@code defined(NAME)} of a variable the environment does not set: true for those HAProxy
     * {@code version} sets before parsing, null (undecided) otherwise.
     */
    static Boolean definedWhileParsing(String name, String version) {
        if (WHILE_PARSING.contains(name) || since(name, version)) {
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

    /** Whether HAProxy {@code version} sets the variable while parsing (WHILE_PARSING_SINCE). */
    private static boolean since(String name, String version) {
        String first = WHILE_PARSING_SINCE.get(name);
        if (first == null) {
            return false;
        }
        String v = version == null || version.isBlank() ? HaproxyParser.DEFAULT_VERSION : version;
        return Conditions.compareVersions(v.strip(), first) >= 0;
    }
}
