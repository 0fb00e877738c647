package dev.deja.prove;

import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.Section;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the sandbox's abuser is recognised, derived from the frontend's own rate-limit rule: the key
 * its stick counter tracks ({@code src}, a header, {@code path}, {@code url_param}, a cookie...)
 * decides whether the abuser gets its own loopback source address, its own header value or its own
 * URL; an abuser named by address in an ACL is mapped to the abuser's loopback address in the
 * sandbox's copy of that ACL. Where the key cannot be given distinct values by a loopback client,
 * {@link #unsatisfiable()} says why. Pure: reads the parsed configuration.
 */
record AbuserPlan(
        String key,
        String how,
        Kind kind,
        String header,
        String param,
        String host,
        String pathPrefix,
        Map<Integer, List<String>> aclRewrites,
        List<String> notes,
        String unsatisfiable) {

    enum Kind {
        SRC,
        HEADER,
        PATH,
        URL_PARAM,
        COOKIE,
        NONE
    }

    /** The abuser's loopback address; legitimate clients use 127.1.0.1 and up (a different /16). */
    static final String ABUSER_ADDRESS = "127.0.0.2";

    static final int LEGIT_ADDRESSES = 64;

    private static final Pattern COUNTER = Pattern.compile("(?i)^sc(\\d)_|^sc_[a-z0-9_]+\\((\\d)");

    /**
     * The plan for a rule (a tarpit or rate-limit directive) of this frontend; null rule: no
     * abuser-specific rule.
     */
    static AbuserPlan of(Frontends.Frontend f, Directive rule) {
        List<String> notes = new ArrayList<>();
        if (rule == null) {
            return new Scope(null, null, Map.of(), null)
                    .plan("none", "no rule singles the abuser out", Kind.NONE, null, null, notes);
        }
        Map<String, Directive> acls = acls(f.section());
        List<String> cond = condition(rule);
        if (cond.isEmpty()) {
            notes.add(
                    "'"
                            + rule.text()
                            + "' ("
                            + rule.where()
                            + ") has no condition: every request, legitimate ones"
                            + " too, is caught by it");
        }
        List<String> expanded = expand(cond, acls);
        Integer counter = counter(expanded);
        boolean srcFetch = readsSrc(expanded);
        Scope scope = scope(cond, acls, notes);
        unmet(rule, expanded, notes);
        if (scope.addressAcl() != null) {
            return scope.plan(
                    "acl " + scope.addressAcl(),
                    "from "
                            + ABUSER_ADDRESS
                            + " (acl "
                            + scope.addressAcl()
                            + " mapped to it in the sandbox)",
                    Kind.SRC,
                    null,
                    null,
                    notes);
        }
        if (srcFetch && counter == null) {
            return scope.plan(
                    "src", "its own source address " + ABUSER_ADDRESS, Kind.SRC, null, null, notes);
        }
        Directive tracker = tracker(f, counter);
        if (tracker == null) {
            if (counter == null && !cond.isEmpty()) {
                return scope.plan(
                        "none",
                        "no tracked key in '" + rule.text() + "'",
                        Kind.NONE,
                        null,
                        null,
                        notes);
            }
            return scope.unsatisfiable(
                    "?",
                    notes,
                    "'"
                            + rule.text()
                            + "' ("
                            + rule.where()
                            + ") reads a stick counter that no track-sc rule of "
                            + f.section().label()
                            + " fills, so what singles a client out is unknown");
        }
        return byTrackedKey(tracker, scope, notes);
    }

    /**
     * What the abuser's requests must meet and the ACLs that name it by address: the host and path
     * prefix of the rule's condition, the sandbox's rewrites of those ACLs.
     */
    private record Scope(
            String host, String prefix, Map<Integer, List<String>> rewrites, String addressAcl) {

        AbuserPlan plan(
                String key,
                String how,
                Kind kind,
                String header,
                String param,
                List<String> notes) {
            return new AbuserPlan(
                    key, how, kind, header, param, host, prefix, rewrites, notes, null);
        }

        AbuserPlan unsatisfiable(String key, List<String> notes, String why) {
            return new AbuserPlan(
                    key, null, Kind.NONE, null, null, host, prefix, rewrites, notes, why);
        }
    }

    /** The stick counter the condition reads ({@code sc0_...}, {@code sc_...(0)}): the last one. */
    private static Integer counter(List<String> expanded) {
        Integer counter = null;
        for (String w : expanded) {
            Matcher m = COUNTER.matcher(w.replaceFirst("^[!{]+", ""));
            if (m.find()) {
                counter = Integer.parseInt(m.group(1) != null ? m.group(1) : m.group(2));
            }
        }
        return counter;
    }

    /** Whether the condition reads a {@code src_*} fetch (a table keyed by the source address). */
    private static boolean readsSrc(List<String> expanded) {
        for (String w : expanded) {
            if (w.replaceFirst("^[!{]+", "").toLowerCase(Locale.ROOT).startsWith("src_")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Host and path conditions the abuser's requests must meet, and ACLs that name the abuser by
     * address (each with a note).
     */
    private static Scope scope(List<String> cond, Map<String, Directive> acls, List<String> notes) {
        String host = null;
        String prefix = null;
        String addressAcl = null;
        Map<Integer, List<String>> rewrites = new LinkedHashMap<>();
        for (int i = 0; i < cond.size(); i++) {
            String w = cond.get(i).replaceFirst("^!+", "");
            Directive acl = acls.get(w);
            List<String> words = acl != null ? acl.words().subList(2, acl.size()) : List.of();
            if (acl != null && !words.isEmpty() && isSrc(words.get(0))) {
                addressAcl = w;
                rewrites.put(acl.line(), List.of("acl", w, "src", ABUSER_ADDRESS));
                notes.add(
                        "acl "
                                + w
                                + " ("
                                + acl.where()
                                + ": '"
                                + acl.text()
                                + "') names the abuser by address: in the"
                                + " sandbox it is 'src "
                                + ABUSER_ADDRESS
                                + "', the abuser's loopback address");
            }
            String[] hp = hostAndPath(acl != null ? words : cond.subList(i, cond.size()));
            if (hp[0] != null && host == null) {
                host = hp[0];
            }
            if (hp[1] != null && prefix == null) {
                prefix = hp[1];
            }
        }
        return new Scope(host, prefix, rewrites, addressAcl);
    }

    /** The frontend's first track-sc rule, of {@code counter} when the condition names one. */
    private static Directive tracker(Frontends.Frontend f, Integer counter) {
        for (Directive d : f.trackers()) {
            String action = d.word(d.is("tcp-request") ? 2 : 1);
            if (action != null
                    && action.startsWith("track-sc")
                    && (counter == null || action.equals("track-sc" + counter))) {
                return d;
            }
        }
        return null;
    }

    /** The plan by the key the tracker tracks: an address, a header, the URL, a parameter... */
    private static AbuserPlan byTrackedKey(Directive tracker, Scope scope, List<String> notes) {
        int a = tracker.is("tcp-request") ? 3 : 2;
        String expr = tracker.word(a);
        String key = expr == null ? "" : expr;
        String fetch = key.split(",")[0];
        String lower = fetch.toLowerCase(Locale.ROOT);
        String arg = argument(fetch);
        String tracked = " (tracked key '" + key + "'" + " (" + tracker.where() + ")" + ")";
        if (lower.equals("src")) {
            return scope.plan(
                    key,
                    "its own source address " + ABUSER_ADDRESS + tracked,
                    Kind.SRC,
                    null,
                    null,
                    notes);
        }
        if (isHeaderFetch(lower) && arg != null) {
            return scope.plan(
                    key,
                    "its own " + arg + " header value" + tracked,
                    Kind.HEADER,
                    arg.split(",")[0],
                    null,
                    notes);
        }
        if (isUrlFetch(lower)) {
            return scope.plan(key, "its own URL path" + tracked, Kind.PATH, null, null, notes);
        }
        if ((lower.startsWith("url_param(") || lower.startsWith("urlp(")) && arg != null) {
            return scope.plan(
                    key,
                    "its own ?" + arg + "= value" + tracked,
                    Kind.URL_PARAM,
                    null,
                    arg.split(",")[0],
                    notes);
        }
        if ((lower.startsWith("req.cook(") || lower.startsWith("cook(")) && arg != null) {
            return scope.plan(
                    key,
                    "its own " + arg + " cookie" + tracked,
                    Kind.COOKIE,
                    null,
                    arg.split(",")[0],
                    notes);
        }
        return scope.unsatisfiable(
                key,
                notes,
                "the tracked key '"
                        + key
                        + "'"
                        + " ("
                        + tracker.where()
                        + ")"
                        + " cannot be given a value of the abuser's own by a plain HTTP"
                        + " client on loopback (deja sets source addresses, headers, paths, URL parameters and cookies)");
    }

    private static boolean isHeaderFetch(String lower) {
        return lower.startsWith("req.hdr(")
                || lower.startsWith("hdr(")
                || lower.startsWith("req.fhdr(")
                || lower.startsWith("req.hdr_ip(")
                || lower.startsWith("hdr_ip(");
    }

    private static boolean isUrlFetch(String lower) {
        return lower.equals("path")
                || lower.equals("url")
                || lower.equals("base")
                || lower.equals("base32")
                || lower.equals("base32+src")
                || lower.equals("url32")
                || lower.equals("url32+src");
    }

    /**
     * Request fetches deja's clients do not shape (beyond Host, the path prefix and the tracked
     * key).
     */
    private static final Pattern UNMET =
            Pattern.compile(
                    "(?i)^(method|meth_[a-z]+|ssl_fc[a-z_]*|req\\.ssl_[a-z_]+|"
                            + "url_beg|url_end|url_sub|url_reg|path_end|path_sub|path_reg|path_dir|path_dom|req\\.body[a-z_]*|"
                            + "http_auth[a-z_]*|req\\.cook[a-z_]*|cook[a-z_]*|query|urlp[a-z_]*|url_param[a-z_]*)(\\(.*)?$");

    /** Notes for the parts of the rule's condition the abuser's requests do not set. */
    private static void unmet(Directive rule, List<String> words, List<String> notes) {
        Set<String> seen = new LinkedHashSet<>();
        for (String w : words) {
            String t = w.replaceFirst("^[!{]+", "");
            if (UNMET.matcher(t).matches()) {
                seen.add(t);
            }
        }
        if (!seen.isEmpty()) {
            notes.add(
                    "the condition of '"
                            + rule.text()
                            + "' ("
                            + rule.where()
                            + ") also reads "
                            + String.join(", ", seen)
                            + ", which deja's abuser requests (plain HTTP GET) do not set: if the rule never fires in the"
                            + " sandbox, that is why");
        }
    }

    private static boolean isSrc(String fetch) {
        String f = fetch.toLowerCase(Locale.ROOT);
        return f.equals("src");
    }

    /**
     * {@code hdr(host) -i a.example} / {@code path_beg /ping}: what the abuser's requests must look
     * like.
     */
    private static String[] hostAndPath(List<String> words) {
        String host = null;
        String prefix = null;
        for (int i = 0; i < words.size() - 1; i++) {
            String w = words.get(i).replaceFirst("^[!{]+", "").toLowerCase(Locale.ROOT);
            int v = i + 1;
            while (v < words.size() && words.get(v).startsWith("-") && !words.get(v).equals("-m")) {
                v++;
            }
            if (v < words.size() && "-m".equals(words.get(v))) {
                v += 2;
            }
            if (v >= words.size()) {
                break;
            }
            String value = words.get(v);
            if (value.equals("}")) {
                continue;
            }
            if (host == null
                    && (w.startsWith("hdr(host)")
                            || w.startsWith("req.hdr(host)")
                            || w.startsWith("hdr_dom(host)")
                            || w.startsWith("hdr_end(host)")
                            || w.startsWith("hdr_beg(host)")
                            || w.startsWith("req.hdr(host),"))) {
                host = value.startsWith(".") ? "x" + value : value;
            }
            if (prefix == null
                    && (w.equals("path_beg") || w.equals("path") || w.equals("path,lower"))
                    && value.startsWith("/")) {
                prefix = value;
            }
        }
        return new String[] {host, prefix};
    }

    private static String argument(String fetch) {
        int o = fetch.indexOf('(');
        int c = fetch.lastIndexOf(')');
        return o > 0 && c > o ? fetch.substring(o + 1, c) : null;
    }

    /** The words after if/unless. */
    static List<String> condition(Directive d) {
        List<String> out = new ArrayList<>();
        boolean in = false;
        for (String w : d.words()) {
            if (w.equals("if") || w.equals("unless")) {
                in = true;
                continue;
            }
            if (in && !w.equals("or") && !w.equals("||") && !w.equals("}") && !w.equals("{")) {
                out.add(w);
            }
        }
        return out;
    }

    /** The condition's words with named ACLs replaced by their fetches. */
    private static List<String> expand(List<String> cond, Map<String, Directive> acls) {
        List<String> out = new ArrayList<>();
        for (String w : cond) {
            out.add(w);
            Directive acl = acls.get(w.replaceFirst("^!+", ""));
            if (acl != null) {
                out.addAll(acl.words().subList(2, acl.size()));
            }
        }
        return out;
    }

    private static Map<String, Directive> acls(Section s) {
        Map<String, Directive> m = new LinkedHashMap<>();
        for (Directive d : s.directives()) {
            if (d.is("acl") && d.size() > 2) {
                m.putIfAbsent(d.word(1), d);
            }
        }
        return m;
    }

    AbuserPlan withPathPrefix(String prefix) {
        return new AbuserPlan(
                key, how, kind, header, param, host, prefix, aclRewrites, notes, unsatisfiable);
    }

    /**
     * The request one client sends: its path, Host, and key value; {@code n} varies it per
     * legitimate client.
     */
    String request(boolean abuser, int n) {
        String id = abuser ? "abuser" : "legit-" + n;
        String path = pathPrefix == null ? "/" : pathPrefix;
        if (kind == Kind.PATH) {
            path = (path.endsWith("/") ? path : path + "/") + id;
        }
        if (kind == Kind.URL_PARAM) {
            path = path + "?" + param + "=" + id;
        }
        StringBuilder r =
                new StringBuilder("GET ")
                        .append(path)
                        .append(" HTTP/1.1\r\nHost: ")
                        .append(host == null ? "deja-prove.test" : host)
                        .append("\r\nUser-Agent: deja-prove\r\n");
        if (kind == Kind.HEADER) {
            r.append(header)
                    .append(": ")
                    .append(abuser ? "203.0.113.7" : "198.51.100." + (1 + n % 250))
                    .append("\r\n");
        }
        if (kind == Kind.COOKIE) {
            r.append("Cookie: ").append(param).append('=').append(id).append("\r\n");
        }
        return r.append("Connection: close\r\n\r\n").toString();
    }
}
