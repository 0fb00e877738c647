package dev.deja.prove;

import dev.deja.engine.Catalog;
import dev.deja.engine.Fix;
import dev.deja.engine.RuleMetadata;
import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.Section;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rule's fix (the {@code fix:} block of its YAML, {@link Fix}) applied to the user's
 * configuration text (the "after" of a proof), and the change as a unified-style diff of the lines
 * touched. Pure: text in, text out.
 */
record Remedy(String description, String text, List<String> diff) {

    /**
     * The fix of rule {@code ruleId} in the packaged catalog applied to {@code original} for
     * frontend {@code f}; {@code inputs} are the values prove computed ({@link Fix#INPUTS}).
     */
    static Remedy of(
            String ruleId, String original, Frontends.Frontend f, Map<String, String> inputs) {
        Fix fix =
                Catalog.packaged()
                        .rule(ruleId)
                        .flatMap(RuleMetadata::fixBlock)
                        .orElseThrow(
                                () ->
                                        new IllegalStateException(
                                                "rules/" + ruleId + ".yaml has no fix: block"));
        return apply(fix, original, f, inputs);
    }

    /** {@code fix} applied to {@code original} for frontend {@code f}. */
    static Remedy apply(
            Fix fix, String original, Frontends.Frontend f, Map<String, String> inputs) {
        Map<String, String> values = new HashMap<>(inputs);
        values.put("section", f.section().label());
        Text t = new Text(original);
        StringBuilder says = new StringBuilder(Fix.fill(fix.says(), values));
        for (Fix.Step s : fix.steps()) {
            String also;
            boolean changed;
            if (s instanceof Fix.RewriteAction r) {
                changed = rewrite(t, f, r);
                also = r.also();
            } else if (s instanceof Fix.RaiseDirective r) {
                changed = raise(t, f, r, Fix.fill(r.value(), values));
                also = r.also();
            } else if (s instanceof Fix.SetDirective r) {
                changed = set(t, f, r, Fix.fill(r.value(), values));
                also = r.also();
            } else {
                throw new IllegalArgumentException("not a step for a HAProxy configuration: " + s);
            }
            if (changed && also != null) {
                says.append(" and ").append(Fix.fill(also, values));
            }
        }
        return new Remedy(says.toString(), t.joined(), t.diff);
    }

    /** Every request rule of the frontend with the action gets the new one. */
    private static boolean rewrite(Text t, Frontends.Frontend f, Fix.RewriteAction r) {
        if (!r.action().equals("tarpit")) {
            throw new IllegalArgumentException("cannot rewrite action " + r.action());
        }
        Pattern word = Pattern.compile("\\b" + Pattern.quote(r.action()) + "\\b");
        String keep = r.ensure() == null ? null : r.ensure().split(" ", 2)[0];
        boolean changed = false;
        for (Directive d : f.tarpits()) {
            String old = t.line(d.line());
            Matcher m = word.matcher(old);
            if (!m.find()) {
                continue;
            }
            String now =
                    old.substring(0, m.start())
                            + (keep == null || old.contains(keep)
                                    ? r.to()
                                    : r.to() + " " + r.ensure())
                            + old.substring(m.end());
            t.replace(d, now);
            changed = true;
        }
        return changed;
    }

    /** The global maxconn raised to the value where it is set lower. */
    private static boolean raise(Text t, Frontends.Frontend f, Fix.RaiseDirective r, String value) {
        if (!r.section().equals("global") || !r.directive().equals("maxconn")) {
            throw new IllegalArgumentException(
                    "cannot raise " + r.directive() + " in " + r.section());
        }
        Directive gd = f.maxconn().globalDirective();
        if (gd == null || f.maxconn().global() >= Long.parseLong(value)) {
            return false;
        }
        t.replaceWords(gd, r.directive() + " " + value);
        return true;
    }

    /**
     * The frontend's directive set to the value: its own line rewritten, or a line added after its
     * header when the setting is not its own (unset, from its defaults, or in another file). The
     * setting is the one the scan reads (for maxconn the frontend's limit, a 0 being none).
     */
    private static boolean set(Text t, Frontends.Frontend f, Fix.SetDirective r, String value) {
        if (!r.section().equals("frontend")) {
            throw new IllegalArgumentException(
                    "cannot set " + r.directive() + " in " + r.section());
        }
        Section s = f.section();
        String[] kw = r.directive().split(" ", 2);
        Directive cur =
                r.directive().equals("maxconn")
                        ? f.maxconn().frontendDirective()
                        : kw.length == 1 ? s.effective(kw[0]) : s.effective(kw[0], kw[1]);
        String with = r.directive() + " " + value;
        if (cur != null && cur.file().equals(s.file()) && s.directives().contains(cur)) {
            t.replaceWords(cur, with);
        } else {
            t.insertAfterHeader(s, with);
        }
        return true;
    }

    /**
     * The configuration's lines being edited; a directive's line number is that of the original
     * text, shifted here past the lines added above it.
     */
    private static final class Text {
        final List<String> lines;
        final List<Integer> addedAfter = new ArrayList<>();
        final List<String> diff = new ArrayList<>();

        Text(String original) {
            lines = new ArrayList<>(List.of(original.split("\n", -1)));
        }

        int index(int line) {
            int i = line - 1;
            for (int h : addedAfter) {
                if (h < line) {
                    i++;
                }
            }
            return i;
        }

        String line(int line) {
            return lines.get(index(line));
        }

        void replace(Directive d, String now) {
            int i = index(d.line());
            String old = lines.get(i);
            lines.set(i, now);
            diff.add("@@ " + d.where() + " @@");
            diff.add("-" + old);
            diff.add("+" + now);
        }

        /** The directive's words replaced, its indentation kept. */
        void replaceWords(Directive d, String with) {
            String old = line(d.line());
            replace(d, old.substring(0, old.length() - old.stripLeading().length()) + with);
        }

        void insertAfterHeader(Section s, String directive) {
            String indent = "    ";
            for (Directive d : s.directives()) {
                String l = line(d.line());
                indent = l.substring(0, l.length() - l.stripLeading().length());
                break;
            }
            lines.add(index(s.line()) + 1, indent + directive);
            addedAfter.add(s.line());
            diff.add("@@ " + s.where() + " @@");
            diff.add(" " + line(s.line()));
            diff.add("+" + indent + directive);
        }

        String joined() {
            return String.join("\n", lines);
        }
    }
}
