package dev.deja.model.kube;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.toml.TomlFactory;
import tools.jackson.dataformat.toml.TomlMapper;

/**
 * The part of Traefik's static configuration that the IL-0106 rules read (is the Kubernetes CRD
 * provider on, and what narrows it), as it applies to one container. Traefik reads its static
 * configuration from ONE source: its loaders run in order, file, then flags, then environment, and
 * the first that finds something is the configuration (cmd/traefik/traefik.go: {@code
 * []cli.ResourceLoader{&DeprecationLoader{}, &FileLoader{}, &FlagLoader{}, &EnvLoader{}}}; the loop
 * stops at the first that is done, traefik/paerser cli/commands.go). The file is the first that
 * exists of {@code --configFile} and {@code /etc/traefik/traefik}, {@code
 * $XDG_CONFIG_HOME/traefik}, {@code $HOME/.config/traefik}, {@code ./traefik} with {@code .toml},
 * {@code .yaml}, {@code .yml} (pkg/cli/loader_file.go, paerser cli/file_finder.go); flags apply
 * when the command line has any argument (pkg/cli/loader_flag.go); else the variables prefixed
 * {@code TRAEFIK_} (pkg/cli/loader_env.go, paerser env/env.go: the name lower-cased, {@code _} for
 * {@code .}).
 *
 * <p>In a pod the file is what a volume mounts at one of those paths; deja reads it when it is a
 * ConfigMap of the scan, and says why not otherwise ({@link #notJudged}): never a guess. Paths
 * relative to the working directory ({@code ./traefik.*}) and {@code $HOME} when the container does
 * not set it are not followed, and a file built into a custom image is not seen (Traefik's official
 * image has none).
 *
 * @param source where the configuration comes from ("the command line", "the environment", "file
 *     /etc/traefik/traefik.yml (ConfigMap traefik/traefik-config, key traefik.yml)", or "defaults")
 * @param provider how the CRD provider is turned on, as written ("--providers.kubernetescrd",
 *     "providers.kubernetesCRD", "TRAEFIK_PROVIDERS_KUBERNETESCRD=true"), or null when it is off
 * @param scopes the options that narrow the provider, set to a non-empty value ("namespaces=[a,
 *     b]")
 * @param notJudged why the configuration is not known (its file, ConfigMap or variable is not in
 *     the scan, or cannot be parsed), or null; provider and scopes are then unknown
 */
public record TraefikStatic(String source, String provider, List<String> scopes, String notJudged) {

    public TraefikStatic {
        scopes = scopes == null ? List.of() : List.copyOf(scopes);
    }

    /** The CRD provider's flag, and the options that narrow what it reads. */
    public static final String PROVIDER = "--providers.kubernetescrd";

    public static final List<String> SCOPE_OPTIONS =
            List.of("labelselector", "namespaces", "ingressclass");

    /** Largest configuration file read, in characters (a ConfigMap holds at most 1 MiB). */
    static final int MAX_FILE_CHARS = 1 << 20;

    /** Deepest nesting read in a file; Traefik's static configuration is a few levels deep. */
    static final int MAX_DEPTH = 32;

    private static final List<String> EXTENSIONS = List.of("toml", "yaml", "yml");

    /** The ConfigMap keys a live scan keeps for this view ({@link ConfigMap#keptLive}). */
    public static boolean keptLive(String key) {
        return key.equals("traefik.toml")
                || key.equals("traefik.yaml")
                || key.equals("traefik.yml")
                || key.regionMatches(true, 0, "TRAEFIK_", 0, 8);
    }

    private static TraefikStatic unknown(String why) {
        return new TraefikStatic(null, null, List.of(), why);
    }

