package dev.deja.model.haproxy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Evaluates the expression of a {@code .if}/{@code .elif} line (HAProxy manual 2.4): terms joined
 * by {@code &&}, {@code ||}, {@code !} and parentheses; a term is a number (non-zero is true),
 * {@code defined(NAME)}, {@code streq(a,b)}, {@code strneq(a,b)}, {@code strstr(a,b)}, {@code
 * version_atleast(X)}, {@code version_before(X)}, or a predicate deja cannot know on this machine
 * ({@code feature()}, {@code enabled()}, {@code openssl_version_*()}, {@code
 * ssllib_name_startswith()}, ...), which is undecided. The result is three-valued: TRUE, FALSE or
 * UNKNOWN.
 */
final class Conditions {
    enum Tri {
        TRUE,
        FALSE,
        UNKNOWN;

        static Tri of(boolean b) {
            return b ? TRUE : FALSE;
        }

        Tri not() {
            return this == UNKNOWN ? UNKNOWN : of(this == FALSE);
        }

        Tri and(Tri o) {
            if (this == FALSE || o == FALSE) {
                return FALSE;
            }
            return this == TRUE && o == TRUE ? TRUE : UNKNOWN;
        }

        Tri or(Tri o) {
            if (this == TRUE || o == TRUE) {
                return TRUE;
            }
            return this == FALSE && o == FALSE ? FALSE : UNKNOWN;
        }
    }

    /** Syntax error in an expression; the parser turns it into a file:line error. */
    static final class SyntaxError extends Exception {
        private static final long serialVersionUID = 1L;

        SyntaxError(String m) {
            super(m);
        }
    }

    private final String s;
    private final Function<String, String> variable;
    private final String version;
    private final List<String> unresolved;

    /** Why the result is undecided (for notes). */
    final List<String> reasons = new ArrayList<>();

    private int p;
    private int depth;

    /** Deepest nesting of '(' and '!' accepted in one condition. */
    static final int MAX_DEPTH = 100;

    private Conditions(
            String s, Function<String, String> variable, String version, List<String> unresolved) {
        this.s = s;
        this.variable = variable;
        this.version = version;
        this.unresolved = unresolved;
    }

    static Conditions evaluate(
            String expr,
            Function<String, String> variable,
            String version,
            List<String> unresolved,
            Tri[] out)
            throws SyntaxError {
        Conditions c = new Conditions(expr, variable, version, unresolved);
        c.skip();
        if (c.p >= c.s.length()) {
            throw new SyntaxError("empty condition");
        }
        Tri t = c.or();
        c.skip();
        if (c.p < c.s.length()) {
            throw new SyntaxError(
                    "unexpected '"
                            + c.s.substring(c.p, Math.min(c.s.length(), c.p + 20))
                            + "' in condition");
        }
        out[0] = t;
        return c;
    }

    private void skip() {
        while (p < s.length() && (s.charAt(p) == ' ' || s.charAt(p) == '\t')) {
            p++;
        }
    }

    private boolean eat(String tok) {
        skip();
        if (s.startsWith(tok, p)) {
            p += tok.length();
            return true;
        }
        return false;
    }

    private Tri or() throws SyntaxError {
        Tri t = and();
        while (eat("||")) {
            t = t.or(and());
        }
        return t;
    }

    private Tri and() throws SyntaxError {
        Tri t = unary();
        while (eat("&&")) {
            t = t.and(unary());
        }
        return t;
    }

    private Tri unary() throws SyntaxError {
        if (++depth > MAX_DEPTH) {
            throw new SyntaxError("condition nested deeper than " + MAX_DEPTH + " levels");
        }
        try {
            if (eat("!")) {
                return unary().not();
            }
            if (eat("(")) {
                Tri t = or();
                if (!eat(")")) {
                    throw new SyntaxError("missing ')' in condition");
                }
                return t;
            }
            return term();
        } finally {
            depth--;
        }
    }

