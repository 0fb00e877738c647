package dev.deja.model.haproxy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;

/**
 * The conditional blocks of haproxy.cfg (HAProxy configuration manual 2.4): {@code
 * .if/.elif/.else/.endif}, nested, evaluated with {@link Conditions} against an HAProxy version and
 * the environment, and the message directives {@code .diag/.notice/.warning/.alert}, which become
 * notes.
 *
 * <p>A branch is TRUE, FALSE or undecided (a predicate deja cannot know here, an unset variable).
 * Lines of a FALSE branch are skipped, as HAProxy skips them ({@link #inactive()}); undecided
 * branches are all kept and every line in them carries the {@link #condition()} (text for messages)
 * and {@link #guard()} (which branch of which undecided block, for the path analysis). Each {@code
 * .if} with an undecided branch becomes an {@link UndecidedBlock}, numbered across the files of one
 * instance. Nesting is checked per file ({@link #endFile}): a block cannot span files.
 *
 * <p>Each directive costs time proportional to the nesting depth, bounded by {@link #MAX_NESTING}.
 */
final class ConditionalBlocks {
    /**
     * Deepest .if nesting accepted: HAProxy's own limit (cfgparse.c: "too many nested '.if', max is
     * 100"; 2.6 refuses the 100th nested .if).
     */
    static final int MAX_NESTING = 99;

    private final Function<String, String> variable;
    private final String version;
    private final List<String> notes;
    private final Deque<Frame> stack = new ArrayDeque<>();
    // the undecided blocks of the instance, by id
    private final List<String> blockWhere = new ArrayList<>();
    private final List<List<String>> blockBranches = new ArrayList<>();
    private final List<Boolean> blockNone = new ArrayList<>();
    // the state of the line being read, recomputed after each dot-directive
    private boolean inactive;
    private String condition;
    private Guard guard;

    /**
     * {@code variable} gives an environment variable's value (null when unset), {@code version} is
     * what {@code version_atleast()} compares with; notes (undecided conditions, messages) are
     * added to {@code notes}.
     */
    ConditionalBlocks(Function<String, String> variable, String version, List<String> notes) {
        this.variable = variable;
        this.version = version;
        this.notes = notes;
    }

    private static final class Frame {
        final int line;

        /** The expression, variables expanded: what is evaluated. */
        final String text;

        /** The expression as written, variables unexpanded: what messages show. */
        String raw;

        /** State of the branch being read. */
        Conditions.Tri branch;

        /** Whether an earlier branch was taken: TRUE, FALSE, or UNKNOWN (undecided). */
        Conditions.Tri earlier;

        boolean elseSeen;
        boolean parentInactive;
        String branchText;

        /**
         * Index of the undecided block once a branch is undecided, else -1; then the branch number.
         */
        int block = -1;

        int branchNo = -1;

        Frame(int line, String text) {
            this.line = line;
            this.text = text;
        }
    }

    /** Whether lines here are skipped (a FALSE branch, as HAProxy skips them). */
    boolean inactive() {
        return inactive;
    }

    /**
     * The undecided branches lines here sit in, as text ("... and ..."), or null when they always
     * apply.
     */
    String condition() {
        return condition;
    }

    /** The undecided branches lines here sit in, or null when they always apply. */
    Guard guard() {
        return guard;
    }

    /**
     * Reads one dot-directive: {@code words} as lexed (variables expanded; {@code words.get(0)}
     * starts with '.'), {@code raw} its arguments as written, {@code unresolved} the variables it
     * used without a value.
     */
    void directive(
            List<String> words, String raw, List<String> unresolved, String display, int lineNo) {
        String kw = words.get(0);
        switch (kw) {
            case ".if" -> openIf(words, raw, unresolved, display, lineNo);
            case ".elif", ".else" -> nextBranch(kw, words, raw, unresolved, display, lineNo);
            case ".endif" -> {
                if (stack.isEmpty()) {
                    throw new HaproxyParseException(display, lineNo, ".endif without .if");
                }
                Frame done = stack.pop();
                if (done.block >= 0) {
                    blockNone.set(done.block, done.earlier != Conditions.Tri.TRUE);
                }
            }
            case ".diag", ".notice", ".warning", ".alert" ->
                    message(kw, words, raw, display, lineNo);
            default -> {
                if (!inactive) {
                    notes.add(display + ":" + lineNo + ": unknown directive " + kw + " kept as is");
                }
            }
        }
        recompute();
    }

    /** An .if: a new frame, its branch decided unless an enclosing branch is inactive. */
    private void openIf(
            List<String> words, String raw, List<String> unresolved, String display, int lineNo) {
        if (stack.size() >= MAX_NESTING) {
            throw new HaproxyParseException(
                    display,
                    lineNo,
                    "too many nested '.if', max is " + (MAX_NESTING + 1) + " (as HAProxy)");
        }
        Frame f = new Frame(lineNo, expression(words));
        f.raw = raw;
        f.parentInactive = inactive;
        if (inactive) {
            f.branch = Conditions.Tri.FALSE;
            f.earlier = Conditions.Tri.TRUE;
        } else {
            Conditions.Tri t = eval(display, lineNo, f.text, f.raw, unresolved);
            f.branch = t;
            f.earlier = t;
            f.branchText = ".if " + f.raw + " (" + display + ":" + lineNo + ")";
            undecided(f, display);
        }
        stack.push(f);
    }

