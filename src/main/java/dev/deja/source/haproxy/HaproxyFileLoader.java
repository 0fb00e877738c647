package dev.deja.source.haproxy;

import dev.deja.engine.Catalog;
import dev.deja.engine.Coverage;
import dev.deja.engine.InlineSuppression;
import dev.deja.engine.InputException;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.engine.SourceFile;
import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.HaproxyConfigs;
import dev.deja.model.haproxy.HaproxyParser;
import dev.deja.model.haproxy.OwnVariables;
import dev.deja.model.haproxy.Section;
import dev.deja.source.FileLoader;
import dev.deja.source.InputFiles;
import dev.deja.source.ScanRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Loads haproxy.cfg files. Each file given (or found in a folder) is its own HAProxy instance, so
 * unrelated configs side by side are never merged; with {@code --haproxy-one-instance} all of them
 * are read together, in the order given (folders in C-locale order), as {@code haproxy -f a.cfg -f
 * conf.d/} would.
 */
public final class HaproxyFileLoader implements FileLoader {
    /** What the parser's note of a keyword HAProxy does not know says ({@code Keywords}). */
    static final String UNKNOWN_KEYWORD = ": unknown keyword '";

    /** Unknown keywords named one by one per configuration; the rest are counted. */
    static final int MAX_UNKNOWN_KEYWORDS = 20;

    @Override
    public void load(List<SourceFile> files, ScanRequest request, SnapshotBuilder out) {
        List<HaproxyConfig> configs = parse(files, request, out);
        Catalog catalog = null;
        for (HaproxyConfig c : configs) {
            noteRead(c, out);
            catalog = suppress(c, catalog, request, out);
            Map<String, List<String>> unset = new LinkedHashMap<>();
            warnIgnoredGlobalMaxconn(c, request); // before the line-by-line warnings
            for (Section s : c.sections()) {
                checkDirectives(s, unset, request);
            }
            dropOwnVariables(c, unset, request);
            noteUnsetVariables(c, unset, request, out);
            warnNotes(c, request, out);
        }
        out.put(HaproxyConfigs.class, new HaproxyConfigs(configs));
    }

    /**
     * The files parsed: one configuration each, or one for all with {@code --haproxy-one-instance};
     * a file that fails is a coverage entry (with --allow-partial).
     */
    private static List<HaproxyConfig> parse(
            List<SourceFile> files, ScanRequest request, SnapshotBuilder out) {
        List<HaproxyConfig> configs = new ArrayList<>();
        if (request.haproxyOneInstance && files.size() > 1) {
            String name =
                    files.get(0).display() + " (+" + (files.size() - 1) + " more, one instance)";
            try {
                configs.add(HaproxyParser.parse(name, files, request.haproxyParsing()));
            } catch (InputException e) {
                out.coverage(InputFiles.failed(request, "haproxy", name, e));
            }
        } else {
            for (SourceFile f : files) {
                try {
                    configs.add(
                            HaproxyParser.parse(f.display(), f.text(), request.haproxyParsing()));
                } catch (InputException e) { // with --allow-partial: not checked, the others are
                    out.coverage(InputFiles.failed(request, "haproxy", f.display(), e));
                }
            }
        }
        return configs;
    }

    /** Each file of a configuration read, with its count of section and directive lines. */
    private static void noteRead(HaproxyConfig c, SnapshotBuilder out) {
        Map<String, Integer> perFile = new LinkedHashMap<>();
        c.files().forEach(f -> perFile.put(f, 0));
        for (Section s : c.sections()) {
            perFile.merge(s.file(), 1 + s.directives().size(), Integer::sum);
        }
        perFile.forEach((f, n) -> out.read("haproxy", f, n));
    }

    /**
     * A configuration's deja:ignore comments, a warning for each naming a rule deja does not have;
     * returns the catalog, read on the first comment of the scan.
     */
    private static Catalog suppress(
            HaproxyConfig c, Catalog catalog, ScanRequest request, SnapshotBuilder out) {
        for (InlineSuppression s : c.suppressions()) {
            if (catalog == null) {
                catalog = Catalog.packaged();
            }
            if (catalog.rule(s.ruleId()).isEmpty()) {
                request.err.println(
                        "deja: warning: "
                                + s.origin()
                                + ": deja:ignore names unknown rule '"
                                + s.ruleId()
                                + "' (see 'deja rules')");
            }
            out.suppress(s);
        }
        return catalog;
    }

    /** Takes the variables HAProxy sets itself off the unset ones (a note each with --verbose). */
    private static void dropOwnVariables(
            HaproxyConfig c, Map<String, List<String>> unset, ScanRequest request) {
        unset.keySet()
                .removeIf(
                        v -> {
                            if (!OwnVariables.own(v, request.haproxyVersion)) {
                                return false;
                            }
                            if (request.verbose) {
                                request.err.println(
                                        "deja: note: "
                                                + c.name()
                                                + ": "
                                                + v
                                                + " is set by HAProxy itself; the directives"
                                                + " using it are read as set to a value deja"
                                                + " does not know");
                            }
                            return true;
                        });
    }

