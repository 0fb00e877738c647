package dev.deja.snapshot;

import dev.deja.engine.Coverage;
import dev.deja.engine.InputException;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.engine.SourceFile;
import dev.deja.engine.Target;
import dev.deja.source.FileKind;
import dev.deja.source.FileReplace;
import dev.deja.source.OpenDeadline;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The saved-snapshot format: {@code {"format": "deja-snapshot", "version": 1, "target": {"cluster":
 * ...}, "parts": {"kubernetes": ..., "aws": ...}, "coverage": [...]}}. Each part is written and
 * read by the source's {@link SnapshotCodec}; coverage is kept so that an offline re-scan still
 * says what the live scan could not read.
 */
public final class SnapshotFile {
    public static final String FORMAT = FileKind.SNAPSHOT_FORMAT;
    public static final int VERSION = 1;

    /** The part names, in the order a snapshot file writes them; each has a codec below. */
    static final List<String> PARTS =
            List.of("kubernetes", "aws", "haproxyRuntime", "prometheus", "podMetrics", "fleet");

    private SnapshotFile() {}

    /**
     * The codec of a part, null for an unknown part. A codec's class (and the source model it
     * reads) is loaded only when a snapshot holds that part.
     */
    static SnapshotCodec codec(String part) {
        return switch (part) {
            case "kubernetes" -> new KubeSnapshotCodec();
            case "aws" -> new AwsSnapshotCodec();
            case "haproxyRuntime" -> new HaproxyRuntimeCodec();
            case "prometheus" -> new PrometheusCodec();
            case "podMetrics" -> new PodMetricsCodec();
            case "fleet" -> new FleetCodec();
            default -> null;
        };
    }

    public static JsonMapper mapper() {
        return JsonMapper.builder().build();
    }

    /** {@link #write(Snapshot, Path, long)} with the default open deadline. */
    public static void write(Snapshot snapshot, Path file) {
        write(snapshot, file, OpenDeadline.DEFAULT_SECONDS * 1000L);
    }