    /** An .elif or .else of the innermost .if. */
    private void nextBranch(
            String kw,
            List<String> words,
            String raw,
            List<String> unresolved,
            String display,
            int lineNo) {
        Frame f = stack.peek();
        if (f == null) {
            throw new HaproxyParseException(display, lineNo, kw + " without .if");
        }
        if (f.elseSeen) {
            throw new HaproxyParseException(
                    display, lineNo, kw + " after .else (of the .if at line " + f.line + ")");
        }
        boolean isElse = kw.equals(".else");
        f.elseSeen = isElse;
        if (f.parentInactive || f.earlier == Conditions.Tri.TRUE) {
            f.branch = Conditions.Tri.FALSE;
        } else {
            Conditions.Tri t =
                    isElse
                            ? Conditions.Tri.TRUE
                            : eval(display, lineNo, expression(words), raw, unresolved);
            if (f.earlier == Conditions.Tri.FALSE) {
                f.branch = t;
                f.earlier = t;
            } else { // earlier branches undecided
                f.branch =
                        t == Conditions.Tri.FALSE ? Conditions.Tri.FALSE : Conditions.Tri.UNKNOWN;
                f.earlier = t == Conditions.Tri.TRUE ? Conditions.Tri.TRUE : Conditions.Tri.UNKNOWN;
            }
            f.branchText =
                    (isElse ? ".else" : ".elif " + raw)
                            + " ("
                            + display
                            + ":"
                            + lineNo
                            + ", of .if "
                            + f.raw
                            + " at line "
                            + f.line
                            + ")";
            undecided(f, display);
        }
    }

    /** .diag, .notice, .warning, .alert: a note, in an active branch. */
    private void message(String kw, List<String> words, String raw, String display, int lineNo) {
        if (!inactive) {
            // with a variable, as written: a variable's value is never printed
            String msg =
                    raw.indexOf('$') >= 0 ? raw : String.join(" ", words.subList(1, words.size()));
            notes.add(
                    display
                            + ":"
                            + lineNo
                            + ": "
                            + kw.substring(1)
                            + ": "
                            + msg
                            + (kw.equals(".alert")
                                    ? " (HAProxy refuses to start on this .alert)"
                                    : "")
                            + (condition == null ? "" : " [only when " + condition + "]"));
        }
    }

    /**
     * The end of a file: an open .if is an error (HAProxy: blocks do not span files); the next file
     * starts afresh.
     */
    void endFile(String display) {
        if (!stack.isEmpty()) {
            Frame f = stack.peek();
            throw new HaproxyParseException(
                    display, f.line, ".if without matching .endif before the end of the file");
        }
        inactive = false;
        condition = null;
        guard = null;
    }

    /** The undecided blocks met so far, by id. */
    List<UndecidedBlock> undecided() {
        List<UndecidedBlock> blocks = new ArrayList<>();
        for (int i = 0; i < blockWhere.size(); i++) {
            blocks.add(
                    new UndecidedBlock(
                            i, blockWhere.get(i), blockBranches.get(i), blockNone.get(i)));
        }
        return blocks;
    }

    /** Recomputes inactive/condition/guard from the stack, outermost block first. */
    private void recompute() {
        inactive = false;
        StringBuilder c = null;
        List<int[]> g = null;
        for (Iterator<Frame> it = stack.descendingIterator(); it.hasNext(); ) {
            Frame f = it.next();
            if (f.branch == Conditions.Tri.FALSE) {
                inactive = true;
                break;
            }
            if (f.branch == Conditions.Tri.UNKNOWN) {
                if (c == null) {
                    c = new StringBuilder();
                    g = new ArrayList<>();
                } else {
                    c.append(" and ");
                }
                c.append(f.branchText);
                g.add(new int[] {f.block, f.branchNo});
            }
        }
        condition = inactive || c == null ? null : c.toString();
        guard = null;
        if (condition != null) {
            int[] bl = new int[g.size()];
            int[] br = new int[g.size()];
            for (int k = 0; k < bl.length; k++) {
                bl[k] = g.get(k)[0];
                br[k] = g.get(k)[1];
            }
            guard = new Guard(bl, br);
        }
    }

    /**
     * Registers the frame's current branch as undecided (a new block on its first undecided
     * branch).
     */
    private void undecided(Frame f, String display) {
        if (f.branch != Conditions.Tri.UNKNOWN) {
            return;
        }
        if (f.block < 0) {
            f.block = blockWhere.size();
            blockWhere.add(display + ":" + f.line);
            blockBranches.add(new ArrayList<>());
            blockNone.add(Boolean.TRUE);
        }
        blockBranches.get(f.block).add(f.branchText);
        f.branchNo = blockBranches.get(f.block).size() - 1;
    }

    private static String expression(List<String> words) {
        return String.join(" ", words.subList(1, words.size()));
    }

    /**
     * Evaluates {@code expr} (variables expanded); messages show {@code raw}, as written, never a
     * variable's value.
     */
    private Conditions.Tri eval(
            String display, int line, String expr, String raw, List<String> unresolved) {
        Conditions.Tri[] out = new Conditions.Tri[1];
        Conditions c;
        try {
            c = Conditions.evaluate(expr, variable, version, unresolved, out);
        } catch (Conditions.SyntaxError e) {
            throw new HaproxyParseException(
                    display,
                    line,
                    "cannot evaluate condition '"
                            + HaproxyParser.abbrev(raw)
                            + "'"
                            + (raw.indexOf('$') >= 0
                                    ? " (the values of its variables are not shown)"
                                    : ": " + HaproxyParser.abbrev(e.getMessage())));
        }
        if (out[0] == Conditions.Tri.UNKNOWN) {
            notes.add(
                    display
                            + ":"
                            + line
                            + ": undecided condition '"
                            + raw
                            + "' ("
                            + String.join("; ", c.reasons)
                            + "): every branch is analysed");
        }
        return out[0];
    }
}
