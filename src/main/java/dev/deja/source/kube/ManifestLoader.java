package dev.deja.source.kube;

import dev.deja.engine.Coverage;
import dev.deja.engine.InputException;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.engine.SourceFile;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.KubeRaw;
import dev.deja.model.kube.Meta;
import dev.deja.model.kube.Tree;
import dev.deja.model.kube.ViewReader;
import dev.deja.source.FileLoader;
import dev.deja.source.InputFiles;
import dev.deja.source.ScanRequest;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.reader.ReaderException;

/**
 * Reads Kubernetes manifests (YAML or JSON; several documents per file; {@code kind: List} and
 * other {@code *List} kinds with {@code items}; a JSON array of objects) into the {@link
 * KubeInventory}. Every view keeps the file and the line where its object starts. Kinds without a
 * dedicated view (CRDs, RBAC, Jobs, ...) are kept generically.
 *
 * <p>Parsing uses SnakeYAML's node API with limits: at most {@value #MAX_ALIASES} aliases to
 * collections (a "billion laughs" bomb is refused before it is expanded), nesting depth {@value
 * #MAX_DEPTH}, and {@value #MAX_DOC_MIB} MiB per document (the API server refuses objects over 1.5
 * MiB anyway).
 */
public final class ManifestLoader implements FileLoader {
    static final int MAX_ALIASES = 20;
    static final int MAX_DEPTH = 64;
    static final int MAX_DOC_MIB = 4;

    @Override
    public void load(List<SourceFile> files, ScanRequest request, SnapshotBuilder out) {
        KubeInventory.Builder inv =
                out.builder(KubeInventory.Builder.class, KubeInventory.Builder::new);
        // "Kind namespace/name" -> where each definition is ("file:line"), for the duplicate note
        Map<String, List<String>> definitions = new TreeMap<>();
        Set<String> rawKinds = request.kubeRawKinds;
        for (SourceFile f : files) {
            List<String> problems = new ArrayList<>();
            List<Object> views;
            KubeRaw.Builder raw = rawKinds.isEmpty() ? null : new KubeRaw.Builder();
            try {
                views = parse(f, problems, rawKinds, raw);
            } catch (InputException e) { // with --allow-partial: not checked, the others are
                out.coverage(InputFiles.failed(request, "kubernetes", f.display(), e));
                continue;
            }
            for (String p : new LinkedHashSet<>(problems)) {
                request.err.println("deja: warning: " + f.display() + ":" + p);
            }
            int count = 0;
            for (Object v : views) {
                if (v instanceof Rejected r) {
                    request.err.println("deja: " + r.message());
                    out.coverage(
                            new Coverage.Entry(
                                    "kubernetes",
                                    r.scope(),
                                    Coverage.Status.FAILED,
                                    r.message(),
                                    -1));
                    continue;
                }
                if (v instanceof String skipped) {
                    out.coverage(
                            new Coverage.Entry(
                                    "kubernetes",
                                    skipped,
                                    Coverage.Status.SKIPPED,
                                    "document has no kind, not a Kubernetes object",
                                    -1));
                    continue;
                }
                inv.add(v);
                count++;
                Meta m = metaOf(v);
                AnnotationSuppressions.record(m, request, out);
                // the kinds rules read; objects without a name are not one object defined twice
                // a chart template's line where it is known (as findings), else none
                Integer line =
                        f.lineMap() == null || m.line() == null
                                ? m.line()
                                : f.lineMap().sourceLine(m.line());
                if (!(v instanceof Meta) && m.name() != null) {
                    definitions
                            .computeIfAbsent(m.display(), k -> new ArrayList<>())
                            .add(m.file() + (line == null ? "" : ":" + line));
                }
            }
            out.read("kubernetes", f.display(), count);
            if (raw != null) {
                out.builder(KubeRaw.Builder.class, KubeRaw.Builder::new).addAll(raw);
            }
        }
        noteDuplicates(definitions, request, out);
    }

