package dev.deja.model.haproxy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The lexer of haproxy.cfg (HAProxy configuration manual 2.2 and 2.3): one line at a time, into
 * words.
 *
 * <ul>
 *   <li>Words are separated by spaces and tabs; an unprotected {@code #} starts a comment.
 *   <li>{@code "..."} (weak) and {@code '...'} (strong) quoting; quoted and unquoted parts next to
 *       each other form one word; quotes do not span lines.
 *   <li>Backslash escapes {@code \ }, {@code \#}, {@code \\}, {@code \'}, {@code \"}, {@code \$},
 *       {@code \n}, {@code \r}, {@code \t}, {@code \xNN} outside strong quotes; other backslashes
 *       are kept.
 *   <li>Environment variables inside double quotes: {@code $NAME}, {@code ${NAME}}, {@code
 *       ${NAME-default}}; an unset one stays in the word as {@code ${NAME}} and is listed in {@link
 *       #unresolved()}.
 * </ul>
 *
 * The lexer keeps its buffers from line to line (a plain word is cut out of the text in one piece),
 * so a line costs time linear in its length; {@link #words()} and {@link #unresolved()} hold the
 * last line until the next {@link #lex}. Errors are {@link HaproxyParseException}s naming
 * file:line.
 */
final class LineLexer {
    /** A {@code # deja:ignore RULE REASON} comment; {@code origin} is "file:line". */
    record Ignore(String rule, String reason, String origin) {}

    private final Function<String, String> variable;
    private final ArrayList<String> words = new ArrayList<>();
    private final ArrayList<String> unresolved = new ArrayList<>();
    private final StringBuilder word = new StringBuilder();
    private int commentStart;

    /** Whether the last line expanded a variable to a value (or its default). */
    private boolean expanded;

    /**
     * While re-reading a line for {@link #written()}: variables are kept as written, not expanded.
     */
    private boolean asWritten;

    /**
     * The last line's words as written (variables not expanded), or null when no variable had a
     * value.
     */
    private List<String> written;

    /** {@code variable} gives an environment variable's value, or null when it is not set. */
    LineLexer(Function<String, String> variable) {
        this.variable = variable;
    }

    /** The words of the last line lexed (valid until the next {@link #lex}). */
    List<String> words() {
        return words;
    }

    /**
     * The last line's words with every variable as written ({@code "${API_SECRET}"}, {@code
     * $NAME}), quotes and escapes resolved as in {@link #words()}, one for each of its words; null
     * when the line expanded no variable to a value (then {@link #words()} is as written). What
     * messages quote: a variable's value is never printed.
     */
    List<String> written() {
        return written;
    }

    /** Variables the last line used without a value, each once, in order of use. */
    List<String> unresolved() {
        return unresolved;
    }

    /** Index in the text just after the last line's comment {@code #}, or -1 when it has none. */
    int commentStart() {
        return commentStart;
    }

    /**
     * For a line whose first word starts with '.' ({@code .if}, {@code .notice}, ...): its
     * arguments as written in text[start, end), before unquoting and variable expansion, without
     * the comment (what messages show: a variable's value is never printed). Null for any other
     * line.
     */
    String rawArgs(String text, int start, int end) {
        if (words.isEmpty() || !words.get(0).startsWith(".")) {
            return null;
        }
        // the comment's '#' is at commentStart - 1
        return text.substring(start, commentStart >= 0 ? commentStart - 1 : end)
                .strip()
                .replaceFirst("^\\S+\\s*", "");
    }

    /**
     * {@code # deja:ignore <rule-id> <reason>} in the comment text[from, end) of a line, or null. A
     * reason is required (one rule for every kind of suppression).
     */
    static Ignore ignore(String text, int from, int end, String display, int line) {
        int at =
                -1; // searched within this line only: a search to the end of the text was quadratic
        // in comments
        for (int i = text.indexOf('d', from);
                i >= 0 && i + "deja:ignore".length() <= end;
                i = text.indexOf('d', i + 1)) {
            if (text.startsWith("deja:ignore", i)) {
                at = i;
                break;
            }
        }
        if (at < 0) {
            return null;
        }
        String rest = text.substring(at + "deja:ignore".length(), end).strip();
        if (rest.isEmpty()) {
            return null;
        }
        int sp = 0;
        while (sp < rest.length() && !Character.isWhitespace(rest.charAt(sp))) {
            sp++;
        }
        String rule = rest.substring(0, sp);
        String reason = rest.substring(sp).strip();
        if (reason.isEmpty()) { // one rule for every suppression (--ignore-file, annotations): a
            // reason is required
            throw new HaproxyParseException(
                    display,
                    line,
                    "deja:ignore "
                            + rule
                            + " gives no reason (write"
                            + " '# deja:ignore <rule-id> <reason>': why the risk is accepted)");
        }
        return new Ignore(rule, reason, display + ":" + line);
    }

    /**
     * Splits text[start, end) (one line, without its line end) into {@link #words()}; sets {@link
     * #commentStart()} (index after '#', or -1) and {@link #unresolved()}. A word made of plain
     * characters only is cut out of the text in one piece; the builder is used from the first quote
     * or backslash on.
     */
    void lex(String text, int start, int end, String display, int line) {
        words.clear();
        unresolved.clear();
        written = null;
        expanded = false;
        scan(text, start, end, display, line);
        if (expanded) { // rare: read the line again keeping its variables as written (same words,
            // one for one)
            List<String> values = List.copyOf(words);
            words.clear();
            asWritten = true;
            try {
                scan(text, start, end, display, line);
            } finally {
                asWritten = false;
            }
            written = List.copyOf(words);
            words.clear();
            words.addAll(values);
        }
    }

    // Long: one state machine over the line's characters, run for every line of every file; its
    // state (position, word start, quote, in-word, verbatim run) lives in locals, which pieces of
    // it
    // would have to share as fields of the lexer
    private void scan(String text, int start, int end, String display, int line) {
        commentStart = -1;
        StringBuilder w = word;
        w.setLength(0);
        boolean inWord = false;
        boolean plain = false; // the current word is text[wordStart, i) verbatim
        int wordStart = 0;
        char quote = 0; // 0, '"' or '\''
        int i = start;
        while (i < end) {
            char c = text.charAt(i);
            if (plain) {
                i = plainEnd(text, i, end);
                if (i == end) {
                    break;
                }
                c = text.charAt(i);
                if (c == ' ' || c == '\t') {
                    words.add(text.substring(wordStart, i));
                    plain = false;
                    inWord = false;
                    i++;
                    continue;
                }
                // leave the fast path: copy what we have and handle c below
                w.append(text, wordStart, i);
                plain = false;
            }
            if (quote == '\'') {
                if (c == '\'') {
                    quote = 0;
                } else {
                    w.append(c);
                }
                i++;
                continue;
            }
            if (c == '\\' && i + 1 < end) {
                i = escape(text, i, end, display, line);
                inWord = true;
                continue;
            }
            if (quote == '"') {
                if (c == '"') {
                    quote = 0;
                    i++;
                } else if (c == '$') {
                    i = variable(text, i, end, display, line);
                } else {
                    w.append(c);
                    i++;
                }
                continue;
            }
            switch (c) {
                case ' ', '\t' -> {
                    if (inWord) {
                        words.add(w.toString());
                        w.setLength(0);
                        inWord = false;
                    }
                    i++;
                }
                case '#' -> {
                    commentStart = i + 1;
                    i = end;
                }
                case '"', '\'' -> {
                    quote = c;
                    inWord = true;
                    i++;
                }
                default -> {
                    if (!inWord) {
                        plain = true;
                        wordStart = i;
                        inWord = true;
                    } else {
                        w.append(c);
                    }
                    i++;
                }
            }
        }
        if (quote != 0) {
            throw new HaproxyParseException(
                    display,
                    line,
                    "unterminated "
                            + (quote == '"' ? "double" : "single")
                            + " quote (quotes do not span lines)");
        }
        if (plain) {
            words.add(text.substring(wordStart, end));
        } else if (inWord) {
            words.add(w.toString());
            w.setLength(0);
        }
    }

    /**
     * Appends the escape at text[i] (a backslash with a character after it) to the word: {@code \
     * }, {@code \#}, {@code \\}, {@code \'}, {@code \"}, {@code \$}, {@code \n}, {@code \r}, {@code
     * \t}, {@code \xNN}; any other backslash is kept. Returns the index after it.
     */
    private int escape(String text, int i, int end, String display, int line) {
        StringBuilder w = word;
        char n = text.charAt(i + 1);
        switch (n) {
            case ' ', '\\', '#', '\'', '"', '$' -> {
                w.append(n);
                return i + 2;
            }
            case 'n' -> {
                w.append('\n');
                return i + 2;
            }
            case 'r' -> {
                w.append('\r');
                return i + 2;
            }
            case 't' -> {
                w.append('\t');
                return i + 2;
            }
            case 'x' -> {
                int h1 = i + 2 < end ? Character.digit(text.charAt(i + 2), 16) : -1;
                int h2 = i + 3 < end ? Character.digit(text.charAt(i + 3), 16) : -1;
                if (h1 < 0 || h2 < 0) {
                    throw new HaproxyParseException(
                            display,
                            line,
                            "invalid escape '\\x' (two hexadecimal digits expected)");
                }
                w.append((char) (h1 * 16 + h2));
                return i + 4;
            }
            default -> {
                w.append('\\');
                return i + 1;
            }
        }
    }

    /** The index of the first space, tab, '#', quote or backslash in text[i, end), or end. */
    private static int plainEnd(String text, int i, int end) {
        while (i < end) {
            char c = text.charAt(i);
            if (c == ' ' || c == '\t' || c == '#' || c == '"' || c == '\'' || c == '\\') {
                return i;
            }
            i++;
        }
        return end;
    }

    /** Expands a variable at text[i] == '$' inside double quotes; returns the index after it. */
    private int variable(String text, int i, int end, String display, int line) {
        StringBuilder w = word;
        if (i + 1 < end && text.charAt(i + 1) == '{') {
            int close = text.indexOf('}', i + 2);
            if (close < 0 || close >= end) {
                throw new HaproxyParseException(
                        display, line, "unterminated variable '${' (missing '}')");
            }
            String inner = text.substring(i + 2, close);
            String name = inner;
            String dflt = null;
            int dash = inner.indexOf('-');
            if (dash >= 0) {
                name = inner.substring(0, dash);
                dflt = inner.substring(dash + 1);
            }
            int br = name.indexOf('[');
            if (br >= 0) {
                name = name.substring(0, br);
            }
            if (name.isEmpty() || !validName(name)) {
                throw new HaproxyParseException(
                        display, line, "invalid variable name '${" + inner + "}'");
            }
            if (asWritten) {
                w.append(text, i, close + 1);
                return close + 1;
            }
            String v = variable.apply(name);
            if (v != null) {
                w.append(v);
                expanded = true;
            } else if (dflt != null) {
                w.append(dflt);
                expanded = true;
            } else {
                w.append("${").append(name).append('}');
                if (!unresolved.contains(name)) {
                    unresolved.add(name);
                }
            }
            return close + 1;
        }
        int j = i + 1;
        while (j < end && isNameChar(text.charAt(j))) {
            j++;
        }
        if (j == i + 1) {
            w.append('$');
            return i + 1;
        }
        if (asWritten) {
            w.append(text, i, j);
            return j;
        }
        String name = text.substring(i + 1, j);
        String v = variable.apply(name);
        if (v != null) {
            w.append(v);
            expanded = true;
        } else {
            w.append("${").append(name).append('}');
            if (!unresolved.contains(name)) {
                unresolved.add(name);
            }
        }
        return j;
    }

    private static boolean isNameChar(char c) {
        return c == '_'
                || (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9');
    }

    private static boolean validName(String n) {
        for (int k = 0; k < n.length(); k++) {
            if (!isNameChar(n.charAt(k))) {
                return false;
            }
        }
        return true;
    }
}
