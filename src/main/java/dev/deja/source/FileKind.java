package dev.deja.source;

import dev.deja.engine.InputException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The kinds of file deja reads, recognised by content (the extension only breaks ties). Which
 * loader reads each kind is wired in {@code dev.deja.collect.Sources}.
 */
public enum FileKind {
    HAPROXY("haproxy"),
    KUBERNETES("kubernetes"),
    SNAPSHOT("snapshot");

    /** The {@code format} a snapshot file names itself with. */
    public static final String SNAPSHOT_FORMAT = "deja-snapshot";

    private final String source;

    FileKind(String source) {
        this.source = source;
    }

    public String source() {
        return source;
    }

    private static final Pattern HAPROXY_SECTION =
            Pattern.compile(
                    "(?m)^[ \\t]*(global|defaults|frontend|backend|listen|userlist|peers|resolvers|mailers|http-errors|ring"
                            + "|cache|program|crt-store|log-forward|fcgi-app|traces|acme|dynamic-update|log-profile"
                            + "|namespace_list)(?:[ \\t]|$)");

    /**
     * An INI "[section]" line (setup.cfg, tox.ini-style files): never HAProxy, whose sections are
     * keywords.
     */
    private static final Pattern INI_SECTION =
            Pattern.compile("(?m)^[ \\t]*\\[[^\\]\\n]+\\][ \\t]*$");

    private static final Pattern YAML_KIND =
            Pattern.compile("(?m)^[ \\t]*-?[ \\t]*kind:[ \\t]*['\"]?[A-Za-z]");
    private static final Pattern YAML_API =
            Pattern.compile("(?m)^[ \\t]*-?[ \\t]*apiVersion:[ \\t]*\\S");
    private static final Pattern JSON_KIND = Pattern.compile("\"kind\"\\s*:\\s*\"");
    private static final Pattern JSON_API = Pattern.compile("\"apiVersion\"\\s*:\\s*\"");

    /** Whether a file name is worth reading when found inside a folder. */
    public static boolean candidateName(String fileName) {
        String n = fileName.toLowerCase(Locale.ROOT);
        return n.endsWith(".cfg")
                || n.endsWith(".yaml")
                || n.endsWith(".yml")
                || n.endsWith(".json");
    }

    /**
     * What the text is, or null when it is none of deja's formats. The text has been checked for
     * NUL bytes already.
     */
    public static FileKind recognize(String fileName, String text) {
        String n = fileName.toLowerCase(Locale.ROOT);
        String head = text.length() > 65_536 ? text.substring(0, 65_536) : text;
        String trimmed = head.stripLeading();
        if (trimmed.startsWith("{")
                && head.contains("\"format\"")
                && head.contains(SNAPSHOT_FORMAT)) {
            return SNAPSHOT;
        }
        boolean haproxy = HAPROXY_SECTION.matcher(head).find();
        boolean cfg = n.endsWith(".cfg") || n.endsWith(".conf");
        if (cfg && haproxy) {
            // what the rest would decide, without searching 64 KB for a YAML or JSON "kind" (a
            // search that runs in the interpreter: ~3% of the main thread on a large config)
            return HAPROXY;
        }
        boolean yamlish = YAML_KIND.matcher(head).find() && YAML_API.matcher(head).find();
        boolean jsonish =
                (trimmed.startsWith("{") || trimmed.startsWith("["))
                        && JSON_KIND.matcher(head).find()
                        && JSON_API.matcher(head).find();
        if (cfg) {
            // a .cfg with lines but no section keyword is not HAProxy's (HAProxy itself refuses a
            // first line that
            // opens no section: "unknown keyword 'x' out of section"); one with comments only is an
            // empty config
            if (!(yamlish || jsonish || INI_SECTION.matcher(head).find())
                    && firstContentLine(head) < 0) {
                return HAPROXY;
            }
        }
        if (yamlish || jsonish) {
            return KUBERNETES;
        }
        if (haproxy) {
            return HAPROXY;
        }
        return null;
    }

    /**
     * As {@link #unrecognized(String)}, saying "empty" when there is nothing in it (an empty pipe,
     * a truncated file), else naming the first line that is not a comment (for a .cfg or .conf: why
     * HAProxy would refuse it too).
     */
    public static InputException unrecognized(String display, String text) {
        if (text == null || text.isBlank()) {
            return new InputException(display + ": empty, nothing to scan");
        }
        String lower = display.toLowerCase(Locale.ROOT);
        String half = lower.endsWith(".cfg") || lower.endsWith(".conf") ? null : halfManifest(text);
        if (half != null) {
            return new InputException(
                    display
                            + half
                            + ": not a Kubernetes manifest, which needs both (nor a HAProxy"
                            + " configuration or deja snapshot)");
        }
        int line = firstContentLine(text);
        String n = display.toLowerCase(Locale.ROOT);
        if (line < 0
                || !(n.endsWith(".cfg") || n.endsWith(".conf"))
                || INI_SECTION.matcher(text).find()) {
            return unrecognized(display);
        }
        String first = text.lines().skip(line - 1).findFirst().orElse("").strip();
        String word = first.split("[ \\t]+", 2)[0];
        if (word.length() > 40) {
            word = word.substring(0, 37) + "...";
        }
        String why =
                " ('"
                        + word
                        + "' opens no HAProxy section: haproxy -c refuses it as an unknown keyword out of section)";
        return new InputException(
                display
                        + ":"
                        + line
                        + ": not a HAProxy configuration, Kubernetes manifest or deja"
                        + " snapshot"
                        + why);
    }

    /**
     * For YAML with a {@code kind:} line and no {@code apiVersion:} line, or the other way round:
     * ":LINE: 'kind' without 'apiVersion'" (the line of the one it has); else null.
     */
    static String halfManifest(String text) {
        Matcher kind = YAML_KIND.matcher(text);
        Matcher api = YAML_API.matcher(text);
        boolean hasKind = kind.find();
        boolean hasApi = api.find();
        if (hasKind == hasApi) {
            return null;
        }
        int at = hasKind ? kind.start() : api.start();
        int line = 1;
        for (int i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) {
            line++;
        }
        return ":"
                + line
                + ": "
                + (hasKind ? "'kind' without 'apiVersion'" : "'apiVersion' without 'kind'");
    }

    /** The number of the first line that is neither blank nor a comment, or -1. */
    static int firstContentLine(String text) {
        int line = 0;
        for (String l : (Iterable<String>) text.lines()::iterator) {
            line++;
            String t = l.strip();
            if (!t.isEmpty() && !t.startsWith("#")) {
                return line;
            }
        }
        return -1;
    }

    /** For a file the user named explicitly that is none of the formats. */
    public static InputException unrecognized(String display) {
        return new InputException(
                display + ": not a HAProxy configuration, Kubernetes manifest or deja snapshot");
    }
}
