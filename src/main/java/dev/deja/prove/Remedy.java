package dev.deja.prove;

import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.Section;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rule's remediation applied to the user's configuration text (the "after" of a proof), and the
 * change as a unified-style diff of the lines touched. Pure: text in, text out.
 */
record Remedy(String description, String text, List<String> diff) {

    private static final Pattern TARPIT = Pattern.compile("\\btarpit\\b");

    /** Every tarpit of the frontend answers at once: {@code http-request deny deny_status 429}. */
    static Remedy tarpitToDeny(String original, Frontends.Frontend f) {
        String[] lines = split(original);
        List<String> diff = new ArrayList<>();
        for (Directive d : f.tarpits()) {
            int i = d.line() - 1;
            String old = lines[i];
            Matcher m = TARPIT.matcher(old);
            if (!m.find()) {
                continue;
            }
            String now =
                    old.substring(0, m.start())
                            + (old.contains("deny_status") ? "deny" : "deny deny_status 429")
                            + old.substring(m.end());
            lines[i] = now;
            diff.add("@@ " + d.where() + " @@");
            diff.add("-" + old);
            diff.add("+" + now);
        }
        return new Remedy(
                "tarpit -> deny deny_status 429 (an immediate 429 holds no slot)",
                join(lines),
                diff);
    }

    /** {@code timeout http-request 5s} in the frontend. */
    static Remedy httpRequestTimeout(String original, Frontends.Frontend f) {
        return insertAfterHeader(
                original,
                f.section(),
                "timeout http-request 5s",
                "timeout http-request 5s added to " + f.section().label());
    }

    /**
     * maxconn raised so that the flood holds at most a quarter of the slots (the tarpit rule's
     * threshold for high): the frontend's maxconn, and the global one when it would cap it.
     */
    static Remedy raiseMaxconn(String original, Frontends.Frontend f, long wanted) {
        String[] lines = split(original);
        List<String> diff = new ArrayList<>();
        Directive fd = f.maxconn().frontendDirective();
        Directive gd = f.maxconn().globalDirective();
        String result;
        if (gd != null && f.maxconn().global() < wanted) {
            replace(lines, gd, "maxconn " + wanted, diff);
        }
        if (fd != null
                && fd.file().equals(f.section().file())
                && f.section().directives().contains(fd)) {
            replace(lines, fd, "maxconn " + wanted, diff);
            result = join(lines);
        } else {
            result = join(lines);
            Remedy r = insertAfterHeader(result, f.section(), "maxconn " + wanted, "");
            result = r.text();
            diff.addAll(r.diff());
        }
        return new Remedy(
                "maxconn "
                        + wanted
                        + " for "
                        + f.section().label()
                        + (gd != null && f.maxconn().global() < wanted
                                ? " and global maxconn " + wanted
                                : ""),
                result,
                diff);
    }

    private static void replace(String[] lines, Directive d, String with, List<String> diff) {
        int i = d.line() - 1;
        String old = lines[i];
        String indent = old.substring(0, old.length() - old.stripLeading().length());
        lines[i] = indent + with;
        diff.add("@@ " + d.where() + " @@");
        diff.add("-" + old);
        diff.add("+" + lines[i]);
    }

    private static Remedy insertAfterHeader(
            String original, Section s, String directive, String description) {
        String[] lines = split(original);
        List<String> out = new ArrayList<>(List.of(lines));
        int at = s.line(); // 0-based index of the line after the header
        String indent = "    ";
        for (Directive d : s.directives()) {
            String l = lines[d.line() - 1];
            indent = l.substring(0, l.length() - l.stripLeading().length());
            break;
        }
        out.add(at, indent + directive);
        List<String> diff =
                List.of(
                        "@@ " + s.where() + " @@",
                        " " + lines[s.line() - 1],
                        "+" + indent + directive);
        return new Remedy(description, String.join("\n", out), diff);
    }

    private static String[] split(String text) {
        return text.split("\n", -1);
    }

    private static String join(String[] lines) {
        return String.join("\n", lines);
    }
}