    /**
     * The parser's notes: keywords HAProxy does not know on stderr and in the report (the first
     * {@value #MAX_UNKNOWN_KEYWORDS}, then a count), the others on stderr when they matter.
     */
    private static void warnNotes(HaproxyConfig c, ScanRequest request, SnapshotBuilder out) {
        int unknown = 0;
        for (String n : c.notes()) {
            if (n.contains(UNKNOWN_KEYWORD)) {
                // haproxy refuses the file: said on stderr and in the report, as a warning
                if (++unknown <= MAX_UNKNOWN_KEYWORDS) {
                    request.err.println("deja: warning: " + n);
                    // the report names the configuration; its own file needs only the line
                    String detail =
                            n.startsWith(c.name() + ":")
                                    ? "line " + n.substring(c.name().length() + 1)
                                    : n;
                    out.coverage(
                            new Coverage.Entry(
                                    "haproxy", c.name(), Coverage.Status.NOTE, detail, -1));
                }
            } else if (request.verbose) {
                request.err.println("deja: " + n);
            } else if (n.contains("deja:ignore") || n.contains(": missing LF on last line")) {
                request.err.println("deja: warning: " + n);
            }
        }
        if (unknown > MAX_UNKNOWN_KEYWORDS) {
            String more =
                    (unknown - MAX_UNKNOWN_KEYWORDS)
                            + " more directives with a keyword HAProxy does not know (haproxy"
                            + " refuses the file; haproxy -c lists them)";
            request.err.println("deja: warning: " + c.name() + ": " + more);
            out.coverage(new Coverage.Entry("haproxy", c.name(), Coverage.Status.NOTE, more, -1));
        }
    }

    /**
     * A section's directives: numbers that are not numbers, unset variables. A method per section
     * rather than a nested loop in {@link #load}: called once per section it is compiled early, a
     * loop in a method called once is not.
     */
    private static void checkDirectives(
            Section s, Map<String, List<String>> unset, ScanRequest request) {
        for (Directive d : s.directives()) {
            warnIfNotANumber(d, request);
            for (String v : d.unresolved()) {
                unset.computeIfAbsent(v, k -> new ArrayList<>()).add(d.where());
            }
        }
    }

    /**
     * Variables a configuration uses that the scan does not know: the directives holding them are
     * set, to a value deja cannot read, and the rules say so instead of treating them as absent.
     * Said once per configuration, on stderr and in the report's notes, with how to give the
     * values.
     */
    private static void noteUnsetVariables(
            HaproxyConfig c,
            Map<String, List<String>> unset,
            ScanRequest request,
            SnapshotBuilder out) {
        if (unset.isEmpty()) {
            return;
        }
        List<String> parts = new ArrayList<>();
        unset.forEach(
                (v, where) ->
                        parts.add(
                                v
                                        + " ("
                                        + (where.size() <= 3
                                                ? String.join(", ", where)
                                                : String.join(", ", where.subList(0, 3))
                                                        + " and "
                                                        + (where.size() - 3)
                                                        + " more")
                                        + ")"));
        String first = unset.keySet().iterator().next();
        String detail =
                (unset.size() == 1 ? "variable " : "variables ")
                        + String.join(", ", parts)
                        + " not set: the"
                        + " directives using "
                        + (unset.size() == 1 ? "it" : "them")
                        + " are read as set to an unknown value,"
                        + " never as absent; give the value"
                        + (unset.size() == 1 ? "" : "s")
                        + " with --env "
                        + first
                        + "=VALUE";
        request.err.println("deja: note: " + c.name() + ": " + detail);
        out.coverage(new Coverage.Entry("haproxy", c.name(), Coverage.Status.NOTE, detail, -1));
    }

    /**
     * A global maxconn after the one HAProxy keeps (the first whose value is not 0): HAProxy
     * ignores it with "'maxconn' already specified. Continuing." (cfgparse-global.c; haproxy 2.6 -c
     * calls such a file valid, with that alert). Lines under .if blocks are left to the views.
     */
    private static void warnIgnoredGlobalMaxconn(HaproxyConfig c, ScanRequest request) {
        Directive kept = null;
        for (Section g : c.globals()) {
            for (Directive d : g.directives()) {
                if (!d.is("maxconn") || d.guard() != null || g.guard() != null) {
                    continue;
                }
                if (kept != null) {
                    request.err.println(
                            "deja: warning: "
                                    + d.where()
                                    + ": global maxconn '"
                                    + d.written(1)
                                    + "' is ignored: HAProxy keeps the first one, '"
                                    + kept.written(1)
                                    + "' at "
                                    + kept.where()
                                    + " ('maxconn' already specified)");
                } else if (Frontends.number(d, 1) != 0) {
                    kept = d;
                }
            }
        }
    }

    /**
     * A connection limit the rules read that is not a plain number ("maxconn 5x", "maxconn abc"):
     * HAProxy accepts it and reads its leading digits with atol() (cfgparse-global.c,
     * cfgparse-listen.c, bind_parse_maxconn; checked with haproxy 2.6, whose frontend slim is 5 for
     * "5x" and the global's for "abc"); deja reads it the same way and says what it read. A
     * negative one HAProxy refuses on a bind line; deja reads it as unknown.
     */
    private static void warnIfNotANumber(Directive d, ScanRequest request) {
        String keyword = d.keyword();
        boolean maxconn = keyword.equals("maxconn");
        if (!maxconn && !keyword.equals("bind")) {
            return; // most lines (server lines with many words) have no limit to read
        }
        for (int i = 1; i < d.size(); i++) {
            boolean global = i == 1 && maxconn;
            boolean limit = global || !maxconn && i > 1 && "maxconn".equals(d.word(i - 1));
            String w = d.word(i);
            if (!limit || w == null || d.unresolved(i) || Frontends.plainNumber(w)) {
                continue;
            }
            long v = Frontends.number(d, i);
            String read =
                    v < 0
                            ? "deja cannot read it and takes the limit as unknown"
                            : v > 0
                                    ? "HAProxy reads its leading digits (atol), " + v
                                    : "HAProxy reads it as 0 (atol), no limit of its own";
            request.err.println(
                    "deja: warning: "
                            + d.where()
                            + ": maxconn '"
                            + d.written(i)
                            + "' is not a plain number: "
                            + read);
        }
    }
}