    private Tri term() throws SyntaxError {
        skip();
        int start = p;
        while (p < s.length()) {
            char c = s.charAt(p);
            if (c == '(' || c == ')' || c == ' ' || c == '\t' || c == '&' || c == '|' || c == '!') {
                break;
            }
            p++;
        }
        String name = s.substring(start, p);
        if (p < s.length() && s.charAt(p) == '(') {
            if (name.isEmpty()) {
                throw new SyntaxError("missing function name before '('");
            }
            p++;
            List<String> args = new ArrayList<>();
            StringBuilder cur = new StringBuilder();
            int depth = 0;
            while (true) {
                if (p >= s.length()) {
                    throw new SyntaxError("missing ')' after " + name + "(");
                }
                char c = s.charAt(p++);
                if (c == ')' && depth == 0) {
                    break;
                }
                if (c == '(') {
                    depth++;
                } else if (c == ')') {
                    depth--;
                }
                if (c == ',' && depth == 0) {
                    args.add(cur.toString());
                    cur.setLength(0);
                } else {
                    cur.append(c);
                }
            }
            args.add(cur.toString());
            return function(name, args);
        }
        if (name.isEmpty()) {
            throw new SyntaxError("missing term in condition");
        }
        if (hasUnresolved(name)) {
            reasons.add("'" + name + "' uses an unset variable");
            return Tri.UNKNOWN;
        }
        boolean digits = true;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= '0' && c <= '9') && !(i == 0 && c == '-')) {
                digits = false;
                break;
            }
        }
        if (digits) {
            return Tri.of(!name.replace("-", "").chars().allMatch(ch -> ch == '0'));
        }
        throw new SyntaxError("'" + name + "' is not a number or a function");
    }

    private boolean hasUnresolved(String arg) {
        for (String n : unresolved) {
            if (arg.contains("${" + n)) {
                return true;
            }
        }
        return false;
    }

    private Tri function(String name, List<String> args) throws SyntaxError {
        for (String a : args) {
            if (hasUnresolved(a)) {
                reasons.add(name + "(" + String.join(",", args) + ") uses an unset variable");
                return Tri.UNKNOWN;
            }
        }
        switch (name) {
            case "defined":
                {
                    need(name, args, 1);
                    String v = variable.apply(args.get(0).strip());
                    if (v != null
                            || OwnVariables.definedWhileParsing(args.get(0).strip(), version)
                                    != null) {
                        return Tri.TRUE;
                    }
                    if (OwnVariables.own(args.get(0).strip(), version)) {
                        reasons.add(
                                "defined("
                                        + args.get(0).strip()
                                        + "): set by HAProxy at run time only, depending on how it"
                                        + " is started");
                        return Tri.UNKNOWN;
                    }
                    reasons.add(
                            "defined("
                                    + args.get(0).strip()
                                    + "): the variable is not set here (give --env "
                                    + args.get(0).strip()
                                    + "=... to decide)");
                    return Tri.UNKNOWN;
                }
            case "streq":
                need(name, args, 2);
                return Tri.of(args.get(0).equals(args.get(1)));
            case "strneq":
                need(name, args, 2);
                return Tri.of(!args.get(0).equals(args.get(1)));
            case "strstr":
                need(name, args, 2);
                return Tri.of(args.get(0).contains(args.get(1)));
            case "version_atleast":
                need(name, args, 1);
                return Tri.of(compareVersions(version, args.get(0).strip()) >= 0);
            case "version_before":
                need(name, args, 1);
                return Tri.of(compareVersions(version, args.get(0).strip()) < 0);
            default:
                reasons.add(
                        name
                                + "("
                                + String.join(",", args)
                                + ") depends on the HAProxy build or host");
                return Tri.UNKNOWN;
        }
    }

    private static void need(String name, List<String> args, int n) throws SyntaxError {
        if (args.size() != n) {
            throw new SyntaxError(
                    name
                            + "() takes "
                            + n
                            + (n == 1 ? " argument" : " arguments")
                            + ", got "
                            + args.size());
        }
    }

    /**
     * Compares dotted versions numerically ("2.10" > "2.9"); a -dev/-rc suffix sorts before the
     * release.
     */
    static int compareVersions(String a, String b) {
        long[] x = parts(a);
        long[] y = parts(b);
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            long u = i < x.length ? x[i] : 0;
            long v = i < y.length ? y[i] : 0;
            if (u != v) {
                return Long.compare(u, v);
            }
        }
        return 0;
    }

    private static long[] parts(String v) {
        String core = v;
        boolean pre = false;
        int dash = v.indexOf('-');
        if (dash >= 0) {
            core = v.substring(0, dash);
            pre = true;
        }
        String[] ps = core.split("\\.");
        long[] out = new long[ps.length + 1];
        for (int i = 0; i < ps.length; i++) {
            long n = 0;
            String t = ps[i];
            for (int j = 0; j < t.length() && Character.isDigit(t.charAt(j)) && j < 9; j++) {
                n = n * 10 + (t.charAt(j) - '0');
            }
            out[i] = n;
        }
        // a release sorts after its own pre-releases: 3.2 > 3.2-dev1
        out[ps.length] = pre ? -1 : 0;
        return out;
    }
}