    /** The static configuration of container {@code c} of workload {@code w}. */
    public static TraefikStatic of(Workload w, Container c, KubeInventory inv) {
        Map<String, String> envs = new LinkedHashMap<>();
        for (Container.EnvVar e : c.env()) {
            if (e.value() != null) {
                envs.put(e.name(), e.value());
            }
        }
        List<String> argv = c.argv();
        String configFile = null;
        boolean hasArgs = false;
        for (int i = 0; i < argv.size(); i++) {
            String s = argv.get(i).strip();
            if (!s.startsWith("-")) {
                continue;
            }
            hasArgs = true;
            String lower = s.toLowerCase(Locale.ROOT).replaceFirst("^--?", "");
            if (lower.startsWith("configfile=")) {
                configFile = s.substring(s.indexOf('=') + 1).strip();
            } else if (lower.equals("configfile") && i + 1 < argv.size()) {
                configFile = argv.get(i + 1).strip();
            }
        }
        List<String> paths = new ArrayList<>();
        if (configFile != null && !configFile.isEmpty()) {
            if (!configFile.startsWith("/")) {
                return unknown(
                        "--configFile="
                                + configFile
                                + " is relative to the container's working directory, which deja"
                                + " does not follow");
            }
            paths.add(configFile);
        }
        // os.ExpandEnv: an unset variable is empty
        String xdg = envs.getOrDefault("XDG_CONFIG_HOME", "");
        for (String base :
                new String[] {
                    "/etc/traefik/traefik",
                    xdg + "/traefik",
                    envs.containsKey("HOME") ? envs.get("HOME") + "/.config/traefik" : null
                }) {
            if (base == null) {
                continue;
            }
            for (String ext : EXTENSIONS) {
                paths.add(base + "." + ext);
            }
        }
        for (int i = 0; i < paths.size(); i++) {
            String path = paths.get(i);
            FileAt f = fileAt(w, c, inv, path);
            if (f.why != null) {
                return unknown(f.why);
            }
            if (f.cm != null) {
                return fromFile(path, f.cm, f.key);
            }
            if (i == 0 && path.equals(configFile) && f.image) {
                return unknown(
                        "--configFile="
                                + configFile
                                + " is a path no volume of the pod provides: the file may be in the"
                                + " image, which deja does not read");
            }
        }
        if (hasArgs) {
            return fromFlags(argv);
        }
        return fromEnv(w, c, inv);
    }

    /** A file of the pod: in a ConfigMap of the scan, absent, or not known (why). */
    private record FileAt(ConfigMap cm, String key, String why, boolean image) {}

    /** The container's mount with the longest path over {@code path}, or null. */
    private static Container.Mount mountOver(Container c, String path) {
        Container.Mount best = null;
        for (Container.Mount m : c.mounts()) {
            String mp = m.mountPath() == null ? null : strip(m.mountPath());
            if (mp == null) {
                continue;
            }
            if ((path.equals(mp) || path.startsWith(mp.equals("/") ? "/" : mp + "/"))
                    && (best == null || mp.length() > strip(best.mountPath()).length())) {
                best = m;
            }
        }
        return best;
    }

    private static FileAt fileAt(Workload w, Container c, KubeInventory inv, String path) {
        Container.Mount best = mountOver(c, path);
        if (best == null) {
            return new FileAt(null, null, null, true);
        }
        String mp = strip(best.mountPath());
        String rest = path.equals(mp) ? "" : path.substring(mp.equals("/") ? 1 : mp.length() + 1);
        String rel =
                best.subPath() == null
                        ? rest
                        : rest.isEmpty() ? best.subPath() : best.subPath() + "/" + rest;
        Workload.Volume v = w.volume(best.volume());
        if (v == null) {
            return new FileAt(null, null, "volume " + best.volume() + " is not in the pod", false);
        }
        if (!"configMap".equals(v.kind())) {
            return new FileAt(
                    null,
                    null,
                    "volume "
                            + v.name()
                            + " ("
                            + v.kind()
                            + ") is mounted over "
                            + path
                            + ", where Traefik looks for its configuration file; deja does not"
                            + " read that kind of volume",
                    false);
        }
        if (rel.isEmpty()) {
            return new FileAt(null, null, path + " is the ConfigMap volume's directory", false);
        }
        String key = v.items().isEmpty() ? (rel.contains("/") ? null : rel) : v.items().get(rel);
        if (key == null) {
            return new FileAt(null, null, null, false); // no such file in the volume
        }
        return inConfigMap(w, inv, v, path, key);
    }