    /**
     * Writes the snapshot; only parts whose codec finds something are written. A path that names a
     * regular file or nothing yet gets the whole snapshot or keeps what it had: it is written to a
     * temporary file next to it, then moved onto it. Anything else (a named pipe, /dev/stdout, a
     * link) is written into, as {@code -o} writes: a named pipe must get its reader within {@code
     * openDeadlineMs} (DEJA_OPEN_DEADLINE).
     */
    public static void write(Snapshot snapshot, Path file, long openDeadlineMs) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode root = f.objectNode();
        root.put("format", FORMAT);
        root.put("version", VERSION);
        snapshot.part(Target.class)
                .ifPresent(
                        t -> {
                            ObjectNode o =
                                    root.putObject(
                                            "target"); // the cluster or account this snapshot was
                            // read from
                            if (t.cluster() != null) {
                                o.put("cluster", t.cluster());
                            }
                            if (t.account() != null) {
                                o.put("account", t.account());
                            }
                        });
        ObjectNode parts = root.putObject("parts");
        for (String name : PARTS) {
            SnapshotCodec c = codec(name);
            JsonNode n = c == null ? null : c.write(snapshot, f);
            if (n != null) {
                parts.set(name, n);
            }
        }
        ArrayNode cov = root.putArray("coverage");
        for (Coverage.Entry e : snapshot.coverage().entries()) {
            ObjectNode o = cov.addObject();
            o.put("source", e.source());
            o.put("scope", e.scope());
            o.put("status", e.status().name().toLowerCase(Locale.ROOT));
            if (e.detail() != null) {
                o.put("detail", e.detail());
            }
            o.put("count", e.count());
        }
        String text = mapper().writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
                    || !Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                replace(file, text);
            } else {
                OpenDeadline.writeString(file, text, openDeadlineMs);
            }
        } catch (IOException e) {
            throw new InputException(file + ": cannot write snapshot: " + e.getMessage());
        }
    }

    /**
     * The file replaced by one holding the text (a temporary file in its folder, moved onto it); an
     * existing file's permissions are kept.
     */
    private static void replace(Path file, String text) throws IOException {
        FileReplace.replace(file, out -> out.write(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** Reads a saved snapshot into the builder. */
    public static void read(SourceFile file, SnapshotBuilder out) {
        read(file, parse(file), out);
    }

    /**
     * The snapshot's JSON, checked before anything of it enters a builder: valid JSON, deja's
     * format and version, known parts. A value a part's codec cannot use is found only by {@link
     * #read(SourceFile, JsonNode, SnapshotBuilder)}.
     */
    static JsonNode parse(SourceFile file) {
        JsonNode root;
        try {
            root = mapper().readTree(file.text());
        } catch (JacksonException e) {
            long line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
            throw new InputException(
                    file.display() + ":" + line + ": not valid JSON: " + e.getOriginalMessage());
        }
        if (!FORMAT.equals(root.path("format").asString(""))) {
            throw new InputException(
                    file.display()
                            + ": not a deja snapshot (\"format\" is not \""
                            + FORMAT
                            + "\")");
        }
        int v = root.path("version").asInt(-1);
        if (v != VERSION) {
            throw new InputException(
                    file.display()
                            + ": snapshot version "
                            + v
                            + " is not supported (expected "
                            + VERSION
                            + ")");
        }
        for (Map.Entry<String, JsonNode> p : root.path("parts").properties()) {
            if (codec(p.getKey()) == null) {
                throw new InputException(
                        file.display() + ": unknown snapshot part '" + p.getKey() + "'");
            }
        }
        // the coverage says what the live scan could not read, and so which rules must not run:
        // a snapshot whose coverage cannot be used is not used at all
        for (JsonNode e : root.path("coverage")) {
            status(e, file);
        }
        return root;
    }

    private static Coverage.Status status(JsonNode e, SourceFile file) {
        try {
            return Coverage.Status.valueOf(
                    e.path("status").asString("read").toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException ex) {
            throw new InputException(
                    file.display() + ": unknown coverage status " + e.path("status"));
        }
    }

    /** The coverage source of each part's lists. */
    private static final Map<String, String> SOURCES =
            Map.of(
                    "kubernetes", "kubernetes",
                    "aws", "aws",
                    "haproxyRuntime", "haproxy",
                    "prometheus", "prometheus",
                    "podMetrics", "prometheus");

    /** "snapshot malformed: FILE: " before a codec's message that does not start so. */
    static InputException malformed(String display, String part, String message) {
        String m =
                String.valueOf(message)
                        .lines()
                        .findFirst()
                        .orElse("")
                        .replaceAll("\\p{Cntrl}", "?");
        if (m.startsWith("snapshot malformed: ")) {
            return new InputException(m);
        }
        if (m.startsWith(display + ": ")) {
            return new InputException("snapshot malformed: " + m);
        }
        return new InputException(
                "snapshot malformed: "
                        + display
                        + ": "
                        + part
                        + " part: "
                        + (m.length() <= 200 ? m : m.substring(0, 197) + "..."));
    }

    /** Reads a snapshot {@link #parse(SourceFile) parsed} from {@code file} into the builder. */
    static void read(SourceFile file, JsonNode root, SnapshotBuilder out) {
        read(file, root, out, SnapshotCodec.Unusable.STOP);
    }

    /**
     * As {@link #read(SourceFile, JsonNode, SnapshotBuilder)}; a part, or one list of a part, that
     * cannot be used goes to {@code unusable} (see {@link SnapshotCodec.Unusable}) and the rest is
     * read. Nothing of an unusable unit enters the builder: each codec adds what it read once all
     * of it is checked.
     */
    static void read(
            SourceFile file, JsonNode root, SnapshotBuilder out, SnapshotCodec.Unusable unusable) {
        JsonNode parts = root.path("parts");
        int read = 0;
        for (Map.Entry<String, JsonNode> p : parts.properties()) {
            SnapshotCodec c = codec(p.getKey());
            try {
                c.read(
                        p.getValue(),
                        file.display(),
                        out,
                        (source, scope, e) ->
                                unusable.list(
                                        source,
                                        scope,
                                        malformed(file.display(), p.getKey(), e.getMessage())));
                read++;
            } catch (
                    RuntimeException
                            e) { // the part as a whole, or a value the codec could not use (a
                // number out of range, a wrong type)
                unusable.list(
                        SOURCES.getOrDefault(p.getKey(), "snapshot"),
                        p.getKey() + " part of snapshot " + file.display(),
                        malformed(file.display(), p.getKey(), e.getMessage()));
            }
        }
        for (JsonNode e : root.path("coverage")) {
            Coverage.Status st = status(e, file);
            // what was read and what was not, as when the snapshot was taken: the rules that need a
            // kind the
            // snapshot does not hold are then not run (see the engine)
            String detail = e.path("detail").asString(null);
            out.coverage(
                    new Coverage.Entry(
                            e.path("source").asString("?"),
                            e.path("scope").asString("?") + " (saved in " + file.display() + ")",
                            st,
                            detail,
                            st == Coverage.Status.READ ? e.path("count").asLong(-1) : -1));
        }
        out.read("snapshot", file.display(), read);
    }

    static List<String> partNames() {
        return List.copyOf(PARTS);
    }
}
