package dev.deja.model.haproxy;

import java.util.List;
import java.util.Locale;

/**
 * One configuration line after word splitting, quoting, escapes and variable expansion: its words,
 * where it is, and under which undecided {@code .if} branches it sits ({@code condition}, null when
 * it always applies). {@code unresolved} names environment variables that were used but not known;
 * the words keep them as {@code ${NAME}}. {@code written} holds the words as written in the file
 * (variables not expanded) when a variable had a value, else null: rules evaluate {@link #words()},
 * messages quote {@link #text()} and {@link #written(int)}, so a variable's value (a secret) never
 * reaches a report.
 */
public record Directive(
        String file,
        int line,
        List<String> words,
        String condition,
        List<String> unresolved,
        Guard guard,
        List<String> written) {

    public Directive(
            String file,
            int line,
            List<String> words,
            String condition,
            List<String> unresolved,
            Guard guard) {
        this(file, line, words, condition, unresolved, guard, null);
    }

    public String keyword() {
        return words.isEmpty() ? "" : words.get(0);
    }

    public String word(int i) {
        return i < words.size() ? words.get(i) : null;
    }

    /**
     * Word i as written in the file (a variable as {@code ${NAME}}, not its value), for messages;
     * null past the end.
     */
    public String written(int i) {
        List<String> w = written != null && written.size() == words.size() ? written : words;
        return i < w.size() ? w.get(i) : null;
    }

    public int size() {
        return words.size();
    }

    public boolean is(String kw) {
        return keyword().equals(kw);
    }

    public boolean is(String kw, String second) {
        return keyword().equals(kw) && second.equals(word(1));
    }

    public boolean conditional() {
        return condition != null;
    }

    /** "a.cfg:12". */
    public String where() {
        return file + ":" + line;
    }

    /** Whether a word holds an unresolved variable. */
    public boolean unresolved(int i) {
        String w = word(i);
        if (w == null || unresolved.isEmpty()) {
            return false;
        }
        for (String n : unresolved) {
            if (w.contains("${" + n)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The directive as text for messages, with credentials redacted: {@code stats auth user:***},
     * {@code user NAME password ***}, {@code insecure-password ***}. Words are as written in the
     * file: a variable shows as {@code ${NAME}}, never its value.
     */
    public String text() {
        List<String> words =
                written != null && written.size() == this.words.size() ? written : this.words;
        StringBuilder sb = new StringBuilder();
        boolean redactNext = false;
        for (int i = 0; i < words.size(); i++) {
            String w = words.get(i);
            if (i > 0) {
                sb.append(' ');
            }
            if (redactNext) {
                sb.append("***");
                redactNext = false;
                continue;
            }
            String lw = w.toLowerCase(Locale.ROOT);
            if (i == 2 && is("stats", "auth")) {
                int c = w.indexOf(':');
                sb.append(c < 0 ? "***" : w.substring(0, c + 1) + "***");
                continue;
            }
            sb.append(w.indexOf(' ') >= 0 || w.isEmpty() ? "\"" + w + "\"" : w);
            if (lw.equals("password")
                    || lw.equals("insecure-password")
                    || lw.equals("auth") && !is("stats")
                    || lw.equals("secret")
                    || lw.equals("pass")) {
                redactNext = true;
            }
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return where() + " " + text();
    }
}