    /** The file at {@code path}: key {@code key} of volume {@code v}'s ConfigMap. */
    private static FileAt inConfigMap(
            Workload w, KubeInventory inv, Workload.Volume v, String path, String key) {
        List<ConfigMap> cms = inv.configMapsFor(w.meta(), w.namespace(), v.configMap());
        String cmName = (w.namespace() == null ? "" : w.namespace() + "/") + v.configMap();
        if (cms.isEmpty()) {
            return new FileAt(
                    null,
                    null,
                    "Traefik looks for its configuration file at "
                            + path
                            + ", which key "
                            + key
                            + " of ConfigMap "
                            + cmName
                            + " provides (volume "
                            + v.name()
                            + (v.items().isEmpty() ? ", if it has that key" : "")
                            + "), and that ConfigMap is not in the scan",
                    false);
        }
        ConfigMap cm = cms.get(0);
        if (cm.data().containsKey(key)) {
            return new FileAt(cm, key, null, false);
        }
        if (cm.meta().file() == null && !keptLive(key)) {
            return new FileAt(
                    null,
                    null,
                    "its configuration file "
                            + path
                            + " would be key "
                            + key
                            + " of ConfigMap "
                            + cmName
                            + ", which a live scan does not keep (only traefik.toml, traefik.yaml,"
                            + " traefik.yml and TRAEFIK_* keys)",
                    false);
        }
        return new FileAt(null, null, null, false); // the ConfigMap has no such key: no file
    }

