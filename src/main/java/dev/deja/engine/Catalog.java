package dev.deja.engine;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Date;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Rule and case metadata: {@code rules/<rule-id>.yaml} and {@code rules/cases/<case-id>.yaml},
 * packaged into the jar under {@code dev/deja/catalog/}. Loaded and validated once; every problem
 * is reported with the file it is in.
 */
public final class Catalog {
    public static final String RESOURCE_ROOT = "dev/deja/catalog/";
    public static final Pattern RULE_ID = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)+");
    public static final Pattern CASE_ID = Pattern.compile("IL-\\d{4}");
    public static final String LIBRARY_URL = "https://incidentlib-api.benchlet.com/cases/";

    private final Map<String, RuleMetadata> rules;
    private final Map<String, CaseInfo> cases;
    private final Map<String, String> aliases;
    private final Map<String, String> origins;

    private Catalog(
            Map<String, RuleMetadata> rules,
            Map<String, CaseInfo> cases,
            Map<String, String> aliases) {
        this(rules, cases, aliases, Map.of());
    }

    private Catalog(
            Map<String, RuleMetadata> rules,
            Map<String, CaseInfo> cases,
            Map<String, String> aliases,
            Map<String, String> origins) {
        this.rules = Collections.unmodifiableMap(rules);
        this.cases = Collections.unmodifiableMap(cases);
        this.aliases = Collections.unmodifiableMap(aliases);
        this.origins = Collections.unmodifiableMap(origins);
    }

    /**
     * This catalog with a team's own rules and cases ({@code deja scan --rules-dir}) next to the
     * built-in ones. {@code origins} maps each added rule or case id to the file it was read from
     * ({@link #origin}). An id that is already taken, or a rule linking a case that neither catalog
     * has, is a {@link CatalogException} naming the file.
     */
    public Catalog withUserRules(
            Collection<RuleMetadata> userRules,
            Collection<CaseInfo> userCases,
            Map<String, String> userOrigins) {
        List<String> errors = new ArrayList<>();
        Map<String, RuleMetadata> r = new TreeMap<>(rules);
        Map<String, CaseInfo> c = new TreeMap<>(cases);
        Map<String, String> o = new TreeMap<>(origins);
        for (CaseInfo k : userCases) {
            String file = userOrigins.getOrDefault(k.id(), k.id());
            if (c.containsKey(k.id())) {
                errors.add(
                        file
                                + ": case id "
                                + k.id()
                                + " is already taken"
                                + (origins.containsKey(k.id())
                                        ? " by " + origins.get(k.id())
                                        : " by a built-in case"));
                continue;
            }
            c.put(k.id(), k);
            o.put(k.id(), file);
        }
        for (RuleMetadata m : userRules) {
            String file = userOrigins.getOrDefault(m.id(), m.id());
            if (r.containsKey(m.id()) || aliases.containsKey(m.id())) {
                errors.add(
                        file
                                + ": rule id "
                                + m.id()
                                + " is already taken"
                                + (o.containsKey(m.id())
                                        ? " by " + o.get(m.id())
                                        : " by a built-in rule (see 'deja rules')"));
                continue;
            }
            for (String k : m.caseIds()) {
                if (!c.containsKey(k)) {
                    errors.add(
                            file
                                    + ": links unknown case "
                                    + k
                                    + " (a built-in case, see 'deja cases', or cases/"
                                    + k
                                    + ".yaml in its folder)");
                }
            }
            r.put(m.id(), m);
            o.put(m.id(), file);
        }
        if (!errors.isEmpty()) {
            throw new CatalogException(String.join("; ", errors));
        }
        return new Catalog(r, c, aliases, o);
    }

    /**
     * The file a team's own rule or case was read from; empty for a built-in one (its YAML is in
     * the jar).
     */
    public Optional<String> origin(String id) {
        return Optional.ofNullable(origins.get(id));
    }

    static Catalog of(Map<String, RuleMetadata> rules, Map<String, CaseInfo> cases) {
        Map<String, String> aliases = new TreeMap<>();
        for (RuleMetadata r : rules.values()) {
            r.aliases().forEach(a -> aliases.put(a, r.id()));
        }
        return new Catalog(rules, cases, aliases);
    }

    private static volatile Catalog packaged;

    /** The catalog packaged with deja (cached). */
    public static Catalog packaged() {
        Catalog c = packaged;
        if (c == null) {
            synchronized (Catalog.class) {
                c = packaged;
                if (c == null) {
                    c = readCompiled();
                    if (c == null) {
                        c = load(readPackagedFiles());
                    }
                    packaged = c;
                }
            }
        }
        return c;
    }

    /** Reads a catalog from a folder laid out like the repository's {@code rules/}. */
    public static Catalog fromDirectory(Path dir) {
        try {
            return load(fromDirectoryFiles(dir));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses and validates; {@code files} maps a path relative to the catalog root to its text. */
    public static Catalog load(Map<String, String> files) {
        List<String> errors = new ArrayList<>();
        Map<String, CaseInfo> cases = new TreeMap<>();
        Map<String, RuleMetadata> rules = new TreeMap<>();
        Map<String, String> aliases = new TreeMap<>();
        for (Map.Entry<String, String> e : files.entrySet()) {
            String name = e.getKey();
            if (!name.endsWith(".yaml")) {
                continue;
            }
            String display = "rules/" + name;
            try {
                Map<String, Object> doc = CatalogYaml.parse(e.getValue(), display);
                if (name.startsWith("cases/")) {
                    CaseInfo c = readCase(doc, display, errors);
                    if (c != null) {
                        checkFileName(display, name.substring("cases/".length()), c.id(), errors);
                        if (cases.put(c.id(), c) != null) {
                            errors.add(display + ": duplicate case id " + c.id());
                        }
                    }
                } else if (!name.contains("/")) {
                    RuleMetadata r = readRule(doc, display, errors);
                    if (r != null) {
                        checkFileName(display, name, r.id(), errors);
                        if (rules.put(r.id(), r) != null) {
                            errors.add(display + ": duplicate rule id " + r.id());
                        }
                        for (String a : r.aliases()) {
                            if (aliases.put(a, r.id()) != null) {
                                errors.add(display + ": duplicate alias " + a);
                            }
                        }
                    }
                }
            } catch (CatalogException ex) {
                errors.add(ex.getMessage());
            }
        }
        for (String a : aliases.keySet()) {
            if (rules.containsKey(a)) {
                errors.add("rules/" + aliases.get(a) + ".yaml: alias " + a + " is also a rule id");
            }
        }
        for (RuleMetadata r : rules.values()) {
            for (String c : r.caseIds()) {
                if (!cases.containsKey(c)) {
                    errors.add("rules/" + r.id() + ".yaml: links unknown case " + c);
                }
            }
        }
        if (!errors.isEmpty()) {
            throw new CatalogException("invalid rule catalog: " + String.join("; ", errors));
        }
        return new Catalog(rules, cases, aliases);
    }

    public Collection<RuleMetadata> rules() {
        return rules.values();
    }

    public Collection<CaseInfo> cases() {
        return cases.values();
    }

    /** A rule by id or by one of its old ids (aliases). */
    public Optional<RuleMetadata> rule(String id) {
        RuleMetadata r = rules.get(id);
        if (r == null && aliases.containsKey(id)) {
            r = rules.get(aliases.get(id));
        }
        return Optional.ofNullable(r);
    }

    public Optional<CaseInfo> caseInfo(String id) {
        return Optional.ofNullable(cases.get(id));
    }

    /** Rules that link the given case. */
    public List<RuleMetadata> rulesForCase(String caseId) {
        List<RuleMetadata> out = new ArrayList<>();
        for (RuleMetadata r : rules.values()) {
            if (r.caseIds().contains(caseId)) {
                out.add(r);
            }
        }
        return out;
    }

    /** The current id for an id or alias, or the input when unknown. */
    public String canonicalRuleId(String id) {
        return rules.containsKey(id) ? id : aliases.getOrDefault(id, id);
    }

    // ---------------------------------------------------------------- reading

    private static void checkFileName(
            String display, String fileName, String id, List<String> errors) {
        if (!fileName.equals(id + ".yaml")) {
            errors.add(display + ": file name does not match id " + id);
        }
    }

    private static RuleMetadata readRule(Map<String, Object> d, String f, List<String> errors) {
        int before = errors.size();
        String id = str(d, "id", f, errors);
        String title = str(d, "title", f, errors);
        String severity = str(d, "severity", f, errors);
        String source = str(d, "source", f, errors);
        List<String> caseIds = list(d, "caseIds", f, errors, true);
        String description = str(d, "description", f, errors);
        String remediation = str(d, "remediation", f, errors);
        List<String> links = list(d, "links", f, errors, false);
        List<String> aliases = list(d, "aliases", f, errors, false);
        if (d.containsKey("class")) {
            errors.add(
                    f
                            + ": 'class:' is not read: a Java rule is registered by its id in"
                            + " dev.deja.rules.RuleRegistry");
        }
        List<RuleMetadata.Parameter> parameters = parameters(d.get("parameters"), f, errors);
        Severity sev = null;
        SourceKind src = null;
        if (id != null && !RULE_ID.matcher(id).matches()) {
            errors.add(f + ": malformed rule id '" + id + "' (lower-case words joined by '-')");
        }
        if (title != null && title.strip().endsWith(".")) {
            errors.add(f + ": title ends with a period");
        }
        if (remediation != null && !remediation.strip().endsWith(".")) {
            errors.add(f + ": remediation does not end with a period");
        }
        try {
            sev = severity == null ? null : Severity.parse(severity);
        } catch (IllegalArgumentException e) {
            errors.add(f + ": " + e.getMessage());
        }
        try {
            src = source == null ? null : SourceKind.parse(source);
        } catch (IllegalArgumentException e) {
            errors.add(f + ": " + e.getMessage());
        }
        if (caseIds != null && caseIds.isEmpty()) {
            errors.add(f + ": caseIds is empty (every rule links at least one case)");
        }
        checkLinks(links, f, errors);
        Fix fix =
                d.get("fix") == null || remediation == null || errors.size() > before
                        ? null
                        : Fix.read(d.get("fix"), src, remediation.strip(), f, errors);
        if (errors.size() > before) {
            return null;
        }
        return new RuleMetadata(
                id,
                title.strip(),
                sev,
                src,
                caseIds,
                description.strip(),
                remediation.strip(),
                links,
                aliases,
                parameters,
                fix);
    }

    static final Pattern PARAMETER_NAME = Pattern.compile("[a-z][A-Za-z0-9]*");
    static final Pattern NUMBER = Pattern.compile("-?\\d+(\\.\\d+)?");

    /**
     * {@code parameters: {name: {default: N, description: text}}}: the thresholds a team may tune.
     */
    private static List<RuleMetadata.Parameter> parameters(
            Object o, String f, List<String> errors) {
        List<RuleMetadata.Parameter> out = new ArrayList<>();
        if (o == null) {
            return out;
        }
        if (!(o instanceof Map<?, ?> m)) {
            errors.add(f + ": 'parameters' must be a mapping of NAME: {default, description}");
            return out;
        }
        for (Map.Entry<?, ?> e : m.entrySet()) {
            String name = String.valueOf(e.getKey());
            if (!PARAMETER_NAME.matcher(name).matches()) {
                errors.add(f + ": parameter name '" + name + "' is not lowerCamelCase");
            }
            if (!(e.getValue() instanceof Map<?, ?> p)
                    || !p.keySet().equals(Set.of("default", "description"))) {
                errors.add(
                        f
                                + ": parameter "
                                + name
                                + " needs exactly 'default' (a number) and 'description'");
                continue;
            }
            String dflt = String.valueOf(p.get("default"));
            if (!(p.get("default") instanceof Number) || !NUMBER.matcher(dflt).matches()) {
                errors.add(f + ": parameter " + name + ": default '" + dflt + "' is not a number");
            }
            String description =
                    p.get("description") == null
                            ? ""
                            : String.valueOf(p.get("description")).strip();
            if (description.isEmpty()) {
                errors.add(f + ": parameter " + name + " has no description");
            }
            out.add(new RuleMetadata.Parameter(name, dflt, description));
        }
        return out;
    }

    /** A team's own case id: upper-case words and numbers joined by '-' ("ACME-0042"). */
    public static final Pattern USER_CASE_ID = Pattern.compile("[A-Z][A-Z0-9]*(-[A-Z0-9]+)+");

    /**
     * The metadata of a team's own rule ({@code deja scan --rules-dir}), validated as a built-in
     * rule's YAML is; its cases are under {@code cases:} (or {@code caseIds:}).
     */
    public static RuleMetadata userRule(Map<String, Object> doc, String display) {
        Map<String, Object> d = new LinkedHashMap<>(doc);
        if (d.containsKey("cases") && !d.containsKey("caseIds")) {
            d.put("caseIds", d.remove("cases"));
        }
        List<String> errors = new ArrayList<>();
        if (d.containsKey("class")) {
            errors.add(display + ": a rule of its own has a 'check:', not a 'class:'");
            d.remove("class");
        }
        RuleMetadata r = readRule(d, display, errors);
        if (!errors.isEmpty()) {
            throw new CatalogException(String.join("; ", errors));
        }
        return r;
    }

    /**
     * A team's own case ({@code cases/<ID>.yaml} beside its rules): the fields of a built-in case;
     * its id is upper-case words and numbers ({@link #USER_CASE_ID}), and {@code libraryUrl} is
     * optional (its first link by default).
     */
    public static CaseInfo userCase(Map<String, Object> doc, String display) {
        Map<String, Object> d = new LinkedHashMap<>(doc);
        if (!d.containsKey("libraryUrl") && d.get("links") instanceof List<?> l && !l.isEmpty()) {
            d.put("libraryUrl", String.valueOf(l.get(0)));
        }
        List<String> errors = new ArrayList<>();
        CaseInfo c = readCase(d, display, errors, false);
        if (!errors.isEmpty()) {
            throw new CatalogException(String.join("; ", errors));
        }
        return c;
    }

    private static CaseInfo readCase(Map<String, Object> d, String f, List<String> errors) {
        return readCase(d, f, errors, true);
    }

    private static CaseInfo readCase(
            Map<String, Object> d, String f, List<String> errors, boolean builtIn) {
        int before = errors.size();
        String id = str(d, "id", f, errors);
        String title = str(d, "title", f, errors);
        String org = str(d, "organisation", f, errors);
        Object dateObj = d.get("date");
        String date =
                dateObj == null
                        ? null
                        : (dateObj instanceof Date dt
                                ? dt.toInstant().toString().substring(0, 10)
                                : dateObj.toString());
        if (date == null) {
            errors.add(f + ": missing 'date'");
        }
        List<String> tags = list(d, "tags", f, errors, true);
        String summary = str(d, "summary", f, errors);
        List<String> numbers = list(d, "numbers", f, errors, false);
        List<String> failed = list(d, "failed", f, errors, false);
        List<String> followUps = list(d, "followUps", f, errors, true);
        List<String> links = list(d, "links", f, errors, true);
        String libraryUrl = str(d, "libraryUrl", f, errors);
        List<CaseInfo.TimelineEntry> timeline = new ArrayList<>();
        Object tl = d.get("timeline");
        if (!(tl instanceof List<?> tlList) || tlList.isEmpty()) {
            errors.add(f + ": 'timeline' must be a non-empty list of {time, event}");
        } else {
            for (Object o : tlList) {
                if (o instanceof Map<?, ?> m && m.get("time") != null && m.get("event") != null) {
                    timeline.add(
                            new CaseInfo.TimelineEntry(
                                    m.get("time").toString(), m.get("event").toString().strip()));
                } else {
                    errors.add(f + ": timeline entries need 'time' and 'event'");
                }
            }
        }
        if (!builtIn) {
            if (id != null && !USER_CASE_ID.matcher(id).matches()) {
                errors.add(
                        f
                                + ": malformed case id '"
                                + id
                                + "' (upper-case words and numbers joined by '-', e.g. ACME-0042)");
            }
        } else if (id != null && !CASE_ID.matcher(id).matches()) {
            errors.add(f + ": malformed case id '" + id + "' (IL-NNNN)");
        }
        if (builtIn && id != null && libraryUrl != null && !libraryUrl.equals(LIBRARY_URL + id)) {
            errors.add(f + ": libraryUrl must be " + LIBRARY_URL + id);
        }
        checkLinks(links, f, errors);
        if (errors.size() > before) {
            return null;
        }
        return new CaseInfo(
                id,
                title.strip(),
                org,
                date,
                tags,
                summary.strip(),
                numbers,
                timeline,
                failed,
                followUps,
                links,
                libraryUrl);
    }

    private static void checkLinks(List<String> links, String f, List<String> errors) {
        if (links != null) {
            for (String l : links) {
                if (!l.startsWith("https://")) {
                    errors.add(f + ": link is not https: " + l);
                }
            }
        }
    }

    private static String str(Map<String, Object> d, String key, String f, List<String> errors) {
        Object o = d.get(key);
        if (o == null || o.toString().isBlank()) {
            errors.add(f + ": missing '" + key + "'");
            return null;
        }
        if (o instanceof Map || o instanceof List) {
            errors.add(f + ": '" + key + "' must be a string");
            return null;
        }
        return o.toString();
    }

    private static List<String> list(
            Map<String, Object> d, String key, String f, List<String> errors, boolean required) {
        Object o = d.get(key);
        if (o == null) {
            if (required) {
                errors.add(f + ": missing '" + key + "'");
                return null;
            }
            return List.of();
        }
        if (!(o instanceof List<?> l)) {
            errors.add(f + ": '" + key + "' must be a list");
            return null;
        }
        List<String> out = new ArrayList<>();
        for (Object x : l) {
            out.add(String.valueOf(x).strip());
        }
        return out;
    }

    static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    // ---------------------------------------------------------------- packaged resources

    /**
     * The catalog compiled at build time ({@link CatalogCompiler}), or null when absent (e.g. in an
     * IDE).
     */
    private static Catalog readCompiled() {
        try (InputStream in =
                Catalog.class
                        .getClassLoader()
                        .getResourceAsStream(RESOURCE_ROOT + CatalogCompiler.INDEX)) {
            if (in == null) {
                return null;
            }
            Properties p = new Properties();
            p.load(new InputStreamReader(in, StandardCharsets.UTF_8));
            return CatalogCompiler.fromProperties(p);
        } catch (IOException | RuntimeException e) {
            throw new CatalogException(
                    "the compiled rule catalog is unreadable: " + e.getMessage());
        }
    }

    private static Map<String, String> readPackagedFiles() {
        URL root = Catalog.class.getClassLoader().getResource(RESOURCE_ROOT);
        if (root == null) {
            throw new CatalogException(
                    "rule catalog missing from the classpath (" + RESOURCE_ROOT + ")");
        }
        Map<String, String> files = new TreeMap<>();
        try {
            if ("jar".equals(root.getProtocol())) {
                JarURLConnection conn = (JarURLConnection) root.openConnection();
                conn.setUseCaches(true);
                JarFile jar = conn.getJarFile();
                Enumeration<JarEntry> en = jar.entries();
                List<String> names = new ArrayList<>();
                while (en.hasMoreElements()) {
                    String n = en.nextElement().getName();
                    if (n.startsWith(RESOURCE_ROOT) && n.endsWith(".yaml")) {
                        names.add(n);
                    }
                }
                for (String n : names) {
                    try (InputStream in = jar.getInputStream(jar.getEntry(n))) {
                        files.put(
                                n.substring(RESOURCE_ROOT.length()),
                                new String(in.readAllBytes(), StandardCharsets.UTF_8));
                    }
                }
            } else {
                Path dir = Path.of(root.toURI());
                return fromDirectoryFiles(dir);
            }
        } catch (IOException | URISyntaxException e) {
            throw new CatalogException("cannot read the packaged rule catalog: " + e.getMessage());
        }
        return files;
    }

    private static Map<String, String> fromDirectoryFiles(Path dir) throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted()::iterator) {
                if (Files.isRegularFile(p) && p.getFileName().toString().endsWith(".yaml")) {
                    files.put(dir.relativize(p).toString().replace('\\', '/'), Files.readString(p));
                }
            }
        }
        return files;
    }
}