    /**
     * One object (kind, namespace, name) defined more than once: each definition is judged on its
     * own, with the related objects nearest to it ({@link KubeInventory#nearest}); said once, in
     * the report (folded with the others), and with --verbose on stderr too.
     */
    static void noteDuplicates(
            Map<String, List<String>> definitions, ScanRequest request, SnapshotBuilder out) {
        for (Map.Entry<String, List<String>> e : definitions.entrySet()) {
            List<String> where = e.getValue();
            if (where.size() < 2) {
                continue;
            }
            String detail =
                    "defined "
                            + where.size()
                            + " times ("
                            + String.join(", ", where)
                            + "): each is judged on"
                            + " its own, with the related objects nearest to it";
            // the report says it (folded when there are several); --verbose lists each here too
            if (request.verbose) {
                request.err.println("deja: note: " + e.getKey() + " is " + detail);
            }
            out.coverage(
                    new Coverage.Entry(
                            "kubernetes", e.getKey(), Coverage.Status.NOTE, detail, where.size()));
        }
    }

    public static Meta metaOf(Object view) {
        if (view instanceof Meta m) {
            return m;
        }
        try {
            return (Meta) view.getClass().getMethod("meta").invoke(view);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    static LoaderOptions options() {
        LoaderOptions o = new LoaderOptions();
        o.setMaxAliasesForCollections(MAX_ALIASES);
        o.setNestingDepthLimit(MAX_DEPTH);
        o.setCodePointLimit(MAX_DOC_MIB * 1024 * 1024);
        o.setAllowRecursiveKeys(false);
        o.setProcessComments(false);
        return o;
    }

    /**
     * The views of one file, in order; a document without a kind yields a String naming it (for the
     * coverage).
     */
    static List<Object> parse(SourceFile f) {
        return parse(f, null);
    }

    /**
     * As {@link #parse(SourceFile)}; values of the wrong type ("line: key: what") go to {@code
     * problems}.
     */
    static List<Object> parse(SourceFile f, List<String> problems) {
        return parse(f, problems, Set.of(), null);
    }

    /**
     * As {@link #parse(SourceFile, List)}; the objects of {@code rawKinds} are also kept in {@code
     * raw} as the manifest writes them ({@link KubeRaw}).
     */
    static List<Object> parse(
            SourceFile f, List<String> problems, Set<String> rawKinds, KubeRaw.Builder raw) {
        List<Object> out = new ArrayList<>();
        checkDocumentSizes(f);
        Yaml yaml = new Yaml(options());
        try {
            for (Node doc : yaml.composeAll(new StringReader(f.text()))) {
                if (doc == null) {
                    continue;
                }
                if (f.lineMap() != null) {
                    // a chart's rendered output: a key set twice leaves out that object only
                    DuplicateKeys.Dup d = DuplicateKeys.find(doc);
                    if (d != null) {
                        out.add(rejected(f, doc, d));
                        continue;
                    }
                }
                DuplicateKeys.check(doc, f.display()); // as kubectl: a key set twice is an error
                collect(YamlTree.of(doc, problems), f.display(), out, 0, rawKinds, raw);
            }
        } catch (MarkedYAMLException e) {
            Mark m = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            String where = m == null ? f.display() : f.display() + ":" + (m.getLine() + 1);
            throw new InputException(
                    where
                            + ": not valid YAML: "
                            + oneLine(e.getProblem() != null ? e.getProblem() : e.getMessage()));
        } catch (ReaderException e) { // a character YAML forbids: name its line
            int line = 1;
            String t = f.text();
            for (int i = 0, cp = 0;
                    i < t.length() && cp < e.getPosition();
                    i += Character.charCount(t.codePointAt(i)), cp++) {
                if (t.charAt(i) == '\n') {
                    line++;
                }
            }
            throw new InputException(
                    f.display()
                            + ":"
                            + line
                            + ": not valid YAML: character U+"
                            + String.format(Locale.ROOT, "%04X", e.getCodePoint())
                            + " is not allowed (binary content?)");
        } catch (YAMLException e) {
            throw new InputException(f.display() + ": " + limitMessage(e.getMessage()));
        } catch (StackOverflowError e) {
            throw new InputException(f.display() + ": refused: nesting too deep");
        }
        return out;
    }

    /**
     * A document of a rendered chart that sets a key twice: not judged (which value would count is
     * not known: kubectl refuses it, the API server keeps the last), named with its template, its
     * object and the key; the chart's other documents are scanned.
     */
    record Rejected(String scope, String message) {}

    static Rejected rejected(SourceFile f, Node doc, DuplicateKeys.Dup d) {
        Integer line = f.lineMap().sourceLine(d.line());
        Integer first = f.lineMap().sourceLine(d.first());
        String object = DuplicateKeys.objectOf(doc);
        String scope = object == null ? f.display() : f.display() + " " + object;
        String message =
                (line == null ? f.display() : f.display() + ":" + line)
                        + ": "
                        + (object == null ? "a document" : object)
                        + ": key \""
                        + d.shortKey()
                        + "\" set twice in one mapping"
                        + (first == null || line == null ? "" : " (first at line " + first + ")")
                        + "; kubectl refuses duplicate keys and the API server would keep the last"
                        + " value: this object is not checked";
        return new Rejected(scope, message);
    }

    /**
     * Refuses an oversized document before parsing: SnakeYAML enforces the same limit, but only
     * after scanning up to it, which for one enormous scalar takes seconds.
     */
    static void checkDocumentSizes(SourceFile f) {
        String t = f.text();
        long limit = (long) MAX_DOC_MIB * 1024 * 1024;
        if (t.length() <= limit) {
            return;
        }
        int start = 0;
        int startLine = 1;
        int line = 1;
        int i = 0;
        while (i <= t.length()) {
            int nl = t.indexOf('\n', i);
            int end = nl < 0 ? t.length() : nl;
            boolean separator = t.startsWith("---", i) || t.startsWith("...", i);
            if (separator || nl < 0) {
                int docEnd = separator ? i : end;
                if (docEnd - start > limit) {
                    throw new InputException(
                            f.display()
                                    + ":"
                                    + startLine
                                    + ": refused: a document is larger than "
                                    + MAX_DOC_MIB
                                    + " MiB (Kubernetes objects are at most 1.5 MiB)");
                }
                start = i;
                startLine = line;
            }
            if (nl < 0) {
                break;
            }
            i = nl + 1;
            line++;
        }
    }

    private static void collect(
            Tree t,
            String file,
            List<Object> out,
            int depth,
            Set<String> rawKinds,
            KubeRaw.Builder raw) {
        if (t == null) {
            return;
        }
        if (!t.isMapping()) {
            List<Tree> items = t.items();
            if (!items.isEmpty() && depth == 0) { // a JSON array of objects
                for (Tree i : items) {
                    collect(i, file, out, depth + 1, rawKinds, raw);
                }
                return;
            }
            if (t.text() == null || !t.text().isBlank()) {
                out.add(file + ":" + t.line());
            }
            return;
        }
        String kind = t.text("kind");
        if (kind == null) {
            out.add(file + ":" + t.line());
            return;
        }
        Tree items = t.get("items");
        if (kind.endsWith("List")
                && (items != null || t.get("metadata") == null || kind.equals("List"))) {
            if (items != null) {
                for (Tree i : items.items()) {
                    collect(i, file, out, depth + 1, rawKinds, raw);
                }
            }
            return;
        }
        Object view = ViewReader.read(t, file);
        out.add(view);
        if (raw != null && rawKinds.contains(kind) && t instanceof YamlTree y) {
            RawObjects.keepOrRefuse(view, () -> RawObjects.fromYaml(y.node()), raw);
        }
    }

    static String limitMessage(String msg) {
        String m = oneLine(msg);
        String low = m.toLowerCase(Locale.ROOT);
        if (low.contains("aliases")) {
            return "refused: more than "
                    + MAX_ALIASES
                    + " aliases to collections (a YAML \"billion laughs\" bomb?)";
        }
        if (low.contains("nesting depth")) {
            return "refused: nested deeper than " + MAX_DEPTH + " levels";
        }
        if (low.contains("code points") || low.contains("exceeds the limit")) {
            return "refused: a document is larger than "
                    + MAX_DOC_MIB
                    + " MiB (Kubernetes objects are at most 1.5 MiB)";
        }
        return "not valid YAML: " + m;
    }

    private static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        return s.lines().map(String::strip).filter(x -> !x.isEmpty()).findFirst().orElse("");
    }
}