    private static String strip(String mountPath) {
        String s = mountPath.strip();
        while (s.length() > 1 && s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        return s;
    }

    private static TraefikStatic fromFile(String path, ConfigMap cm, String key) {
        String where =
                "file "
                        + path
                        + " (ConfigMap "
                        + cm.meta().display().replaceFirst("^ConfigMap ", "")
                        + ", key "
                        + key
                        + ")";
        String text = cm.data().get(key);
        if (text.length() > MAX_FILE_CHARS) {
            return unknown(where + " is larger than " + MAX_FILE_CHARS + " characters");
        }
        Object root;
        String lower = path.toLowerCase(Locale.ROOT);
        try {
            if (lower.endsWith(".toml")) {
                root = toml(text);
            } else if (lower.endsWith(".yaml") || lower.endsWith(".yml")) {
                root = yaml(text);
            } else {
                return unknown(where + ": Traefik reads only .toml, .yaml and .yml files");
            }
        } catch (YAMLException | JacksonException | IllegalArgumentException e) {
            String m = String.valueOf(e.getMessage()).strip();
            int nl = m.indexOf('\n');
            m = nl < 0 ? m : m.substring(0, nl);
            return unknown(
                    where
                            + " is not valid "
                            + (lower.endsWith(".toml") ? "TOML" : "YAML")
                            + ": "
                            + (m.length() > 200 ? m.substring(0, 200) + "..." : m));
        }
        Object providers = get(root, "providers");
        if (!containsKey(providers, "kubernetescrd")) {
            return new TraefikStatic(where, null, List.of(), null);
        }
        Object crd = get(providers, "kubernetescrd");
        if (crd != null && !(crd instanceof Map) && !"true".equalsIgnoreCase(text(crd))) {
            String t = text(crd);
            if (t != null && !t.isBlank()) {
                return new TraefikStatic(where, null, List.of(), null);
            }
        }
        List<String> scopes = new ArrayList<>();
        for (String option : SCOPE_OPTIONS) {
            Object v = get(crd, option);
            String shown;
            if (v instanceof List<?> l) {
                List<String> items = new ArrayList<>();
                for (Object o : l) {
                    String t = text(o);
                    if (t != null && !t.isBlank()) {
                        items.add(t);
                    }
                }
                shown = items.isEmpty() ? null : items.toString();
            } else {
                String t = text(v);
                shown = t == null || t.isBlank() ? null : t.strip();
            }
            if (shown != null) {
                scopes.add(option + "=" + shown);
            }
        }
        return new TraefikStatic(where, "providers.kubernetesCRD", scopes, null);
    }

    private static Object yaml(String text) {
        LoaderOptions o = new LoaderOptions();
        o.setNestingDepthLimit(MAX_DEPTH);
        o.setCodePointLimit(MAX_FILE_CHARS);
        o.setMaxAliasesForCollections(50);
        o.setAllowDuplicateKeys(false);
        return new Yaml(new SafeConstructor(o)).load(text);
    }

    private static Object toml(String text) {
        TomlMapper m =
                new TomlMapper(
                        TomlFactory.builder()
                                .streamReadConstraints(
                                        StreamReadConstraints.builder()
                                                .maxNestingDepth(MAX_DEPTH)
                                                .maxStringLength(MAX_FILE_CHARS)
                                                .build())
                                .build());
        return plain(m.readTree(text));
    }

    /** A Jackson tree as maps, lists and strings, like SnakeYAML's. */
    private static Object plain(JsonNode n) {
        if (n.isObject()) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> e : n.properties()) {
                out.put(e.getKey(), plain(e.getValue()));
            }
            return out;
        }
        if (n.isArray()) {
            List<Object> out = new ArrayList<>();
            for (JsonNode i : n) {
                out.add(plain(i));
            }
            return out;
        }
        return n.isNull() ? null : n.asString();
    }

    /** A key of a mapping, matched as Traefik does: without regard to case. */
    private static Object get(Object map, String key) {
        if (map instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (String.valueOf(e.getKey()).equalsIgnoreCase(key)) {
                    return e.getValue();
                }
            }
        }
        return null;
    }

    private static boolean containsKey(Object map, String key) {
        if (map instanceof Map<?, ?> m) {
            for (Object k : m.keySet()) {
                if (String.valueOf(k).equalsIgnoreCase(key)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String text(Object o) {
        return o == null || o instanceof Map || o instanceof List ? null : String.valueOf(o);
    }

    /**
     * The provider from the command line: {@code --providers.kubernetescrd}, {@code =true}, or any
     * of its options turn it on, {@code =false} off; flags are case-insensitive.
     */
    static TraefikStatic fromFlags(List<String> argv) {
        String found = null;
        for (String a : argv) {
            String s = a.strip().toLowerCase(Locale.ROOT);
            if (s.equals(PROVIDER) || s.equals(PROVIDER + "=true")) {
                found = PROVIDER;
            } else if (s.equals(PROVIDER + "=false")) {
                return new TraefikStatic("the command line", null, List.of(), null);
            } else if (s.startsWith(PROVIDER + ".") && found == null) {
                int eq = s.indexOf('=');
                found = eq < 0 ? s : s.substring(0, eq);
            }
        }
        List<String> scopes = new ArrayList<>();
        for (int i = 0; i < argv.size(); i++) {
            String s = argv.get(i).strip();
            String lower = s.toLowerCase(Locale.ROOT);
            for (String option : SCOPE_OPTIONS) {
                String scope = PROVIDER + "." + option;
                String value = null;
                if (lower.startsWith(scope + "=")) {
                    value = s.substring(scope.length() + 1);
                } else if (lower.equals(scope) && i + 1 < argv.size()) {
                    value = argv.get(i + 1);
                }
                if (value != null && !value.strip().replace("\"", "").isEmpty()) {
                    scopes.add(scope + "=" + value.strip());
                }
            }
        }
        return new TraefikStatic("the command line", found, scopes, null);
    }

    private static final String ENV_PROVIDER = "TRAEFIK_PROVIDERS_KUBERNETESCRD";

    /** Whether a variable is one this view reads: the provider or one of its options. */
    private static boolean relevant(String name) {
        return name.toUpperCase(Locale.ROOT).startsWith(ENV_PROVIDER);
    }

    /**
     * The environment: {@code envFrom} first (a later source wins), then {@code env}, which
     * Kubernetes gives precedence; values from a ConfigMap of the scan are read, from a Secret or
     * an absent ConfigMap not.
     */
    private static TraefikStatic fromEnv(Workload w, Container c, KubeInventory inv) {
        Map<String, String> vars = new LinkedHashMap<>();
        TraefikStatic unread = readEnv(w, c, inv, vars);
        return unread != null ? unread : fromVars(vars);
    }

    /**
     * The container's environment into {@code vars} (envFrom ConfigMaps, then env); null when it
     * could be read, else the unknown result that says which variable deja cannot read.
     */
    private static TraefikStatic readEnv(
            Workload w, Container c, KubeInventory inv, Map<String, String> vars) {
        for (Container.EnvFrom ef : c.envFrom()) {
            if (ef.secret() != null) {
                return unknown(
                        "its environment takes variables from Secret "
                                + ef.secret()
                                + " (envFrom), which deja does not read; Traefik reads its"
                                + " configuration from TRAEFIK_* variables when it has no file"
                                + " and no arguments");
            }
            if (ef.configMap() == null) {
                continue;
            }
            List<ConfigMap> cms = inv.configMapsFor(w.meta(), w.namespace(), ef.configMap());
            if (cms.isEmpty()) {
                return unknown(
                        "its environment takes variables from ConfigMap "
                                + ef.configMap()
                                + " (envFrom), which is not in the scan; Traefik reads its"
                                + " configuration from TRAEFIK_* variables when it has no file"
                                + " and no arguments");
            }
            for (Map.Entry<String, String> e : cms.get(0).data().entrySet()) {
                vars.put(ef.prefixOrEmpty() + e.getKey(), e.getValue());
            }
        }
        for (Container.EnvVar e : c.env()) {
            if (e.configMap() != null) {
                List<ConfigMap> cms = inv.configMapsFor(w.meta(), w.namespace(), e.configMap());
                String v = cms.isEmpty() ? null : cms.get(0).data().get(e.configMapKey());
                if (v == null && relevant(e.name())) {
                    return unknown(
                            e.name()
                                    + " takes its value from key "
                                    + e.configMapKey()
                                    + " of ConfigMap "
                                    + e.configMap()
                                    + ", which "
                                    + (cms.isEmpty() ? "is not in the scan" : "has no such key"));
                }
                vars.put(e.name(), v);
            } else if (e.other() != null) {
                if (relevant(e.name())) {
                    return unknown(
                            e.name()
                                    + " takes its value from "
                                    + e.other()
                                    + ", which deja does not read");
                }
                vars.put(e.name(), null);
            } else {
                vars.put(e.name(), e.value() == null ? "" : e.value());
            }
        }
        return null;
    }

    /** What the TRAEFIK_* variables say of the Kubernetes CRD provider. */
    private static TraefikStatic fromVars(Map<String, String> vars) {
        String found = null;
        List<String> scopes = new ArrayList<>();
        boolean any = false;
        for (Map.Entry<String, String> e : vars.entrySet()) {
            String name = e.getKey().toUpperCase(Locale.ROOT);
            if (!name.startsWith("TRAEFIK_")) {
                continue;
            }
            any = true;
            String v = e.getValue() == null ? "" : e.getValue().strip();
            if (name.equals(ENV_PROVIDER)) {
                if (v.equalsIgnoreCase("false")) {
                    return new TraefikStatic("the environment", null, List.of(), null);
                }
                found = e.getKey() + "=" + v;
            } else if (name.startsWith(ENV_PROVIDER + "_")) {
                if (found == null) {
                    found = e.getKey();
                }
                String option = name.substring(ENV_PROVIDER.length() + 1).toLowerCase(Locale.ROOT);
                if (SCOPE_OPTIONS.contains(option) && !v.replace("\"", "").isEmpty()) {
                    scopes.add(e.getKey() + "=" + v);
                }
            }
        }
        return new TraefikStatic(any ? "the environment" : "defaults", found, scopes, null);
    }
}
